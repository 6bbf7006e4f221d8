/**
 * Plays the coding tool: finds the hook `agent init` installed in the tool's own
 * configuration file and runs it the way that tool does (a shell command line with the event
 * on stdin, an executable script, or opencode's plugin handler), returning its answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import type { ToolFlag } from '../../src/tools/flags.js';
import { readJson, spawnProcess, type Run, type RunOptions } from './cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool configs are read loosely

export interface ToolPlace {
  home: string;
  projectDir: string;
  scope: 'user' | 'project';
  env: Record<string, string | undefined>;
}

const only = <T>(items: T[], what: string): T => {
  if (items.length !== 1) throw new Error(`expected exactly one ${what}, found ${items.length}`);
  return items[0]!;
};

/** The hook command (or script) the tool's configuration names. */
export function installedCommand(flag: ToolFlag, place: ToolPlace): { command: string; kind: 'shell' | 'script' | 'plugin' } {
  const base = place.scope === 'user' ? place.home : place.projectDir;
  const claudeStyle = (file: string, event = 'PreToolUse') => only((readJson<Json>(file).hooks[event] as Json[]).flatMap((group) => group.hooks.map((h: Json) => h.command as string)), 'hook');
  const inDir = (dir: string, suffix: string) => join(dir, only(readdirSync(dir).filter((name) => name.endsWith(suffix)), `${suffix} file in ${dir}`));
  switch (flag) {
    case 'claudecode':
      return { kind: 'shell', command: claudeStyle(join(base, '.claude', 'settings.json')) };
    case 'codex':
      return { kind: 'shell', command: claudeStyle(join(base, '.codex', 'hooks.json')) };
    case 'qwen':
      return { kind: 'shell', command: claudeStyle(join(base, '.qwen', 'settings.json')) };
    case 'gemini':
      return { kind: 'shell', command: claudeStyle(join(base, '.gemini', 'settings.json'), 'BeforeTool') };
    case 'droid':
      return { kind: 'shell', command: claudeStyle(join(base, '.factory', 'hooks.json')) };
    case 'letta':
      return { kind: 'shell', command: claudeStyle(join(base, '.letta', 'settings.json')) };
    case 'augment':
      return { kind: 'script', command: claudeStyle(join(base, '.augment', 'settings.json')) };
    case 'cursor':
      return { kind: 'shell', command: only(readJson<Json>(join(base, '.cursor', 'hooks.json')).hooks.preToolUse as Json[], 'hook').command };
    case 'copilot': {
      const dir = place.scope === 'user' ? join(place.home, '.copilot', 'hooks') : join(place.projectDir, '.github', 'hooks');
      return { kind: 'shell', command: only(readJson<Json>(inDir(dir, '.json')).hooks.preToolUse as Json[], 'hook').bash };
    }
    case 'grok':
      return { kind: 'shell', command: claudeStyle(inDir(join(base, '.grok', 'hooks'), '.json')) };
    case 'kirocli':
      return { kind: 'shell', command: only(readJson<Json>(inDir(join(base, '.kiro', 'agents'), '.json')).hooks.preToolUse as Json[], 'hook').command };
    case 'kiroide':
      return { kind: 'shell', command: readJson<Json>(inDir(join(place.projectDir, '.kiro', 'hooks'), '.kiro.hook')).then.command };
    case 'kimi': {
      const config = parseToml(readFileSync(join(place.home, '.kimi-code', 'config.toml'), 'utf8')) as Json;
      return { kind: 'shell', command: only((config.hooks as Json[]).filter((hook) => hook.event === 'PreToolUse'), 'hook').command };
    }
    case 'cline':
      return { kind: 'script', command: place.scope === 'user' ? join(place.home, 'Documents', 'Cline', 'Hooks', 'PreToolUse') : join(place.projectDir, '.clinerules', 'hooks', 'PreToolUse') };
    case 'opencode':
      return { kind: 'plugin', command: inDir(place.scope === 'user' ? join(place.home, '.config', 'opencode', 'plugins') : join(place.projectDir, '.opencode', 'plugins'), '.js') };
  }
}

/** Runs the installed hook with `event` (the fixture text) as the tool would. */
export async function invokeHook(flag: ToolFlag, place: ToolPlace, event: string, options: RunOptions = {}): Promise<Run> {
  const { command, kind } = installedCommand(flag, place);
  const runOptions = { ...options, input: event, env: { ...place.env, ...options.env }, cwd: place.projectDir };
  if (kind === 'shell') return spawnProcess(command, [], { ...runOptions, shell: true });
  if (kind === 'script') return spawnProcess(command, [], runOptions);
  // opencode: import the plugin and call its tool.execute.before handler with the event's parts.
  const { input, output, directory } = JSON.parse(event) as Json;
  const module = (await import(`${pathToFileURL(command).href}?t=${Date.now()}`)) as Record<string, (ctx: Json) => Promise<Json>>;
  const hooks = await only(Object.values(module), 'plugin export')({ directory });
  const saved = { ...process.env };
  for (const [key, value] of Object.entries({ ...place.env, ...options.env })) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    await hooks['tool.execute.before'](input, output);
    return { code: 0, stdout: '', stderr: '' };
  } catch (error) {
    return { code: 2, stdout: '', stderr: (error as Error).message };
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}
