/**
 * `agent-ledger hook FLAG --agent ID`: the hook a coding tool runs before every tool use
 * (docs/API.md §1, docs/HOOKS.md). It reads the tool's event from stdin, submits one `tool.invoke`
 * record, and answers in the tool's own protocol: allow once the receipt is in; deny when the
 * agent is frozen or revoked (from the 60 s status cache without a request, docs/API.md §8), when
 * the service refuses the record, or, with on-error `deny` (the default), when the service
 * cannot be reached in time. Errors go to errors.log and stderr, never to stdout, where the
 * tool parses the answer; nothing here ever prints a stack trace.
 */
import { canonicalBytes, sha256B64u } from '@agent-ledger/protocol/core';
import { LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import type { OperationInput } from '../../sdk/client.js';
import { logError, readConfig, readStatusCache, type AgentConfig } from '../../local/agent-state.js';
import { submitForAgent } from '../../local/agent-submit.js';
import { agentDir, agentFiles, type AgentPaths } from '../../local/paths.js';
import { isToolFlag, TOOL_FLAGS, type ToolFlag } from '../../tools/flags.js';
import { EventError, HOOK_PROTOCOLS, targetOf, type HookAnswer, type HookProtocol, type ToolEvent } from '../../tools/protocols.js';
import { CliError } from '../errors.js';
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
  const onError = (reason: string, event?: ToolEvent): HookAnswer => {
    logError(paths, reason);
    return config.on_error === 'allow' ? withWarning(protocol.allow(), reason) : protocol.deny(`denied by agent-ledger: ${reason}; tool use blocked (on-error deny)`, event);
  };

  // A frozen or revoked agent (the 60 s status cache) is denied without a request; the event is
  // read first all the same, so that the deny can answer in its terms (Cline's overrideInput).
  const cached = readStatusCache(paths);
  const stopped = cached && (cached.status === 'frozen' || cached.status === 'revoked') ? `denied by agent-ledger: agent ${agentId} is ${cached.status}` : undefined;

  let event: ToolEvent;
  try {
    const stdin = await readStdin({ deadline, ...(protocol.stdinIdleMs ? { idleMs: protocol.stdinIdleMs } : {}) });
    const decoded = protocol.decode({ stdin, env });
    if (stopped) return protocol.deny(stopped, decoded === 'foreign' ? undefined : decoded);
    if (decoded === 'foreign') return protocol.allow();
    event = decoded;
  } catch (error) {
    if (stopped) return protocol.deny(stopped);
    return onError(error instanceof EventError ? `${flag} event: ${error.message}` : message(error));
  }

  const input = (attempt: number): OperationInput => ({
    operation_type: 'tool.invoke',
    subject: { kind: 'workspace', id: event.cwd ?? process.cwd() },
    action: { verb: event.toolName, target: targetOf(event.toolInput) },
    payload: payloadFor(flag, event, attempt > 0 ? 0 : (config.max_payload_bytes ?? DEFAULT_MAX_PAYLOAD_BYTES)),
  });
  try {
    await submitForAgent(paths, config, input, deadline);
    return protocol.allow();
  } catch (error) {
    if (error instanceof LedgerApiError) {
      if (error.code === 'AGENT_FROZEN' || error.code === 'AGENT_REVOKED') {
        const status = error.code === 'AGENT_FROZEN' ? 'frozen' : 'revoked';
        logError(paths, `agent ${agentId} is ${status}: tool use denied`);
        return protocol.deny(`denied by agent-ledger: agent ${agentId} is ${status}`, event);
      }
      if (error.status < 500) {
        logError(paths, `the ledger refused the record: ${error.message}`);
        return protocol.deny(`denied by agent-ledger: the ledger refused the record (${error.message}); tool use blocked`, event);
      }
      return onError(`the ledger at ${config.url} failed: ${error.message}`, event);
    }
    if (error instanceof LedgerTransportError) return onError(`the ledger at ${config.url} could not be reached: ${error.message}`, event);
    return onError(message(error), event);
  }
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
