/**
 * `agent-ledger hook FLAG --agent ID`: the hook a coding tool runs before every tool use
 * (docs/API.md §1, docs/HOOKS.md). It reads the tool's event from stdin, submits one `tool.invoke`
 * record, and answers in the tool's own protocol: allow once the receipt is in; deny when the
 * agent is frozen or revoked (the service says so; the 60 s status cache, docs/API.md §8, only
 * when the service cannot answer), when
 * the service refuses the record or the API token (expired or revoked: the deny says which, and
 * names the console's API tokens page and `agent-ledger login`), when no token is stored for the
 * agent's own service origin (the deny names `agent-ledger login --url <origin>`; another
 * origin's token is never sent, nor a redirect followed, docs/CLI.md "Several services"), or, with on-error `deny` (the
 * default), when the service cannot be reached in time. On-error `allow` covers only that: a transport failure or a 5xx
 * answer. Anything local (an event that cannot be read, a corrupt chain.json) denies
 * whatever the policy, and a tool input that cannot be recorded as JSON (a lone surrogate,
 * nesting over docs/PROTOCOL.md's limit, a number outside I-JSON) is recorded by the SHA-256
 * of the raw stdin instead (`unrecordable_input`), so that no tool runs unrecorded because
 * of what it was given. Errors go to errors.log and stderr, never to stdout, where the tool
 * parses the answer; nothing here ever prints a stack trace. A token expiring within 7 days
 * is warned about in errors.log, at most once a day (docs/CLI.md "API token expiry").
 */
import { createHash } from 'node:crypto';
import { canonicalBytes, recordDepthProblem, sha256B64u } from '@agent-ledger/protocol/core';
import { LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import type { OperationInput } from '../../sdk/client.js';
import { logError, readConfig, readStatusCache, type AgentConfig } from '../../local/agent-state.js';
import { submitForAgent } from '../../local/agent-submit.js';
import { agentDir, agentFiles, type AgentPaths } from '../../local/paths.js';
import { isToolFlag, TOOL_FLAGS, type ToolFlag } from '../../tools/flags.js';
import { EventError, HOOK_PROTOCOLS, targetOf, type HookAnswer, type HookProtocol, type ToolEvent } from '../../tools/protocols.js';
import { CliError } from '../errors.js';
import { logExpiryWarning } from '../expiry-log.js';
import { rejectedText, rejectionAdvice, tokenRejection } from '../token-advice.js';
import { readStdin } from '../stdin.js';

/** Network budget when config.json does not say (ms); tools' hook timeouts are set above it. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** docs/PROTOCOL.md "Submission check order" 4: the service's default payload limit. */
const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

/** Parses `FLAG --agent ID` and runs the hook; returns the answer to print. */
export async function hookAnswer(args: string[], env: NodeJS.ProcessEnv): Promise<HookAnswer> {
  const started = Date.now();
  const flag = args[0];
  const agentIndex = args.indexOf('--agent');
  const agentId = agentIndex >= 0 ? args[agentIndex + 1] : undefined;
  if (flag === undefined || !isToolFlag(flag)) {
    // No protocol to answer in: exit 2 with a reason is the deny most tools understand.
    return { exitCode: 2, stderr: `agent-ledger: unknown tool flag "${flag ?? ''}" (one of: ${TOOL_FLAGS.join(', ')}); tool use blocked\n` };
  }
  const protocol = HOOK_PROTOCOLS[flag];
  if (!agentId) return protocol.deny('denied by agent-ledger: the hook needs --agent ID; tool use blocked');

  let loaded: { paths: AgentPaths; config: AgentConfig };
  try {
    const agentPaths = agentFiles(agentDir(agentId));
    loaded = { paths: agentPaths, config: readConfig(agentPaths) };
  } catch (error) {
    // No agent directory, so no on-error policy: the default, deny.
    return protocol.deny(`denied by agent-ledger: ${message(error)}; tool use blocked`);
  }
  const { paths, config } = loaded;
  const deadline = started + (config.timeout_ms > 0 ? config.timeout_ms : DEFAULT_TIMEOUT_MS);
  /** A service that cannot be reached or fails (5xx): the one case the on-error policy decides. */
  const onError = (reason: string, event?: ToolEvent): HookAnswer => {
    logError(paths, reason);
    if (stopped) return protocol.deny(stopped, event);
    return config.on_error === 'allow' ? withWarning(protocol.allow(), reason) : protocol.deny(`denied by agent-ledger: ${reason}; tool use blocked (on-error deny)`, event);
  };
  /** Anything else that keeps the record from being made: deny whatever the policy. */
  const refuse = (reason: string, event?: ToolEvent): HookAnswer => {
    logError(paths, reason);
    const why = config.on_error === 'allow' ? ' (on-error allow covers only an unreachable or failing service)' : ' (on-error deny)';
    return protocol.deny(`denied by agent-ledger: ${reason}; tool use blocked${why}`, event);
  };

  // A cached "frozen" or "revoked" (the 60 s status cache, docs/API.md §8) is not trusted to
  // deny on its own: the record is submitted all the same, so an unfreeze is honoured at the
  // very next tool use, and the service answers AGENT_FROZEN while it still is. The cache
  // decides only when the service cannot answer (whatever the on-error policy), or when the
  // event cannot be read; the event is read first, so that a deny answers in its terms
  // (Cline's overrideInput).
  const cached = readStatusCache(paths);
  const stopped = cached && (cached.status === 'frozen' || cached.status === 'revoked') ? `denied by agent-ledger: agent ${agentId} is ${cached.status}` : undefined;

  let event: ToolEvent;
  let raw: Buffer;
  try {
    raw = await readStdin({ deadline, ...(protocol.stdinIdleMs ? { idleMs: protocol.stdinIdleMs } : {}) });
    const decoded = protocol.decode({ stdin: raw.toString('utf8'), env });
    if (decoded === 'foreign') return stopped ? protocol.deny(stopped) : protocol.allow();
    event = decoded;
  } catch (error) {
    if (stopped) return protocol.deny(stopped);
    return refuse(error instanceof EventError ? `${flag} event: ${error.message}` : message(error));
  }

  const maxBytes = config.max_payload_bytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const parts = recordParts(flag, event, raw, maxBytes);
  if ('unrecordable' in parts) return refuse(`the tool use cannot be recorded: ${parts.unrecordable}`, event);
  if (parts.substituted !== null) logError(paths, `the tool input cannot be recorded as JSON (${parts.substituted}); recorded as unrecordable_input with the SHA-256 of stdin`);
  const input = (attempt: number): OperationInput => ({
    operation_type: 'tool.invoke',
    subject: parts.subject,
    action: parts.action,
    payload: attempt > 0 ? parts.fallbackPayload : parts.payload,
  });
  try {
    await submitForAgent(paths, config, input, deadline);
    logExpiryWarning(paths, config.url);
    return parts.substituted === null ? protocol.allow() : withNote(protocol.allow(), `the tool input cannot be recorded as JSON (${parts.substituted}); recorded by the SHA-256 of stdin`);
  } catch (error) {
    if (error instanceof LedgerApiError) {
      if (error.code === 'AGENT_FROZEN' || error.code === 'AGENT_REVOKED') {
        const status = error.code === 'AGENT_FROZEN' ? 'frozen' : 'revoked';
        logError(paths, `agent ${agentId} is ${status}: tool use denied`);
        return protocol.deny(`denied by agent-ledger: agent ${agentId} is ${status}`, event);
      }
      if (error.status === 401) {
        // The service answered: the token no longer works (docs/API.md §7 error.reason), so say why and what fixes it.
        const reason = tokenRejection(error);
        const why = reason ? rejectionAdvice(reason, config.url) : rejectedText(error, config.url);
        logError(paths, why);
        return protocol.deny(`denied by agent-ledger: ${why}; tool use blocked`, event);
      }
      if (error.status < 500) {
        logError(paths, `the ledger refused the record: ${error.message}`);
        return protocol.deny(`denied by agent-ledger: the ledger refused the record (${error.message}); tool use blocked`, event);
      }
      return onError(`the ledger at ${config.url} failed: ${error.message}`, event);
    }
    if (error instanceof LedgerTransportError) return onError(`the ledger at ${config.url} could not be reached: ${error.message}`, event);
    return refuse(message(error), event);
  }
}

type RecordParts =
  | {
      subject: Record<string, unknown>;
      action: Record<string, unknown>;
      payload: Record<string, unknown>;
      /** The payload after PAYLOAD_TOO_LARGE: the hash form. */
      fallbackPayload: Record<string, unknown>;
      /** Why the tool input was replaced by `unrecordable_input`, or null when it was not. */
      substituted: string | null;
    }
  | { unrecordable: string };

/** Why `value` (subject, action and payload as members of one object, as in a record) cannot be signed and submitted, or null. */
function unrecordable(parts: { subject: unknown; action: unknown; payload?: unknown }): string | null {
  if (recordDepthProblem(parts) !== null) return 'nested deeper than the 64 levels of docs/PROTOCOL.md';
  try {
    canonicalBytes(parts);
    return null;
  } catch (error) {
    return message(error);
  }
}

/**
 * The record's subject, action and payload. A tool input the record cannot carry as JSON
 * becomes `{unrecordable_input: {sha256, reason}}` (sha256: hex of the raw stdin bytes), with
 * the tool name and whatever target can be read; when even that cannot be recorded (the tool
 * name or the working directory themselves are not JSON text), there is no record to make.
 */
function recordParts(flag: ToolFlag, event: ToolEvent, raw: Buffer, maxBytes: number): RecordParts {
  const subject = { kind: 'workspace', id: event.cwd ?? process.cwd() };
  let action: Record<string, unknown> = { verb: event.toolName, target: targetOf(event.toolInput) };
  if (unrecordable({ subject, action }) !== null) action = { verb: event.toolName, target: '' };
  const header = unrecordable({ subject, action });
  if (header !== null) return { unrecordable: `the tool name or working directory: ${header}` };
  let reason: string | null;
  try {
    const payload = payloadFor(flag, event, maxBytes);
    reason = unrecordable({ subject, action, payload });
    if (reason === null) return { subject, action, payload, fallbackPayload: payloadFor(flag, event, 0), substituted: null };
  } catch (error) {
    reason = message(error);
  }
  const substitute = { unrecordable_input: { sha256: createHash('sha256').update(raw).digest('hex'), reason } };
  const left = unrecordable({ subject, action, payload: substitute });
  if (left !== null) return { unrecordable: left };
  return { subject, action, payload: substitute, fallbackPayload: substitute, substituted: reason };
}

/**
 * payload = {client, session_id?, tool_input} (tool_input exactly as received); over the
 * limit, `{truncated: true, sha256, bytes}` of that payload's canonical JSON instead.
 */
function payloadFor(flag: ToolFlag, event: ToolEvent, maxBytes: number): Record<string, unknown> {
  const full: Record<string, unknown> = { client: flag };
  if (event.sessionId !== undefined) full.session_id = event.sessionId;
  full.tool_input = event.toolInput === undefined ? null : event.toolInput;
  const bytes = canonicalBytes(full);
  if (bytes.byteLength <= maxBytes) return full;
  return { truncated: true, sha256: sha256B64u(bytes), bytes: bytes.byteLength };
}

/** A note on stderr next to an answer. */
function withNote(answer: HookAnswer, note: string): HookAnswer {
  return { ...answer, stderr: `${answer.stderr ?? ''}agent-ledger: ${note}\n` };
}

/** On-error allow still tells the person, on stderr, that this call went unrecorded. */
function withWarning(answer: HookAnswer, reason: string): HookAnswer {
  return { ...answer, stderr: `${answer.stderr ?? ''}agent-ledger: ${reason}; allowed without a record (on-error allow)\n` };
}

function message(error: unknown): string {
  if (error instanceof CliError || error instanceof Error) return error.message;
  return String(error);
}

/** Runs the hook and exits with its answer; never throws, never prints a stack trace. */
export async function runHook(args: string[]): Promise<never> {
  let answer: HookAnswer;
  try {
    answer = await hookAnswer(args, process.env);
  } catch (error) {
    const fallback: HookProtocol | undefined = args[0] && isToolFlag(args[0]) ? HOOK_PROTOCOLS[args[0]] : undefined;
    const reason = `denied by agent-ledger: unexpected error (${message(error)}); tool use blocked`;
    answer = fallback ? fallback.deny(reason) : { exitCode: 2, stderr: `${reason}\n` };
  }
  if (answer.stderr) process.stderr.write(answer.stderr);
  if (answer.stdout) {
    await new Promise<void>((resolve) => process.stdout.write(answer.stdout!, () => resolve()));
  }
  process.exit(answer.exitCode);
}
