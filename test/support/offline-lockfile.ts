/**
 * A package-lock.json for a project that installs local tarballs whose dependencies come
 * from this repository's lockfile: the same versions and integrity hashes `npm ci` put in
 * the npm cache, so `npm ci --offline` installs them from that cache with no network.
 * (An install without a lockfile would need the registry's package metadata, which npm ci
 * does not cache.)
 */
import { readFileSync } from 'node:fs';

type LockEntry = { version: string; integrity?: string; dependencies?: Record<string, string>; bin?: Record<string, string> };
type Lock = { packages: Record<string, LockEntry> };

export type LocalTarball = { name: string; version: string; file: string; dependencies?: Record<string, string>; bin?: Record<string, string> };

const REGISTRY = 'https://registry.npmjs.org';

/** Where Node would find `name` from the package installed at `from` (a lockfile key). */
function resolveKey(lock: Lock, from: string, name: string): string {
  for (let dir = from; ; ) {
    const key = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[key] !== undefined) return key;
    if (dir === '') throw new Error(`${name} (needed by ${from || 'the root'}) is not in the repository's package-lock.json`);
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

/**
 * The lockfile (and the package.json dependencies) of an app that installs `tarballs`, each
 * tarball's dependency tree resolved as it is in the repository from `workspace` (its folder).
 * Throws when two packages would need two versions of one dependency (not the case today).
 */
export function offlineLockfile(repoLockPath: string, tarballs: (LocalTarball & { workspace: string })[]): { dependencies: Record<string, string>; lockfile: unknown } {
  const lock = JSON.parse(readFileSync(repoLockPath, 'utf8')) as Lock;
  const packages: Record<string, unknown> = {};
  const walk = (from: string, deps: Record<string, string> | undefined): void => {
    for (const name of Object.keys(deps ?? {})) {
      const key = resolveKey(lock, from, name);
      const entry = lock.packages[key]!;
      const at = `node_modules/${name}`;
      const seen = packages[at] as LockEntry | undefined;
      if (seen !== undefined) {
        if (seen.version !== entry.version) throw new Error(`${name}: ${seen.version} and ${entry.version} both needed`);
        continue;
      }
      const tarball = `${REGISTRY}/${name}/-/${name.split('/').pop()!}-${entry.version}.tgz`;
      packages[at] = { version: entry.version, resolved: tarball, integrity: entry.integrity, ...(entry.dependencies ? { dependencies: entry.dependencies } : {}) };
      walk(key, entry.dependencies);
    }
  };
  const dependencies: Record<string, string> = {};
  for (const t of tarballs) {
    dependencies[t.name] = `file:${t.file}`;
    packages[`node_modules/${t.name}`] = { version: t.version, resolved: `file:${t.file}`, ...(t.dependencies ? { dependencies: t.dependencies } : {}), ...(t.bin ? { bin: t.bin } : {}) };
  }
  for (const t of tarballs) walk(t.workspace, t.dependencies);
  return { dependencies, lockfile: { name: 'app', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', dependencies }, ...packages } } };
}
