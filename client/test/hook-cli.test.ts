/**
 * Which CLI a hook runs (client/src/install/hook-cli.ts, docs/CLI.md "Which CLI the
 * hook runs"): agent-ledger on PATH only when it is an installed package, never a project's or npx's
 * node_modules/.bin nor a link into a source tree; and the CLI an installed hook runs, read back
 * from the install record or, for records of earlier versions, from the command line or script.
 */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookProgram, installedOnPath } from '../src/install/hook-cli.js';
import { hookCommandLine } from '../src/install/targets.js';

function executable(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/usr/bin/env node\n');
  chmodSync(path, 0o755);
  return path;
}

function link(target: string, path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
  return path;
}

describe('agent-ledger on PATH', () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-ledger-hook-cli-'));
  // npm exec's PATH: the project's own bin first, then a link into a clone (npm link), then a global install.
  const projectBin = join(root, 'project', 'node_modules', '.bin');
  executable(join(root, 'project', 'node_modules', '@agent-ledger', 'client', 'dist', 'cli.cjs'));
  link('../@agent-ledger/client/dist/cli.cjs', join(projectBin, 'agent-ledger'));
  const linkedBin = join(root, 'linked', 'bin');
  link(executable(join(root, 'clone', 'client', 'dist', 'cli.cjs')), join(linkedBin, 'agent-ledger'));
  const globalBin = join(root, 'global', 'bin');
  link(executable(join(root, 'global', 'lib', 'node_modules', '@agent-ledger', 'client', 'dist', 'cli.cjs')), join(globalBin, 'agent-ledger'));

  it('is the first installed package, past a project bin and a link into a source tree', () => {
    expect(installedOnPath({ PATH: [projectBin, linkedBin, globalBin].join(':') })).toBe(join(globalBin, 'agent-ledger'));
  });

  it('is none when only those are there, or PATH names relative directories', () => {
    expect(installedOnPath({ PATH: [projectBin, linkedBin, 'global/bin', ''].join(':') })).toBeUndefined();
    expect(installedOnPath({})).toBeUndefined();
  });
});

describe('the CLI an installed hook runs', () => {
  const command = hookCommandLine('/opt/node 20/bin/node', "/home/dev/it's here/client/dist/cli.cjs", 'claudecode', 'dev-claude');

  it('is the one recorded, else read back from an earlier version\'s command line', () => {
    expect(hookProgram({ command, cli: ['/usr/bin/node', '/usr/lib/agent-ledger.cjs'] })).toEqual(['/usr/bin/node', '/usr/lib/agent-ledger.cjs']);
    expect(hookProgram({ command })).toEqual(['/opt/node 20/bin/node', "/home/dev/it's here/client/dist/cli.cjs"]);
    expect(hookProgram({ command: '~/.claude/hooks/block-rm.sh' })).toBeUndefined();
  });

  it("is read from the hook script's exec line for the tools that run a script", () => {
    const script = join(mkdtempSync(join(tmpdir(), 'agent-ledger-hook-script-')), 'PreToolUse');
    writeFileSync(script, `#!/bin/sh\n# agent-ledger: records every tool use of agent dev-cline\nexec ${command}\n`);
    expect(hookProgram({ command: script })).toEqual(['/opt/node 20/bin/node', "/home/dev/it's here/client/dist/cli.cjs"]);
  });
});
