/**
 * @agent-ledger/client as the service hands it out (lib/client-files/npm-package.ts: client/build.mjs
 * --types, the package digest, npm pack), built once per run (once-per-run.ts) for the tests that
 * install the tarball (client/test/package.test.ts, test/system/package-install.test.ts): the type
 * bundle alone is a TypeScript program over the SDK and the protocol, seconds of CPU. Staged outside
 * client/dist, so the other test files keep running the CLI meanwhile. Copy the tarball before
 * installing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packClient, type NpmPackage } from '../../lib/client-files/npm-package.js';
import { oncePerRun } from './once-per-run.js';

export type { Packed } from '../../lib/client-files/npm-package.js';

/** The packed client: `tarball` is its absolute path. */
export async function packedClient(): Promise<NpmPackage & { tarball: string }> {
  const dir = await oncePerRun('client-tarball', async (out) => {
    writeFileSync(join(out, 'packed.json'), JSON.stringify(packClient(out)));
  });
  const packed = JSON.parse(readFileSync(join(dir, 'packed.json'), 'utf8')) as NpmPackage;
  return { ...packed, tarball: join(dir, packed.filename) };
}
