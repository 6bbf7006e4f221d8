/**
 * Installers of the 15 tools on fixture configurations (test/fixtures/configs/<flag>/, a
 * user's existing settings): install merges the hook without touching anything else, a
 * second install changes nothing, uninstall restores every file byte for byte and removes
 * the files and folders install created; a file edited since install loses only the hook entry; a file
 * that does not parse is left alone with a clear error.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlan, undoInstall } from '../src/install/apply.js';
import { ConfigError } from '../src/install/config-error.js';
import { hookCommandLine, INSTALLERS, type InstallContext, type Scope } from '../src/install/targets.js';
import { TOOL_FLAGS, type ToolFlag } from '../src/tools/flags.js';
import { FIXTURES } from './support/cli.js';

/** Every file under `root` with its bytes and mode, and every folder (so that one left behind shows). */
function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        files[`${relative(root, path)}/`] = 'folder';
        walk(path);
      } else files[relative(root, path)] = `${(statSync(path).mode & 0o777).toString(8)} ${readFileSync(path, 'base64')}`;
    }
  };
  walk(root);
  return files;
}

function isOneInsertion(before: string, after: string): boolean {
  let prefix = 0;
  while (prefix < before.length && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < before.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return prefix + suffix === before.length && after.length > before.length;
}

function setup(flag: ToolFlag, scope: Scope, agentId = `${flag}-install`) {
  const root = mkdtempSync(join(tmpdir(), `agent-ledger-install-${flag}-`));
  const home = join(root, 'home');
  const projectDir = join(root, 'project');
  const agentDir = join(root, 'ledger', 'agents', agentId);
  for (const dir of [home, projectDir]) cpSync(join(FIXTURES, 'configs', flag), dir, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const ctx: InstallContext = {
    flag,
    agentId,
    scope,
    projectDir,
    home,
    env: {},
    hookCommand: hookCommandLine('/usr/local/bin/node', '/opt/agent ledger/cli.js', flag, agentId),
    nodePath: '/usr/local/bin/node',
    cliPath: '/opt/agent ledger/cli.js',
    agentDir,
  };
  return { root, ctx };
}

function install(ctx: InstallContext) {
  const plan = INSTALLERS[ctx.flag].plan(ctx);
  return { plan, record: { tool: ctx.flag, scope: ctx.scope, command: plan.command, files: applyPlan(plan) } };
}

const cases = TOOL_FLAGS.flatMap((flag) => INSTALLERS[flag].scopes.map((scope) => [flag, scope] as const));

describe.each(cases)('%s installer, %s scope', (flag, scope) => {
  it('merges the hook, changes nothing the second time, and uninstall restores every byte', () => {
    const { root, ctx } = setup(flag, scope);
    const before = snapshot(root);

    const { plan, record } = install(ctx);
    expect(record.files.length).toBeGreaterThan(0);
    const installed = snapshot(root);
    expect(installed).not.toEqual(before);
    // Files outside the plan are untouched, and every planned file mentions the hook.
    for (const [path, content] of Object.entries(before)) {
      if (!plan.files.some((file) => relative(root, file.path) === path)) expect(installed[path], path).toBe(content);
    }
    for (const file of plan.files) {
      expect(readFileSync(file.path, 'utf8')).toContain(ctx.agentId);
      // A merge is one contiguous insertion: no byte of the user's file moved or changed.
      if (file.before !== undefined && file.kind !== 'owned') expect(isOneInsertion(file.before, file.after), file.path).toBe(true);
    }

    const again = install(ctx);
    expect(again.plan.files.every((file) => file.before === file.after)).toBe(true);
    expect(again.record.files).toEqual([]);
    expect(snapshot(root)).toEqual(installed);

    const undone = undoInstall(record, ctx.agentId);
    expect(undone.map((result) => result.outcome).every((outcome) => outcome === 'restored' || outcome === 'removed')).toBe(true);
    expect(snapshot(root)).toEqual(before);
  });

  it('keeps edits made after install and takes out only the hook', () => {
    const { ctx } = setup(flag, scope);
    const { plan, record } = install(ctx);
    const merged = plan.files.find((file) => file.kind !== 'owned');
    if (!merged) return; // this tool's hook lives in files of its own: nothing of the user's to keep
    const edited = merged.after.replace(/\n$/, '').concat(merged.kind === 'toml' ? '\n\n[extra]\nkept = true\n' : '\n');
    const withEdit = merged.kind === 'toml' ? edited : merged.after.replace(/^(\s*\{)/, '$1 "kept": true,');
    writeFileSync(merged.path, withEdit);
    const results = undoInstall(record, ctx.agentId);
    expect(results.find((result) => result.path === merged.path)?.outcome).toBe('entry removed');
    const left = readFileSync(merged.path, 'utf8');
    expect(left).not.toContain(`--agent ${ctx.agentId}`);
    expect(left).toContain('kept');
  });
});

describe.each(cases)('%s installer, %s scope, on a machine where the tool has no configuration yet', (flag, scope) => {
  it('uninstall removes the files and the folders install created, and nothing else', () => {
    const { root, ctx } = setup(flag, scope);
    for (const dir of [ctx.home, ctx.projectDir]) {
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
    }
    const before = snapshot(root);
    const { record } = install(ctx);
    expect(snapshot(root)).not.toEqual(before);
    undoInstall(record, ctx.agentId);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('configuration files that do not parse', () => {
  const broken: Partial<Record<ToolFlag, { path: string; text: string; message: RegExp }>> = {
    claudecode: { path: '.claude/settings.json', text: '{ "hooks": { "PreToolUse": [ }', message: /settings\.json is not valid JSON \(ValueExpected at line 1/ },
    cursor: { path: '.cursor/hooks.json', text: '{"version": 1,, }', message: /hooks\.json is not valid JSON/ },
    kimi: { path: '.kimi-code/config.toml', text: '[[hooks]\nevent = "PreToolUse"\n', message: /config\.toml is not valid TOML at line 1/ },
    gemini: { path: '.gemini/settings.json', text: '[1, 2]', message: /does not hold a JSON object/ },
    codex: { path: '.codex/hooks.json', text: '{"hooks": {"PreToolUse": {"not": "a list"}}}', message: /hooks\.PreToolUse is not a list/ },
  };
  for (const [flag, { path, text, message }] of Object.entries(broken) as [ToolFlag, { path: string; text: string; message: RegExp }][]) {
    it(`${flag}: ${path} is left alone with a clear error`, () => {
      const { ctx } = setup(flag, 'user');
      writeFileSync(join(ctx.home, path), text);
      expect(() => INSTALLERS[flag].plan(ctx)).toThrow(ConfigError);
      expect(() => INSTALLERS[flag].plan(ctx)).toThrow(message);
      expect(readFileSync(join(ctx.home, path), 'utf8')).toBe(text);
    });
  }

  it('kimi: a static `hooks = [...]` array cannot take a [[hooks]] table; the file is left alone', () => {
    const { ctx } = setup('kimi', 'user');
    const text = 'hooks = []\n';
    writeFileSync(join(ctx.home, '.kimi-code', 'config.toml'), text);
    expect(() => INSTALLERS.kimi.plan(ctx)).toThrow(/config\.toml is not valid TOML|not a list of \[\[hooks\]\] tables/);
  });

  it('cline: an existing PreToolUse hook of someone else is not overwritten', () => {
    const { ctx } = setup('cline', 'user');
    writeFileSync(join(ctx.home, 'Documents', 'Cline', 'Hooks', 'PreToolUse'), '#!/bin/sh\necho \'{"cancel":false}\'\n');
    expect(() => INSTALLERS.cline.plan(ctx)).toThrow(/PreToolUse already exists and was not written by this agent's install/);
  });
});

describe('tool-specific placement', () => {
  it('droid: hooks stay in settings.json when it already has hooks and there is no hooks.json', () => {
    const { ctx } = setup('droid', 'user');
    const { plan } = install(ctx);
    expect(plan.files.map((file) => relative(ctx.home, file.path))).toEqual(['.factory/settings.json']);
  });

  it('kirocli: the hook goes into every agent file; with none, into an agent of its own', () => {
    const { ctx } = setup('kirocli', 'user');
    writeFileSync(join(ctx.home, '.kiro', 'agents', 'review.json'), '{"name": "review", "tools": ["fs_read"]}\n');
    expect(install(ctx).plan.files.map((file) => relative(ctx.home, file.path)).sort()).toEqual(['.kiro/agents/dev.json', '.kiro/agents/review.json']);
    const empty = setup('kirocli', 'project');
    const own = install({ ...empty.ctx, projectDir: join(empty.root, 'elsewhere') });
    expect(own.plan.files.map((file) => file.path.endsWith('.kiro/agents/agent-ledger.json'))).toEqual([true]);
    expect(own.plan.notes.join(' ')).toMatch(/--agent agent-ledger/);
  });

  it('kiroide has project hooks only', () => {
    expect(INSTALLERS.kiroide.scopes).toEqual(['project']);
    expect(INSTALLERS.kimi.scopes).toEqual(['user']);
  });

  it('kimi: the block holds exactly event, command and timeout, and parses as a [[hooks]] table', () => {
    const { ctx } = setup('kimi', 'user');
    const { plan } = install(ctx);
    const text = readFileSync(plan.files[0]!.path, 'utf8');
    const block = text.slice(text.indexOf('# >>> agent-ledger'));
    expect(block.split('\n').filter((line) => /^\w+ =/.test(line)).map((line) => line.split(' ')[0])).toEqual(['event', 'command', 'timeout']);
  });
});
