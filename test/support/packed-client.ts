/**
 * @agent-ledger/client as `npm pack` makes it (client/build.mjs --types, then pack), built once
 * per run (once-per-run.ts) for the tests that install the tarball (client/test/package.test.ts,
 * test/system/package-install.test.ts): the type bundle alone is a TypeScript program over the
 * SDK and the protocol, seconds of CPU. Staged from the real package.json outside client/dist,
 * so the other test files keep running the CLI meanwhile. Copy the tarball before installing it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { oncePerRun } from './once-per-run.js';

const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL('../../client/', import.meta.url));

/** `npm pack --json`'s description of one tarball. */
export interface Packed {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

/** The packed client: `tarball` is its absolute path. */
export async function packedClient(): Promise<{ packed: Packed; tarball: string }> {
  const dir = await oncePerRun('client-tarball', async (out) => {
    const stage = join(out, 'stage');
    mkdirSync(stage);
    copyFileSync(join(CLIENT, 'package.json'), join(stage, 'package.json'));
    await run(process.execPath, [join(CLIENT, 'build.mjs'), '--types', `--outdir=${join(stage, 'dist')}`]);
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: stage, env, encoding: 'utf8' });
    const [packed] = JSON.parse(stdout) as [Packed];
    writeFileSync(join(out, 'packed.json'), JSON.stringify(packed));
  });
  const packed = JSON.parse(readFileSync(join(dir, 'packed.json'), 'utf8')) as Packed;
  return { packed, tarball: join(dir, packed.filename) };
}
