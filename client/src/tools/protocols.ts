/**
 * How each coding tool talks to its pre-tool-use hook (`docs/HOOKS.md`, checked against
 * each tool's documentation and source): the shape of the event on stdin, and how the hook
 * says "allow" or "deny". The hook (../cli/commands/hook.ts) reads only this table, so every
 * tool's field names live in one place; test/fixtures/events/ holds one recorded event per tool.
 */
import type { ToolFlag } from './flags.js';
import { shellQuote } from '../local/files.js';

/** A tool call, in the tool's terms, reduced to what the record needs. */
export interface ToolEvent {
  /** The event's working directory or first workspace root. */
  cwd?: string;
  /** The tool name as the event gives it (action.verb). */
  toolName: string;
  /** The tool's input exactly as received (payload.tool_input). */
  toolInput: unknown;
  sessionId?: string;
  /** The event as the tool sent it, for a deny that answers in its terms (Cline's overrideInput). */
  native?: Record<string, unknown>;
}

/** What the hook prints and how it exits. */
export interface HookAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

interface RawEvent {
  /** stdin as read ('' when the tool sent nothing). */
  stdin: string;
  env: NodeJS.ProcessEnv;
}

/** The event cannot be understood: the hook applies its on-error policy. */
export class EventError extends Error {
  override readonly name = 'EventError';
}

/**
 * `foreign`: a well-formed event of another tool, which reads this tool's settings file too
 * (docs/HOOKS.md "Duplicates": Grok Build reads ~/.claude/settings.json and ~/.cursor/hooks.json,
 * VS Code reads .claude/settings*.json). That tool's own hook records the call; answering
 * allow without a record here keeps one action from producing two records.
 */
type Decoded = ToolEvent | 'foreign';

export interface HookProtocol {
  decode(raw: RawEvent): Decoded;
  allow(): HookAnswer;
  /** `event` when the call was decoded (a deny from the status cache or an unreadable event has none). */
  deny(reason: string, event?: ToolEvent): HookAnswer;
  /** Kiro IDE's older versions never close stdin: read it only briefly (ms). */
  stdinIdleMs?: number;
}

type Json = Record<string, unknown>;

function object(text: string): Json {
  if (text.trim() === '') throw new EventError('the tool sent no event on stdin');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EventError('the event on stdin is not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EventError('the event on stdin is not a JSON object');
  return value as Json;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const firstOf = (value: unknown): string | undefined => (Array.isArray(value) ? str(value[0]) : undefined);

function toolName(value: unknown, field: string): string {
  const name = str(value);
  if (name === undefined) throw new EventError(`the event has no ${field}`);
  return name;
}

/** Exit 2 with the reason on stderr: the deny signal most tools share (docs/HOOKS.md). */
const exit2 = (reason: string): HookAnswer => ({ exitCode: 2, stderr: `${reason}\n` });

/**
 * Claude Code's (and Codex's) decision: exit 0 with `hookSpecificOutput.permissionDecision:
 * "deny"` on stdout. The tool shows it as a denial with its reason; exit 2 reached the model as
 * "PreToolUse:Bash hook error: …", a failed hook rather than a decision. Codex rejects a deny
 * without a non-empty permissionDecisionReason, so the reason is always there.
 */
const permissionDecision = (reason: string): HookAnswer => ({
  exitCode: 0,
  stdout: json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }),
});

/**
 * Gemini CLI's (and Qwen Code's) decision: exit 0 with `{"decision":"deny","reason":…}` as the
 * only thing on stdout. Gemini reports exit 2 as "Hook(s) [agent-ledger] failed" and treats
 * exit 1 as allow, so neither is used for a deny.
 */
const decisionDeny = (reason: string): HookAnswer => ({ exitCode: 0, stdout: json({ decision: 'deny', reason }) });
const allowSilently = (): HookAnswer => ({ exitCode: 0 });
const json = (value: unknown) => `${JSON.stringify(value)}\n`;

/** Claude Code's event: snake_case fields and `hook_event_name: "PreToolUse"`. */
function claudeShape(event: Json): ToolEvent {
  return {
    cwd: str(event.cwd),
    toolName: toolName(event.tool_name, 'tool_name'),
    toolInput: event.tool_input,
    sessionId: str(event.session_id),
  };
}

/**
 * Claude-compatible tools: exit 2 with the reason on stderr, the deny all of them honour
 * whatever they make of stdout (a JSON decision would be lost to a tool that ignores stdout
 * on exit 2, or that lets the call run when its JSON does not parse).
 */
const claudeCompatible = (decode: (event: Json) => Decoded, deny: (reason: string) => HookAnswer = exit2): HookProtocol => ({
  decode: ({ stdin }) => decode(object(stdin)),
  allow: allowSilently,
  deny,
});

export const HOOK_PROTOCOLS: Record<ToolFlag, HookProtocol> = {
  // Claude Code: PreToolUse {session_id, transcript_path, cwd, hook_event_name, tool_name, tool_input, tool_use_id}.
  // Grok Build (camelCase toolName), VS Code (hookEventName) and Cursor (cursor_version) read
  // the same settings files and send their own shapes: those are foreign here.
  claudecode: claudeCompatible((event) => ('toolName' in event || 'hookEventName' in event || 'cursor_version' in event ? 'foreign' : claudeShape(event)), permissionDecision),
  // Codex: the Claude fields plus turn_id and model; Claude Code's permissionDecision.
  codex: claudeCompatible(claudeShape, permissionDecision),
  // Qwen Code: the Claude fields plus tool_call_id; Gemini CLI's decision JSON (Qwen Code is its fork).
  qwen: claudeCompatible(claudeShape, decisionDeny),
  // Factory Droid: Claude-compatible; its shell tool is `Execute`.
  droid: claudeCompatible(claudeShape),
  // Kimi Code: {hook_event_name, session_id, cwd, tool_name, tool_input, tool_call_id}.
  kimi: claudeCompatible(claudeShape),
  // Kiro CLI: {hook_event_name: "preToolUse", cwd, tool_name, tool_input}.
  kirocli: claudeCompatible(claudeShape),
  // Augment: {hook_event_name, conversation_id, workspace_roots, tool_name, tool_input}.
  augment: claudeCompatible((event) => ({
    cwd: str(event.cwd) ?? firstOf(event.workspace_roots),
    toolName: toolName(event.tool_name, 'tool_name'),
    toolInput: event.tool_input,
    sessionId: str(event.conversation_id) ?? str(event.session_id),
  })),
  // Letta Code: {event_type, working_directory, tool_name, tool_input, tool_call_id, agent_id}; only exit 2 blocks.
  letta: claudeCompatible((event) => ({
    cwd: str(event.working_directory),
    toolName: toolName(event.tool_name, 'tool_name'),
    toolInput: event.tool_input,
    sessionId: str(event.session_id),
  })),
  // Gemini CLI: BeforeTool {session_id, transcript_path, cwd, hook_event_name, timestamp, tool_name, tool_input};
  // stdout must hold nothing but its JSON, so allow prints nothing and deny prints only the decision.
  gemini: claudeCompatible(claudeShape, decisionDeny),
  // Cursor: preToolUse {conversation_id, generation_id, hook_event_name, workspace_roots, tool_name, tool_input};
  // with failClosed it wants an answer on stdout for every call.
  cursor: {
    decode: ({ stdin }) => {
      const event = object(stdin);
      if (typeof event.toolName === 'string') return 'foreign'; // Grok Build reads ~/.cursor/hooks.json too
      return {
        cwd: firstOf(event.workspace_roots) ?? str(event.cwd),
        toolName: toolName(event.tool_name, 'tool_name'),
        toolInput: event.tool_input,
        sessionId: str(event.conversation_id) ?? str(event.session_id),
      };
    },
    allow: () => ({ exitCode: 0, stdout: json({ permission: 'allow' }) }),
    deny: (reason) => ({ exitCode: 2, stdout: json({ permission: 'deny', user_message: reason, agent_message: reason }), stderr: `${reason}\n` }),
  },
  // GitHub Copilot CLI: preToolUse {timestamp, cwd, toolName, toolArgs (a JSON string in its hooks
  // reference, an object from Copilot CLI 1.0.102; targetOf reads both)}; exit codes
  // never block, only {"permissionDecision":"deny"} on stdout does.
  copilot: {
    decode: ({ stdin }) => {
      const event = object(stdin);
      return {
        cwd: str(event.cwd),
        toolName: toolName(event.toolName, 'toolName'),
        toolInput: event.toolArgs,
        sessionId: str(event.sessionId),
      };
    },
    allow: allowSilently,
    deny: (reason) => ({ exitCode: 0, stdout: json({ permissionDecision: 'deny', permissionDecisionReason: reason }) }),
  },
  // Grok Build: PreToolUse {hookEventName, toolName, toolInput, sessionId, cwd} (camelCase).
  grok: {
    decode: ({ stdin }) => {
      const event = object(stdin);
      return {
        cwd: str(event.cwd) ?? str(event.workspaceRoot),
        toolName: toolName(event.toolName, 'toolName'),
        toolInput: event.toolInput,
        sessionId: str(event.sessionId),
      };
    },
    allow: allowSilently,
    deny: (reason) => ({ exitCode: 2, stdout: json({ decision: 'deny', reason }), stderr: `${reason}\n` }),
  },
  // Cline: an executable named PreToolUse (in ~/Documents/Cline/Hooks, ~/.cline/hooks,
  // .clinerules/hooks or .cline/hooks) gets {clineVersion, hookName, timestamp, taskId,
  // workspaceRoots, userId, preToolUse: {toolName, parameters}}, the parameters' values as
  // strings. The Cline CLI (the @cline SDK) adds `tool_call: {id, name, input}` with the input as
  // the tool takes it; its shell tool is run_commands with `commands` (a JSON string in
  // parameters, an array in tool_call.input). It answers {"cancel": bool, ...}.
  cline: {
    decode: ({ stdin }) => {
      const event = object(stdin);
      const call = (event.preToolUse ?? {}) as Json;
      const sdkCall = event.tool_call !== null && typeof event.tool_call === 'object' ? (event.tool_call as Json) : undefined;
      return {
        cwd: firstOf(event.workspaceRoots),
        toolName: toolName(call.toolName ?? sdkCall?.name, 'preToolUse.toolName'),
        toolInput: sdkCall && 'input' in sdkCall ? sdkCall.input : call.parameters,
        sessionId: str(event.taskId),
        native: event,
      };
    },
    allow: () => ({ exitCode: 0, stdout: json({ cancel: false }) }),
    deny: clineDeny,
  },
  // opencode: the plugin file the installer writes passes {tool, sessionID, callID, args, directory}
  // (tool.execute.before's input and output.args) and throws on exit 2 with stderr as message.
  opencode: {
    decode: ({ stdin }) => {
      const event = object(stdin);
      return {
        cwd: str(event.directory),
        toolName: toolName(event.tool, 'tool'),
        toolInput: event.args,
        sessionId: str(event.sessionID),
      };
    },
    allow: allowSilently,
    deny: exit2,
  },
  // Kiro IDE: a .kiro.hook runCommand. Newer versions send the Kiro CLI event on stdin; older
  // ones send nothing, keep stdin open, and pass what they have in USER_PROMPT.
  kiroide: {
    stdinIdleMs: 300,
    decode: ({ stdin, env }) => {
      if (stdin.trim() !== '') return claudeShape(object(stdin));
      const prompt = env.USER_PROMPT;
      if (prompt === undefined || prompt === '') throw new EventError('Kiro sent no event on stdin and no USER_PROMPT');
      try {
        const event = JSON.parse(prompt) as Json;
        if (event && typeof event === 'object' && typeof event.tool_name === 'string') return claudeShape(event);
      } catch {
        // plain text: recorded as given
      }
      return { toolName: 'preToolUse', toolInput: { user_prompt: prompt } };
    },
    allow: allowSilently,
    deny: exit2,
  },
};

/**
 * Cline's deny. `cancel: true` stops the whole task, and the Cline CLI shows its reason nowhere
 * ("aborted by another client"); the CLI's hooks cannot skip one call. So for a shell call of
 * the CLI (an event with `tool_call`), the hook instead answers `overrideInput`: the commands
 * are replaced by one that prints the reason and fails, so the call's own commands never run,
 * its result shows the reason to the user and the model, and `errorMessage` (without cancel)
 * is added to the model's context. Every other call, and any event of the VS Code extension
 * (which knows no overrideInput), is cancelled.
 */
function clineDeny(reason: string, event?: ToolEvent): HookAnswer {
  const sdkCall = event?.native?.tool_call as Json | undefined;
  const input = sdkCall?.input;
  if (sdkCall && input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const refusal = `printf '%s\\n' ${shellQuote(reason)} >&2; exit 126`;
    const shell = input as Json;
    const overrideInput = 'commands' in shell ? { ...shell, commands: [refusal] } : 'command' in shell && !('args' in shell) ? { ...shell, command: refusal } : undefined;
    if (overrideInput) return { exitCode: 0, stdout: json({ cancel: false, errorMessage: reason, overrideInput }) };
  }
  return { exitCode: 0, stdout: json({ cancel: true, errorMessage: reason }) };
}

/** Cline's run_commands: `commands` as an array (strings or {command, args}) or as that array in a JSON string. */
function commandsTarget(value: unknown): string | undefined {
  let list = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      return list === '' ? undefined : (list as string);
    }
  }
  if (typeof list === 'string') return list === '' ? undefined : list;
  if (!Array.isArray(list)) return undefined;
  const commands = list
    .map((item) => {
      if (typeof item === 'string') return item;
      const { command, args } = (item ?? {}) as { command?: unknown; args?: unknown };
      if (typeof command !== 'string') return undefined;
      return Array.isArray(args) ? [command, ...args.filter((arg): arg is string => typeof arg === 'string')].join(' ') : command;
    })
    .filter((command): command is string => command !== undefined && command !== '');
  return commands.length > 0 ? commands.join('; ') : undefined;
}

/**
 * action.target: the shell command, file path or URL the tool input names, else "".
 * Tools name these members differently; the first present one wins.
 */
const TARGET_FIELDS = ['command', 'cmd', 'file_path', 'filePath', 'absolute_path', 'notebook_path', 'target_file', 'path', 'file', 'url', 'uri'];

export function targetOf(toolInput: unknown): string {
  let input = toolInput;
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input); // Copilot sends its arguments as a JSON string
    } catch {
      return '';
    }
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return '';
  const commands = commandsTarget((input as Json).commands);
  if (commands !== undefined) return commands;
  for (const field of TARGET_FIELDS) {
    const value = (input as Json)[field];
    if (typeof value === 'string' && value !== '') return value;
    if (Array.isArray(value) && value.every((part) => typeof part === 'string') && value.length > 0) return value.join(' ');
  }
  return '';
}
