/**
 * The package digest (docs/CLI.md "Installing the CLI from the service"): one SHA-256 over the
 * files of the installed @agent-ledger/client package, written into the package when the service
 * packs it (dist/package-digest.json) and listed in the service's /client/index.json.
 *
 * Why a digest of the file tree and not the tarball's SHA-256: npm unpacks the tarball and keeps
 * no copy of it (a global install records no lockfile), so an installed CLI cannot hash what it
 * was installed from. What it can hash is the files it runs from. npm writes them as they are in
 * the tarball (only their mode changes: the bin is made executable), so the tree digest computed
 * at pack time and the one computed over an installed package are equal exactly when the
 * installed files are the packed ones. index.json carries both: the tarball's SHA-256 for whoever
 * downloads it, the tree digest for `agent-ledger doctor`.
 *
 *   tree_sha256 = SHA-256 of the lines `<path> NUL <hex SHA-256 of the file> LF`, one per file of
 *                 the package but dist/package-digest.json itself, paths relative to the package
 *                 root with `/`, in byte order.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The digest's own file, inside the package (not part of the tree it describes). */
export const DIGEST_FILE = 'dist/package-digest.json';

export interface PackageDigest {
  package: string;
  version: string;
  tree_sha256: string;
  /** Each file's SHA-256 (hex), by path: says which file differs, and lets a copy of one file be checked. */
  contents: Record<string, string>;
}

export const sha256Hex = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** Every file under `root` (relative, `/`-separated), but the digest file. */
function packageFiles(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return packageFiles(root, path);
    return entry.isFile() && path !== DIGEST_FILE ? [path] : [];
  });
}

/** The tree digest of `contents` (path → hex SHA-256). */
export function treeDigest(contents: Record<string, string>): string {
  const paths = Object.keys(contents).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return sha256Hex(paths.map((path) => `${path}\0${contents[path]}\n`).join(''));
}

/** Hashes the package at `root` as it is on disk now. */
export function digestPackage(root: string, name: string, version: string): PackageDigest {
  const contents = Object.fromEntries(packageFiles(root).map((path) => [path, sha256Hex(readFileSync(join(root, path)))]));
  return { package: name, version, tree_sha256: treeDigest(contents), contents };
}
