/**
 * Where and how each coding tool is told to run the hook (docs/HOOKS.md, one entry per flag):
 * the file, the entry merged into it, and what the person still has to do in the tool.
 * Every plan is computed (and every existing file parsed) before anything is written.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolFlag } from '../tools/flags.js';
import { readIfExists, shellQuote } from '../local/files.js';
import { ConfigError } from './config-error.js';
import type { PlannedFile } from './planned-file.js';
import { appendToArray, arrayItems, parseJsonFile } from './json-config.js';
import { appendTomlHook } from './toml-config.js';
import { codexHome, codexTrusts, findCodexHook, planCodexTrust } from '../tools/codex-trust.js';

export type Scope = 'user' | 'project';

export interface InstallContext {
  flag: ToolFlag;
  agentId: string;
  scope: Scope;
  /** The project directory for project scope. */
  projectDir: string;
  /** The user's home directory (where user-scope settings live). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** `<node> <cli.js> hook FLAG --agent ID`, shell-quoted. */
  hookCommand: string;
  nodePath: string;
  cliPath: string;
  agentDir: string;
  /** The person's consent (`--trust`) to mark the hook trusted where the tool asks for that (Codex). */
  trust?: boolean;
}

export interface InstallPlan {
  files: PlannedFile[];
  /** The exact command line written into the tool's configuration. */
  command: string;
  /** What the person must still do in the tool (trust prompts, feature switches). */
  notes: string[];
  /** What stops the tool from running the hook at all until the person acts (printed loudly). */
  warnings?: string[];
}

interface ToolInstaller {
  /** Supported scopes; the first is the default. */
  scopes: readonly Scope[];
  plan(ctx: InstallContext): InstallPlan;
}

/** Seconds a tool gives the hook: above the hook's own 10 s network budget (config.json). */
const HOOK_TIMEOUT_S = 30;

const base = (ctx: InstallContext) => (ctx.scope === 'user' ? ctx.home : ctx.projectDir);
const envDir = (ctx: InstallContext, name: string, fallback: string) => (ctx.env[name] && ctx.env[name] !== '' ? ctx.env[name]! : fallback);

/** True for an entry (or a group of entries) that runs `command`. */
export function runsCommand(item: unknown, command: string): boolean {
  if (item === null || typeof item !== 'object') return false;
  const entry = item as { command?: unknown; bash?: unknown; hooks?: unknown };
  if (entry.command === command || entry.bash === command) return true;
  return Array.isArray(entry.hooks) && entry.hooks.some((hook) => runsCommand(hook, command));
}

/** Merges `entry` into the array at `arrayPath` of a JSON settings file, unless it is there. */
function jsonEntry(path: string, arrayPath: string[], entry: unknown, command: string, template?: string): PlannedFile {
  const before = readIfExists(path);
  if (before !== undefined && arrayItems(parseJsonFile(path, before), arrayPath).some((item) => runsCommand(item, command))) {
    return { path, kind: 'json', before, after: before };
  }
  return { path, kind: 'json', before, after: appendToArray(path, before ?? template ?? '', arrayPath, entry) };
}

/** A file the installer owns whole; an existing file that is not ours is left alone. */
function ownedFile(path: string, content: string, mode = 0o644): PlannedFile {
  const before = readIfExists(path);
  if (before !== undefined && before !== content) {
    throw new ConfigError(`${path} already exists and was not written by this agent's install; move it away first: nothing was changed`);
  }
  return { path, kind: 'owned', before, after: content, mode };
}

const MARK = 'agent-ledger';
const fileName = (ctx: InstallContext, suffix: string) => `${MARK}-${ctx.agentId}${suffix}`;

/** A POSIX shell script that runs the hook (for tools that run a script file, not a command line). */
function hookScript(ctx: InstallContext): string {
  return `#!/bin/sh\n# ${MARK}: records every tool use of agent ${ctx.agentId} (\`agent-ledger agent uninstall --agent ${ctx.agentId}\` removes this file)\nexec ${ctx.hookCommand}\n`;
}

/** Claude Code's hook group; tools that copied its format take it as is. No matcher: every tool. */
const claudeGroup = (command: string, timeout: number, extra: Record<string, unknown> = {}) => ({ hooks: [{ type: 'command', command, timeout, ...extra }] });

const simple = (scopes: readonly Scope[], plan: (ctx: InstallContext) => { files: PlannedFile[]; command?: string; notes?: string[]; warnings?: string[] }): ToolInstaller => ({
  scopes,
  plan: (ctx) => {
    const planned = plan(ctx);
    return { files: planned.files, command: planned.command ?? ctx.hookCommand, notes: planned.notes ?? [], warnings: planned.warnings ?? [] };
  },
});

const BOTH: readonly Scope[] = ['user', 'project'];

export const INSTALLERS: Record<ToolFlag, ToolInstaller> = {
  claudecode: simple(BOTH, (ctx) => ({
    files: [jsonEntry(join(base(ctx), '.claude', 'settings.json'), ['hooks', 'PreToolUse'], claudeGroup(ctx.hookCommand, HOOK_TIMEOUT_S), ctx.hookCommand)],
  })),
  codex: simple(BOTH, (ctx) => {
    const hooksFile = jsonEntry(
      ctx.scope === 'user' ? join(codexHome(ctx.env, ctx.home), 'hooks.json') : join(ctx.projectDir, '.codex', 'hooks.json'),
      ['hooks', 'PreToolUse'],
      claudeGroup(ctx.hookCommand, HOOK_TIMEOUT_S),
      ctx.hookCommand,
    );
    // Codex runs only hooks the user trusted (under /hooks); the trust is kept per entry in the
    // user's config.toml and tied to the entry's hash, so it is checked again on every init.
    const position = findCodexHook(hooksFile.path, hooksFile.after, ctx.hookCommand)!;
    const configPath = join(codexHome(ctx.env, ctx.home), 'config.toml');
    const files = [hooksFile];
    const notes = ['Codex releases before hooks were on by default need `[features] codex_hooks = true` in ~/.codex/config.toml.'];
    if (ctx.scope === 'project') notes.push(`Codex reads ${join(ctx.projectDir, '.codex')} only in a project it trusts (trust_level = "trusted" under [projects."${ctx.projectDir}"]).`);
    if (ctx.trust) {
      files.push(planCodexTrust(configPath, ctx.agentId, position));
      notes.push(`Codex trusts the hook: ${configPath} holds [hooks.state."${position.key}"] with its hash (--trust).`);
      return { files, notes };
    }
    if (codexTrusts(configPath, position)) return { files, notes: [...notes, 'Codex already trusts this hook.'] };
    return {
      files,
      notes,
      warnings: [
        `Codex will NOT run this hook until you trust it, so nothing Codex does is recorded yet. Open Codex and approve it under /hooks, or run \`agent-ledger agent init --tool codex --agent-id ${ctx.agentId}${ctx.scope === 'project' ? ' --scope project' : ''} --trust\` to write the trust entry into ${configPath} as /hooks would. \`agent-ledger status\` says when it is trusted.`,
      ],
    };
  }),
  qwen: simple(BOTH, (ctx) => ({
    files: [jsonEntry(join(base(ctx), '.qwen', 'settings.json'), ['hooks', 'PreToolUse'], claudeGroup(ctx.hookCommand, HOOK_TIMEOUT_S * 1000), ctx.hookCommand)],
  })),
  gemini: simple(BOTH, (ctx) => ({
    files: [
      jsonEntry(
        join(base(ctx), '.gemini', 'settings.json'),
        ['hooks', 'BeforeTool'],
        { matcher: '.*', hooks: [{ type: 'command', name: MARK, command: ctx.hookCommand, timeout: HOOK_TIMEOUT_S * 1000 }] },
        ctx.hookCommand,
      ),
    ],
  })),
  droid: simple(BOTH, (ctx) => {
    // Droid reads the `hooks` key of settings.json only while hooks.json is absent: creating
    // hooks.json next to a settings.json with hooks would silently switch those off.
    const dir = join(base(ctx), '.factory');
    const settings = join(dir, 'settings.json');
    const settingsText = readIfExists(settings);
    const hooksJson = join(dir, 'hooks.json');
    const useSettings =
      readIfExists(hooksJson) === undefined && settingsText !== undefined && (parseJsonFile(settings, settingsText)?.children ?? []).some((pair) => pair.children?.[0]?.value === 'hooks');
    return { files: [jsonEntry(useSettings ? settings : hooksJson, ['hooks', 'PreToolUse'], claudeGroup(ctx.hookCommand, HOOK_TIMEOUT_S), ctx.hookCommand)] };
  }),
  letta: simple(BOTH, (ctx) => ({
    files: [
      jsonEntry(join(base(ctx), '.letta', 'settings.json'), ['hooks', 'PreToolUse'], { matcher: '*', hooks: [{ type: 'command', command: ctx.hookCommand, timeout: HOOK_TIMEOUT_S * 1000 }] }, ctx.hookCommand),
    ],
  })),
  augment: simple(BOTH, (ctx) => {
    // Augment runs a script file ("must be a .sh file"), not a command line.
    const script = join(ctx.agentDir, 'augment-hook.sh');
    return {
      command: script,
      files: [
        ownedFile(script, hookScript(ctx), 0o755),
        jsonEntry(join(base(ctx), '.augment', 'settings.json'), ['hooks', 'PreToolUse'], { matcher: '.*', hooks: [{ type: 'command', command: script, timeout: HOOK_TIMEOUT_S * 1000 }] }, script),
      ],
    };
  }),
  cursor: simple(BOTH, (ctx) => ({
    files: [
      jsonEntry(
        join(base(ctx), '.cursor', 'hooks.json'),
        ['hooks', 'preToolUse'],
        { command: ctx.hookCommand, failClosed: true },
        ctx.hookCommand,
        '{\n  "version": 1\n}\n',
      ),
    ],
  })),
  copilot: simple(BOTH, (ctx) => ({
    files: [
      ownedFile(
        join(ctx.scope === 'user' ? join(ctx.home, '.copilot') : join(ctx.projectDir, '.github'), 'hooks', fileName(ctx, '.json')),
        `${JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: 'command', bash: ctx.hookCommand, timeoutSec: HOOK_TIMEOUT_S }] } }, null, 2)}\n`,
      ),
    ],
  })),
  grok: simple(BOTH, (ctx) => ({
    files: [
      ownedFile(
        join(base(ctx), '.grok', 'hooks', fileName(ctx, '.json')),
        `${JSON.stringify({ hooks: { PreToolUse: [claudeGroup(ctx.hookCommand, HOOK_TIMEOUT_S)] } }, null, 2)}\n`,
      ),
    ],
    notes: ctx.scope === 'project' ? ['Grok runs project hooks only in a trusted folder: grant it with /hooks-trust (or start grok with --trust).'] : [],
  })),
  kirocli: simple(BOTH, (ctx) => {
    // Kiro CLI runs the hooks of the active agent only: the entry goes into every agent file
    // there is, or into an agent of its own when there is none.
    const dir = join(base(ctx), '.kiro', 'agents');
    const entry = { matcher: '*', command: ctx.hookCommand, timeout_ms: HOOK_TIMEOUT_S * 1000, cache_ttl_seconds: 0 };
    let agents: string[] = [];
    try {
      agents = readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
    } catch {
      agents = [];
    }
    if (agents.length > 0) return { files: agents.map((name) => jsonEntry(join(dir, name), ['hooks', 'preToolUse'], entry, ctx.hookCommand)) };
    const own = `${JSON.stringify({ name: MARK, description: 'Kiro agent whose every tool use is recorded by agent-ledger', tools: ['*'], hooks: { preToolUse: [entry] } }, null, 2)}\n`;
    return {
      files: [ownedFile(join(dir, `${MARK}.json`), own)],
      notes: [`Kiro CLI runs hooks of the active agent only: start it with \`kiro-cli chat --agent ${MARK}\` (or make ${MARK} your default agent).`],
    };
  }),
  kiroide: simple(['project'], (ctx) => ({
    files: [
      ownedFile(
        join(ctx.projectDir, '.kiro', 'hooks', fileName(ctx, '.kiro.hook')),
        `${JSON.stringify(
          {
            enabled: true,
            name: `agent-ledger (${ctx.agentId})`,
            description: 'Records every tool use in agent-ledger before it runs',
            version: '1',
            when: { type: 'preToolUse', toolTypes: ['*'] },
            then: { type: 'runCommand', command: ctx.hookCommand },
          },
          null,
          2,
        )}\n`,
      ),
    ],
  })),
  kimi: simple(['user'], (ctx) => {
    // Kimi Code reads ~/.kimi-code (KIMI_CODE_HOME); the earlier kimi-cli reads ~/.kimi (KIMI_SHARE_DIR).
    const kimiCode = envDir(ctx, 'KIMI_CODE_HOME', join(ctx.home, '.kimi-code'));
    const kimiCli = envDir(ctx, 'KIMI_SHARE_DIR', join(ctx.home, '.kimi'));
    const homes = [kimiCode, kimiCli].filter((dir) => readIfExists(join(dir, 'config.toml')) !== undefined || dirExists(dir));
    return { files: (homes.length > 0 ? homes : [kimiCode]).map((dir) => appendTomlHook(join(dir, 'config.toml'), ctx.agentId, ctx.hookCommand, HOOK_TIMEOUT_S)) };
  }),
  cline: simple(BOTH, (ctx) => {
    const dir = ctx.scope === 'user' ? join(ctx.home, 'Documents', 'Cline', 'Hooks') : join(ctx.projectDir, '.clinerules', 'hooks');
    const script = join(dir, 'PreToolUse');
    return {
      command: script,
      files: [ownedFile(script, hookScript(ctx), 0o755)],
      // The Cline CLI runs hooks as they are (under its default auto-approve too); the VS Code
      // extension only with its "Enable Hooks" setting checked.
      notes: ['The Cline CLI runs this hook as it is; in the VS Code extension, check "Enable Hooks" in Cline\'s settings.'],
    };
  }),
  opencode: simple(BOTH, (ctx) => ({
    files: [
      ownedFile(
        join(ctx.scope === 'user' ? join(envDir(ctx, 'XDG_CONFIG_HOME', join(ctx.home, '.config')), 'opencode') : join(ctx.projectDir, '.opencode'), 'plugins', fileName(ctx, '.js')),
        opencodePlugin(ctx),
      ),
    ],
  })),
};

function dirExists(dir: string): boolean {
  try {
    readdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * opencode has no command hooks: a plugin's `tool.execute.before` handler runs before each
 * tool and blocks it by throwing. This one runs the hook with the call as JSON on stdin.
 * opencode drops what a plugin's child prints, so an on-error allow's warning (the call runs
 * unrecorded) is passed on by the plugin itself: appended to the call's output in
 * `tool.execute.after` (the user and the model see it in the result), written to opencode's
 * stderr and shown as a toast in the TUI.
 */
function opencodePlugin(ctx: InstallContext): string {
  const args = [ctx.cliPath, 'hook', 'opencode', '--agent', ctx.agentId];
  return `// ${MARK}: records every tool use of agent ${ctx.agentId} before it runs.
// Written by \`agent-ledger agent init\`; \`agent-ledger agent uninstall --agent ${ctx.agentId}\` removes it.
import { spawn } from "node:child_process";

const NODE = ${JSON.stringify(ctx.nodePath)};
const ARGS = ${JSON.stringify(args)};

/** Runs the hook; resolves with what it printed on stderr when it allowed (a warning), rejects when it denied. */
function hook(event) {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ARGS, { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", (error) => reject(new Error("agent-ledger hook could not start: " + error.message)));
    child.on("close", (code) => (code === 0 ? resolve(stderr.trim()) : reject(new Error(stderr.trim() || "agent-ledger: tool use blocked"))));
    child.stdin.end(JSON.stringify(event));
  });
}

/** Warnings of calls allowed without a record, by callID, until their output is in. */
const warnings = new Map();

export const AgentLedger = async ({ directory, client }) => ({
  "tool.execute.before": async (input, output) => {
    const warning = await hook({ tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args, directory });
    if (!warning) return;
    warnings.set(input.callID, warning);
    process.stderr.write(warning + "\\n");
    // The TUI's toast; not awaited, so a headless run never waits on it.
    Promise.resolve()
      .then(() => client?.tui?.showToast?.({ body: { title: "agent-ledger", message: warning, variant: "warning" } }))
      .catch(() => {});
  },
  "tool.execute.after": async (input, output) => {
    const warning = warnings.get(input.callID);
    if (warning === undefined) return;
    warnings.delete(input.callID);
    if (output && typeof output.output === "string") output.output = output.output + "\\n\\n" + warning;
  },
});
`;
}

/** `<node> <cli.js> hook FLAG --agent ID` with every part shell-quoted. */
export function hookCommandLine(nodePath: string, cliPath: string, flag: ToolFlag, agentId: string): string {
  return [nodePath, cliPath, 'hook', flag, '--agent', agentId].map(shellQuote).join(' ');
}

export function defaultScope(flag: ToolFlag): Scope {
  return INSTALLERS[flag].scopes[0]!;
}

export function checkScope(flag: ToolFlag, scope: Scope): void {
  if (!INSTALLERS[flag].scopes.includes(scope)) {
    throw new ConfigError(`${flag} has no ${scope} configuration: use --scope ${INSTALLERS[flag].scopes.join(' or ')}`);
  }
}
