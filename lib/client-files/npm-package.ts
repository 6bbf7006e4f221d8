/**
 * The CLI's npm tarball as the service hands it out (docs/CLI.md "Installing the CLI from the
 * service"): client/build.mjs --types into a staging folder (client/dist is left alone), the
 * package's file-tree digest written into it (client/src/package/digest.ts says why a tree
 * digest), then `npm pack`. The bundles inline @agent-ledger/protocol and every library
 * (client/build.mjs), so the tarball has no dependencies: `npm install URL` fetches nothing else.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIGEST_FILE, digestPackage, type PackageDigest } from '../../client/src/package/digest.js';
import { PROJECT_ROOT } from '../paths.js';

const CLIENT = join(PROJECT_ROOT, 'client');

/** `npm pack --json`'s description of one tarball. */
export interface Packed {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

export interface NpmPackage {
  /** The tarball's file name in `out`: agent-ledger-<version>.tgz. */
  filename: string;
  packed: Packed;
  digest: PackageDigest;
}

/**
 * The package.json users install: the workspace's without what only builds it here (`scripts`:
 * its prepare and prepack run build.mjs, which the tarball does not hold; the devDependencies).
 */
function publishedManifest(): { name: string; version: string } & Record<string, unknown> {
  const { scripts: _scripts, devDependencies: _dev, ...manifest } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as Record<string, unknown>;
  return manifest as { name: string; version: string };
}

/** Builds and packs the client into `out` (created if missing). */
export function packClient(out: string): NpmPackage {
  const stage = join(out, '.stage');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  try {
    const manifest = publishedManifest();
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    copyFileSync(join(CLIENT, 'LICENSE'), join(stage, 'LICENSE'));
    execFileSync(process.execPath, [join(CLIENT, 'build.mjs'), '--types', `--outdir=${join(stage, 'dist')}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    const digest = digestPackage(stage, manifest.name, manifest.version);
    writeFileSync(join(stage, DIGEST_FILE), `${JSON.stringify(digest, null, 2)}\n`);
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
    const json = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: stage, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [packed] = JSON.parse(json) as [Packed];
    // npm names it after the scoped name (agent-ledger-client-0.1.0.tgz); the service's URL says what it installs.
    const filename = `agent-ledger-${manifest.version}.tgz`;
    renameSync(join(out, packed.filename), join(out, filename));
    return { filename, packed, digest };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
