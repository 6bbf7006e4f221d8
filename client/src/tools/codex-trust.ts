/**
 * Codex runs a hook only once the user has trusted it (docs/HOOKS.md "Codex"): `/hooks` in
 * Codex writes, into the user's `$CODEX_HOME/config.toml`,
 *
 *   [hooks.state."<hooks.json path>:pre_tool_use:<group>:<handler>"]
 *   trusted_hash = "sha256:<hex>"
 *
 * and Codex compares that hash with the one it computes for the entry as it now stands; an
 * untrusted or modified entry is listed but never run. The hash (Codex's hooks discovery,
 * `command_hook_hash`, and its config fingerprint, `version_for_toml`) is SHA-256 over the
 * compact JSON, keys sorted at every level, of the entry's normalized identity:
 * `{event_name: "pre_tool_use", matcher?, hooks: [{type: "command", command, timeout, async,
 * statusMessage?}]}`, with the timeout defaulted to 600 s (at least 1) and absent options left
 * out (it goes through TOML, which has no null). This module computes that, finds our entry's
 * key, reads the trust state and plans the trust entry `agent init --tool codex --trust` writes.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readIfExists } from '../local/files.js';
import { ConfigError } from '../install/config-error.js';
import { arrayItems, parseJsonFile } from '../install/json-config.js';
import type { PlannedFile } from '../install/planned-file.js';
import { appendTomlBlock, parseTomlFile, removeTomlHook } from '../install/toml-config.js';

/** Codex's default timeout for a command hook (seconds). */
const CODEX_DEFAULT_TIMEOUT_S = 600;

/** JSON with every object's keys sorted and no whitespace (serde_json's compact output of a canonicalized value). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface CommandHandler {
  type?: unknown;
  command?: unknown;
  timeout?: unknown;
  timeoutSec?: unknown;
  async?: unknown;
  statusMessage?: unknown;
}

/** The hash Codex computes for one command handler of a PreToolUse matcher group. */
export function codexHookHash(matcher: string | undefined, handler: CommandHandler): string {
  const timeout = typeof handler.timeout === 'number' ? handler.timeout : typeof handler.timeoutSec === 'number' ? handler.timeoutSec : CODEX_DEFAULT_TIMEOUT_S;
  const identity = {
    event_name: 'pre_tool_use',
    matcher,
    hooks: [
      {
        type: 'command',
        command: handler.command,
        timeout: Math.max(1, timeout),
        async: handler.async === true,
        statusMessage: typeof handler.statusMessage === 'string' ? handler.statusMessage : undefined,
      },
    ],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** `$CODEX_HOME` (default `~/.codex`): where Codex keeps config.toml. */
export const codexHome = (env: NodeJS.ProcessEnv, home: string) => (env.CODEX_HOME && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(home, '.codex'));

type CodexTrustState = 'trusted' | 'untrusted' | 'modified' | 'disabled' | 'hook missing';

interface CodexTrust {
  state: CodexTrustState;
  /** `<hooks.json>:pre_tool_use:<group>:<handler>`: the table name under [hooks.state]. */
  key?: string;
  /** The hash Codex computes for the entry now. */
  currentHash?: string;
  configPath: string;
}

interface HookPosition {
  key: string;
  hash: string;
}

/** Where our command sits in hooks.json's PreToolUse groups (Codex's key counts every group and handler). */
export function findCodexHook(hooksJsonPath: string, hooksJsonText: string, command: string): HookPosition | undefined {
  const groups = arrayItems(parseJsonFile(hooksJsonPath, hooksJsonText), ['hooks', 'PreToolUse']);
  for (const [groupIndex, group] of groups.entries()) {
    const { matcher, hooks } = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
    if (!Array.isArray(hooks)) continue;
    for (const [handlerIndex, handler] of hooks.entries()) {
      const entry = (handler ?? {}) as CommandHandler;
      if (entry.command !== command) continue;
      return {
        key: `${hooksJsonPath}:pre_tool_use:${groupIndex}:${handlerIndex}`,
        hash: codexHookHash(typeof matcher === 'string' && matcher !== '' ? matcher : undefined, entry),
      };
    }
  }
  return undefined;
}

type HookStates = Record<string, { trusted_hash?: unknown; enabled?: unknown }>;

function hookStates(configPath: string, text: string | undefined): HookStates {
  if (text === undefined) return {};
  const hooks = parseTomlFile(configPath, text).hooks as { state?: unknown } | undefined;
  const state = hooks?.state;
  return state !== null && typeof state === 'object' ? (state as HookStates) : {};
}

/** Reads whether Codex would run our hook: the entry in hooks.json and its trust state in config.toml. */
export function readCodexTrust(hooksJsonPath: string, command: string, configPath: string): CodexTrust {
  const hooksText = readIfExists(hooksJsonPath);
  const position = hooksText === undefined ? undefined : findCodexHook(hooksJsonPath, hooksText, command);
  if (!position) return { state: 'hook missing', configPath };
  const state = hookStates(configPath, readIfExists(configPath))[position.key];
  const base = { key: position.key, currentHash: position.hash, configPath };
  if (state?.enabled === false) return { state: 'disabled', ...base };
  if (typeof state?.trusted_hash !== 'string') return { state: 'untrusted', ...base };
  return { state: state.trusted_hash === position.hash ? 'trusted' : 'modified', ...base };
}

/** True when config.toml trusts the entry at `position` with its current hash. */
export function codexTrusts(configPath: string, position: HookPosition): boolean {
  const state = hookStates(configPath, readIfExists(configPath))[position.key];
  return state?.enabled !== false && state?.trusted_hash === position.hash;
}

/** What status and doctor say about each state. */
export function describeCodexTrust(trust: CodexTrust, agentId: string): string {
  const how = `trust it under /hooks in Codex, or run \`agent-ledger agent init --tool codex --agent-id ${agentId} --trust\``;
  switch (trust.state) {
    case 'trusted':
      return 'trusted: Codex runs the hook';
    case 'untrusted':
      return `installed but not trusted: nothing is recorded (${how})`;
    case 'modified':
      return `installed but not trusted: nothing is recorded (the entry changed since it was trusted; ${how})`;
    case 'disabled':
      return `installed but disabled in Codex (enabled = false under [hooks.state."${trust.key}"] in ${trust.configPath}): nothing is recorded`;
    case 'hook missing':
      return 'the hook is no longer in hooks.json: nothing is recorded (run `agent-ledger agent init` again)';
  }
}

/**
 * The config.toml that trusts our hook as `/hooks` would: the hash under the entry's key, in a
 * block between agent-ledger markers (uninstall cuts it out again). A trust table that is
 * already there (from `/hooks`, or an earlier init) gets its trusted_hash rewritten in place.
 */
export function planCodexTrust(configPath: string, agentId: string, position: HookPosition): PlannedFile {
  const before = readIfExists(configPath);
  const text = before ?? '';
  const existing = hookStates(configPath, text)[position.key];
  if (existing?.trusted_hash === position.hash) return { path: configPath, kind: 'toml', before, after: text, role: 'trust' };
  // Our own earlier block goes; then either a table of the user's is updated or a new block appended.
  const withoutOurs = removeTomlHook(text, agentId) ?? text;
  const header = `[hooks.state.${JSON.stringify(position.key)}]`;
  const stillThere = hookStates(configPath, withoutOurs)[position.key] !== undefined;
  if (stillThere) {
    const at = withoutOurs.indexOf(header);
    if (at < 0) throw new ConfigError(`${configPath} holds the trust state of ${position.key} in a form agent-ledger does not edit; trust the hook under /hooks in Codex instead: nothing was changed`);
    const nextTable = withoutOurs.slice(at + header.length).search(/^\s*\[/m);
    const end = nextTable < 0 ? withoutOurs.length : at + header.length + nextTable;
    const section = withoutOurs.slice(at, end);
    const line = `trusted_hash = ${JSON.stringify(position.hash)}`;
    const updated = /^trusted_hash\s*=.*$/m.test(section) ? section.replace(/^trusted_hash\s*=.*$/m, line) : section.replace(header, `${header}\n${line}`);
    const after = withoutOurs.slice(0, at) + updated + withoutOurs.slice(end);
    if (hookStates(configPath, after)[position.key]?.trusted_hash !== position.hash) {
      throw new ConfigError(`${configPath}: the trust entry of ${position.key} could not be updated; trust the hook under /hooks in Codex instead: nothing was changed`);
    }
    return { path: configPath, kind: 'toml', before, after, role: 'trust' };
  }
  const after = appendTomlBlock(configPath, withoutOurs, agentId, [header, `trusted_hash = ${JSON.stringify(position.hash)}`]);
  if (hookStates(configPath, after)[position.key]?.trusted_hash !== position.hash) {
    throw new ConfigError(`${configPath}: its hooks table cannot take the trust entry; trust the hook under /hooks in Codex instead: nothing was changed`);
  }
  return { path: configPath, kind: 'toml', before, after, role: 'trust' };
}
