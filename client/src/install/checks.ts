/**
 * Whether an installed hook still works, as far as the tool's own files tell: the files
 * `agent init` wrote still hold the hook (another program may have rewritten them), and the
 * tool would run it (Codex's trust, an executable Cline hook script). `agent-ledger status`
 * and `agent-ledger doctor` report these.
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig } from '../local/agent-state.js';
import { readIfExists } from '../local/files.js';
import { codexHome, describeCodexTrust, readCodexTrust } from '../tools/codex-trust.js';
import type { InstalledFile } from './install-record.js';

export interface Check {
  ok: boolean;
  /** What was found, and for a failed check what to do about it. */
  message: string;
}

/** True when `value` (parsed JSON) holds a hook entry running `command` anywhere. */
function holdsCommand(value: unknown, command: string): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsCommand(item, command));
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  if (entry.command === command || entry.bash === command) return true;
  return Object.values(entry).some((member) => holdsCommand(member, command));
}

function fileHoldsHook(file: InstalledFile, command: string, agentId: string): Check {
  const text = readIfExists(file.path);
  if (text === undefined) return { ok: false, message: `${file.path} is gone: run \`agent-ledger agent init\` again to reinstall the hook` };
  let holds: boolean;
  if (file.kind === 'json') {
    try {
      holds = holdsCommand(JSON.parse(text), command);
    } catch {
      // JSON with comments (jsonc): our command line appears in it as a JSON string.
      holds = text.includes(JSON.stringify(command).slice(1, -1));
    }
  } else {
    holds = text.includes(agentId);
  }
  if (!holds) return { ok: false, message: `${file.path} no longer holds the hook (rewritten since install?): run \`agent-ledger agent init\` again` };
  if (file.kind === 'owned' && file.path.endsWith('PreToolUse')) {
    try {
      accessSync(file.path, constants.X_OK);
    } catch {
      return { ok: false, message: `${file.path} is not executable, so the tool cannot run it: chmod +x ${file.path}` };
    }
  }
  return { ok: true, message: `${file.path} holds the hook` };
}

/** One check per file that holds the hook. */
export function hookFileChecks(config: AgentConfig): Check[] {
  const install = config.install;
  if (!install) return [];
  return install.files.filter((file) => file.role !== 'trust').map((file) => fileHoldsHook(file, install.command, config.agent_id));
}

/** Whether the tool would run the hook, where the tool has a switch for that (undefined: nothing to check). */
export function toolRunsHook(config: AgentConfig, env: NodeJS.ProcessEnv = process.env, home = homedir()): Check | undefined {
  const install = config.install;
  if (!install || config.tool !== 'codex') return undefined;
  const hooksJson = install.files.find((file) => file.role !== 'trust' && file.path.endsWith('hooks.json'));
  if (!hooksJson) return { ok: false, message: 'no hooks.json recorded for this agent: run `agent-ledger agent init --tool codex` again' };
  try {
    const trust = readCodexTrust(hooksJson.path, install.command, join(codexHome(env, home), 'config.toml'));
    return { ok: trust.state === 'trusted', message: describeCodexTrust(trust, config.agent_id) };
  } catch (error) {
    return { ok: false, message: `Codex's trust state cannot be read: ${(error as Error).message}` };
  }
}
