/**
 * A fresh clone passes: the working tree's files (`git ls-files`, tracked and
 * untracked-but-not-ignored, as they are on disk) are copied into a new temporary directory
 * with nothing beside them, so no sibling folder of the repository exists, and the protocol's tests run there with protocol/vitest.config.ts.
 *
 * node_modules is the repository's, entry by entry, except the workspace links
 * (@agent-ledger/*), which point into the copy: `@agent-ledger/protocol` must resolve to the
 * copied sources, not back to this tree. A preloaded guard (NODE_OPTIONS=--require, so in
 * every vitest worker too) records each file opened or listed in the directory that holds
 * this repository (the repository and its neighbours), its node_modules apart; the test
 * fails on any such read. A canary test file added to the copy reads this repository's
 * package.json to prove the guard sees reads.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));
const WORKSPACES = ['protocol', 'client', 'console'];
const temps: string[] = [];

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The working tree's files as a clone of it (with the uncommitted changes) would have them. */
function copyWorkingTree(to: string): number {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 });
  const files = [...new Set(listed.split('\0').filter((f) => f !== ''))].filter((f) => existsSync(join(repo, f)));
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(repo, file), join(to, file), { verbatimSymlinks: true });
  }
  return files.length;
}

/** node_modules of the copy: the repository's packages, and the workspace links to the copy's own folders. */
function linkNodeModules(to: string): void {
  const modules = join(to, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(repo, 'node_modules'))) {
    if (entry === '@agent-ledger' || entry === '.vite' || entry === '.vitest') continue;
    symlinkSync(join(repo, 'node_modules', entry), join(modules, entry));
  }
  mkdirSync(join(modules, '@agent-ledger'));
  for (const ws of WORKSPACES) {
    symlinkSync(join(to, ws), join(modules, '@agent-ledger', ws));
    if (existsSync(join(repo, ws, 'node_modules'))) symlinkSync(join(repo, ws, 'node_modules'), join(to, ws, 'node_modules'));
  }
}

/** The folders above `dir`, nearest first, up to the root. */
function ancestors(dir: string): string[] {
  const found: string[] = [];
  for (let at = dirname(dir); ; at = dirname(at)) {
    found.push(at);
    if (at === dirname(at)) return found;
  }
}

// Runs in every Node process of the test run; writes what it sees to FRESH_CLONE_LOG.
const GUARD = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const denied = process.env.FRESH_CLONE_DENIED;
const allowed = JSON.parse(process.env.FRESH_CLONE_ALLOWED);
const lookups = new Set(JSON.parse(process.env.FRESH_CLONE_LOOKUPS));
const log = process.env.FRESH_CLONE_LOG;
const append = fs.appendFileSync;
const inside = (p, dir) => p === dir || p.startsWith(dir + path.sep);
function check(target) {
  if (typeof target === 'number') return;
  let p;
  try { p = path.resolve(target instanceof URL ? fileURLToPath(target) : String(target)); } catch { return; }
  if (inside(p, denied) && !allowed.some((dir) => inside(p, dir)) && !lookups.has(p)) append(log, p + '\n');
}
for (const name of ['openSync', 'open', 'readFileSync', 'readFile', 'readdirSync', 'readdir', 'createReadStream', 'opendirSync', 'opendir']) {
  const original = fs[name];
  fs[name] = function (target, ...rest) { check(target); return original.call(this, target, ...rest); };
}
for (const name of ['open', 'readFile', 'readdir', 'opendir']) {
  const original = fs.promises[name];
  fs.promises[name] = function (target, ...rest) { check(target); return original.call(this, target, ...rest); };
}
require('node:module').syncBuiltinESMExports();
`;

const CANARY = String.raw`
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
it('reads a file outside the copy (the fresh-clone guard must report it)', () => {
  expect(readFileSync(process.env.FRESH_CLONE_CANARY, 'utf8')).toContain('"name"');
});
`;

describe('a fresh clone', () => {
  it(
    'passes the protocol tests in a temporary directory with nothing beside it, reading nothing outside it',
    async () => {
      const outer = mkdtempSync(join(tmpdir(), 'agent-ledger-clone-'));
      const guardDir = mkdtempSync(join(tmpdir(), 'agent-ledger-clone-guard-'));
      temps.push(outer, guardDir);
      const clone = join(outer, 'agent-ledger');
      expect(copyWorkingTree(clone)).toBeGreaterThan(100);
      expect(readdirSync(outer)).toEqual(['agent-ledger']);
      linkNodeModules(clone);
      expect(realpathSync(join(clone, 'node_modules/@agent-ledger/protocol'))).toBe(realpathSync(join(clone, 'protocol')));
      writeFileSync(join(clone, 'protocol/test/zz-fresh-clone-canary.test.ts'), CANARY);
      writeFileSync(join(guardDir, 'guard.cjs'), GUARD);
      const log = join(guardDir, 'reads.log');
      writeFileSync(log, '');

      const canary = join(repo, 'package.json');
      // This test runs inside a vitest worker: none of its VITEST_* variables may reach the inner run.
      const outerEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
      // The inner run's own temporary files (vitest's) go to a folder of their own, so that a
      // repository cloned straight into the system's temporary folder is judged the same.
      const innerTmp = mkdtempSync(join(tmpdir(), 'agent-ledger-clone-tmp-'));
      temps.push(innerTmp);
      // Node looks for a package.json in every folder above a module to learn its module
      // type: a probe, not a dependency (it finds none above the copy).
      const lookups = ancestors(clone).map((dir) => join(dir, 'package.json'));
      const env = {
        ...outerEnv,
        TMPDIR: innerTmp,
        FRESH_CLONE_LOOKUPS: JSON.stringify(lookups),
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${join(guardDir, 'guard.cjs')}`.trim(),
        FRESH_CLONE_DENIED: dirname(repo),
        FRESH_CLONE_ALLOWED: JSON.stringify([clone, outer, innerTmp, join(repo, 'node_modules'), ...WORKSPACES.map((ws) => join(repo, ws, 'node_modules'))]),
        FRESH_CLONE_LOG: log,
        FRESH_CLONE_CANARY: canary,
      };
      const vitest = join(clone, 'node_modules/vitest/vitest.mjs');
      const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, [vitest, 'run', '--config', 'protocol/vitest.config.ts'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.on('close', (status) => resolve({ code: status, output: text }));
      });
      expect(code, output.slice(-4000)).toBe(0);
      expect(output).toMatch(/Test Files\s+.*\d+ passed/);

      const reads = [...new Set(readFileSync(log, 'utf8').split('\n').filter((line) => line !== ''))];
      // The canary proves the guard watched the test workers; nothing else may have left the copy.
      expect(reads).toContain(canary);
      expect(reads.filter((p) => p !== canary)).toEqual([]);
    },
    1_800_000,
  );
});
