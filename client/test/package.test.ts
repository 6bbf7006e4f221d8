/**
 * The published package: `npm pack` of @agent-ledger/client gives a tarball with nothing but
 * the bundled CLI (the hook's entry file and the other commands' module), the SDK bundle and its
 * self-contained types (and the license and the package's file-tree digest,
 * client/src/package/digest.ts); installed into an empty directory with no other package
 * (offline), `agent-ledger --help` and a command of the other module run, and the SDK imports.
 * The tarball is built once per run for this file and test/system/package-install.test.ts
 * (test/support/packed-client.ts).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packedClient } from '../../test/support/packed-client.js';
import { DIGEST_FILE, digestPackage, type PackageDigest } from '../src/package/digest.js';

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm pack', () => {
  it('installs into an empty directory with only Node and runs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-ledger-pack-'));
    const { packed, tarball, digest } = await packedClient();
    copyFileSync(tarball, join(root, packed.filename));
    expect(packed.files.map((file) => file.path).sort()).toEqual(['LICENSE', 'dist/cli.cjs', 'dist/commands.cjs', 'dist/index.d.ts', 'dist/index.js', 'dist/package-digest.json', 'package.json']);

    const app = join(root, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name": "app", "private": true, "type": "module"}\n');
    npm(['install', '--offline', '--no-audit', '--no-fund', join(root, packed.filename)], app);
    expect(readdirSync(join(app, 'node_modules')).sort()).toEqual(['.bin', '.package-lock.json', '@agent-ledger']);

    // npm writes the files as packed: the tree digest recorded at pack time holds for the installed package (doctor relies on it).
    const installed = join(app, 'node_modules', '@agent-ledger', 'client');
    const recorded = JSON.parse(readFileSync(join(installed, DIGEST_FILE), 'utf8')) as PackageDigest;
    expect(recorded).toEqual(digest);
    expect(digestPackage(installed, recorded.package, recorded.version)).toEqual(recorded);

    const help = execFileSync(join(app, 'node_modules', '.bin', 'agent-ledger'), ['--help'], { cwd: app, encoding: 'utf8' });
    expect(help).toMatch(/^agent-ledger: record what your coding agents do/);
    expect(help).toContain('agent-ledger agent init --tool FLAG');
    // Every command but the hook lives in dist/commands.cjs, imported beside the installed cli.cjs.
    const verifyHelp = execFileSync(join(app, 'node_modules', '.bin', 'agent-ledger'), ['verify', '--help'], { cwd: app, encoding: 'utf8' });
    expect(verifyHelp).toMatch(/^agent-ledger verify FILE/);
    const sdk = execFileSync(process.execPath, ['--input-type=module', '-e', "const m = await import('@agent-ledger/client'); console.log(typeof m.LedgerClient, typeof m.verifyReceipt, m.GENESIS)"], { cwd: app, encoding: 'utf8' });
    expect(sdk.trim()).toBe('function function AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');

    // The types stand alone: a consumer type-checks against them with nothing else installed.
    writeFileSync(join(app, 'use.ts'), "import { LedgerClient, type Receipt } from '@agent-ledger/client';\nconst c = new LedgerClient({ url: 'http://127.0.0.1:3000' });\nexport const r: Promise<Receipt> = c.submitOperation(null as never).then((x) => x.receipt);\n");
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', fileURLToPath(new URL('../../node_modules/@types', import.meta.url)), 'use.ts'], { cwd: app, stdio: 'pipe' });
  }, 120_000);
});
