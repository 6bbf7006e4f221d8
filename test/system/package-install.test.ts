/**
 * The two packages as a user gets them (issue: "Licensed and installable"): `npm pack` of
 * @agent-ledger/protocol (its built dist/, protocol/build.mjs) and of @agent-ledger/client,
 * installed together into an empty directory outside the repository with no network
 * (`npm ci --offline`, dependencies from the npm cache), then used there: `npx agent-ledger
 * --help`, `agent-ledger verify` on an export with its JWKS, and a plain Node ES module that
 * imports verifyExportBundle from @agent-ledger/protocol. Both packages are built into a
 * staging folder, so protocol/dist and client/dist are left alone (the client's tarball once per
 * run, test/support/packed-client.ts).
 */
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, writeBundle } from '../../protocol/test/exportscenario.js';
import { offlineLockfile } from '../support/offline-lockfile.js';
import { packedClient, type Packed } from '../support/packed-client.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const npm = async (args: string[], cwd: string): Promise<string> => (await run('npm', args, { cwd, env, encoding: 'utf8', maxBuffer: 16 << 20 })).stdout;

let root: string;
let app: string;
let protocolFiles: string[];

async function pack(stage: string): Promise<Packed> {
  const [packed] = JSON.parse(await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', root], stage)) as [Packed];
  return packed;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agent-ledger-install-'));
  const protocolStage = join(root, 'protocol');
  // Both builds at once: tsc for the protocol; the client's (esbuild and the type bundle) is the
  // run's one packed client, which client/test/package.test.ts installs too.
  const [protocol, { packed: client, tarball }] = await Promise.all([
    run(process.execPath, [join(repo, 'protocol/build.mjs'), `--outdir=${protocolStage}`]).then(() => pack(protocolStage)),
    packedClient(),
  ]);
  copyFileSync(tarball, join(root, client.filename));
  protocolFiles = protocol.files.map((f) => f.path).sort();

  app = join(root, 'app');
  mkdirSync(app);
  const protocolManifest = JSON.parse(readFileSync(join(protocolStage, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const clientManifest = JSON.parse(readFileSync(join(repo, 'client/package.json'), 'utf8')) as { bin: Record<string, string> };
  const { dependencies, lockfile } = offlineLockfile(join(repo, 'package-lock.json'), [
    { name: protocol.name, version: protocol.version, file: `../${protocol.filename}`, workspace: 'protocol', dependencies: protocolManifest.dependencies },
    { name: client.name, version: client.version, file: `../${client.filename}`, workspace: 'client', bin: clientManifest.bin },
  ]);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module', dependencies }, null, 2)}\n`);
  writeFileSync(join(app, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
  await npm(['ci', '--offline'], app);

  // The fixture: the protocol tests' deterministic export (three agents, receipts, epochs) and its JWKS.
  const { bytes } = await writeBundle(base);
  writeFileSync(join(app, 'export.json'), bytes);
  writeFileSync(join(app, 'jwks.json'), JSON.stringify(base.jwks));
  // The same export with one byte of one record changed: its body no longer matches the signed digest.
  const text = Buffer.from(bytes).toString('utf8');
  const at = text.indexOf('"operation_type":"') + '"operation_type":"'.length;
  writeFileSync(join(app, 'tampered.json'), `${text.slice(0, at)}X${text.slice(at + 1)}`);
}, 600_000);

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

// Generous per-test limits: each test starts Node (and tsc) processes on a shared, loaded machine.
const SLOW = 240_000;

const cli = (args: string[]) => spawnSync('npx', ['--offline', '--no-install', 'agent-ledger', ...args], { cwd: app, env, encoding: 'utf8' });

describe('the packed packages, installed offline into an empty project', () => {
  it('@agent-ledger/protocol ships built JavaScript with declarations, no TypeScript source', () => {
    expect(protocolFiles).toContain('index.js');
    expect(protocolFiles).toContain('index.d.ts');
    expect(protocolFiles).toContain('verify/bundle.js');
    expect(protocolFiles).toContain('README.md');
    for (const file of protocolFiles) expect(file, file).toMatch(/(?:\.js|\.d\.ts)$|^(?:package\.json|LICENSE|README\.md)$/);
  }, SLOW);

  it('npx agent-ledger --help', () => {
    const help = cli(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^agent-ledger: record what your coding agents do/);
  }, SLOW);

  it('agent-ledger verify accepts the export against its JWKS and refuses a changed one', () => {
    const ok = cli(['verify', 'export.json', '--jwks', 'jwks.json', '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    const report = JSON.parse(ok.stdout) as { valid: boolean; trust: string; counts: { operations: number } };
    expect(report).toMatchObject({ valid: true, trust: 'trusted_jwks' });
    expect(report.counts.operations).toBe(base.items.length);

    const bad = cli(['verify', 'tampered.json', '--jwks', 'jwks.json', '--json']);
    expect(bad.status).toBe(1);
    expect((JSON.parse(bad.stdout) as { valid: boolean }).valid).toBe(false);
  }, SLOW);

  it('a plain Node ES module imports verifyExportBundle from @agent-ledger/protocol and verifies the same export', () => {
    writeFileSync(
      join(app, 'verify.mjs'),
      [
        "import { readFileSync } from 'node:fs';",
        "import { verifyExportBundle } from '@agent-ledger/protocol';",
        "const jwks = JSON.parse(readFileSync('jwks.json', 'utf8'));",
        'const verdict = (file) => verifyExportBundle(readFileSync(file), { jwks });',
        "const [good, bad] = [verdict('export.json'), verdict('tampered.json')];",
        "console.log(JSON.stringify({ valid: good.valid, trust: good.trust, tampered: bad.valid, from: import.meta.resolve('@agent-ledger/protocol') }));",
        '',
      ].join('\n'),
    );
    const { status, stdout, stderr } = spawnSync(process.execPath, ['verify.mjs'], { cwd: app, env, encoding: 'utf8' });
    expect(status, stderr).toBe(0);
    const out = JSON.parse(stdout) as { valid: boolean; trust: string; tampered: boolean; from: string };
    expect(out).toMatchObject({ valid: true, trust: 'trusted_jwks', tampered: false });
    // Resolved from the installed tarball, not from the repository's sources.
    expect(fileURLToPath(out.from)).toBe(join(app, 'node_modules/@agent-ledger/protocol/index.js'));
  }, SLOW);

  it('a CommonJS consumer requires the same ES modules (require(esm), Node 20.19+)', () => {
    const script = "const p = require('@agent-ledger/protocol'); console.log(typeof p.verifyExportBundle, p.canonicalize({ b: 1, a: 2 }))";
    const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], { cwd: app, env, encoding: 'utf8' });
    expect(status, stderr).toBe(0);
    expect(stdout.trim()).toBe('function {"a":2,"b":1}');
  }, SLOW);

  it('a TypeScript consumer type-checks against the installed declarations alone', () => {
    writeFileSync(
      join(app, 'use.ts'),
      "import { verifyExportBundle, type ExportVerificationReport } from '@agent-ledger/protocol';\nimport { canonicalize } from '@agent-ledger/protocol/core';\nexport const r: ExportVerificationReport = verifyExportBundle(new Uint8Array(), {});\nexport const c: string = canonicalize({ b: 1, a: 2 });\n",
    );
    const tsc = join(repo, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', join(repo, 'node_modules/@types'), 'use.ts'];
    const { status, stdout } = spawnSync(process.execPath, [tsc, ...args], { cwd: app, encoding: 'utf8' });
    expect(status, stdout).toBe(0);
  }, SLOW);
});
