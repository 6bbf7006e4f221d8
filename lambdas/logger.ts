/**
 * The structured logger (Powertools for AWS Lambda, docs/ARCHITECTURE.md "Logs and metrics"): JSON
 * lines with the request id and the Lambda context (cold_start, function_name, ...) on each.
 * Never log tokens, secrets or payloads.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';

const root = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-ledger',
});

/** The logger of the invocation running in this async context, when one has its own. */
const invocationLogger = new AsyncLocalStorage<Logger>();

/**
 * The logger every module imports. In Lambda a process runs one invocation at a time, so it is
 * the one logger; the local stack runs every function in one process, where a sign-up and the
 * epoch sealer overlap, so each invocation started through {@link withOwnLogger} gets a child
 * of its own and this name reaches it: the keys and Lambda context one invocation sets
 * (function_name, request_id) never label another's lines.
 */
export const logger: Logger = new Proxy(root, {
  get(target, property) {
    const current = invocationLogger.getStore() ?? target;
    const value: unknown = Reflect.get(current, property, current);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
  },
});

/** Runs one invocation with a logger of its own (a child of the root logger, same settings). */
export function withOwnLogger<T>(invocation: () => T): T {
  return invocationLogger.run(root.createChild(), invocation);
}

interface AccessEntry {
  method: string;
  path: string;
  status: number;
  latencyMs: number;
}

/**
 * Someone watches the local stack in a terminal: `npm start` in a shell. Then one readable
 * line per request beats a JSON object; piped, in tests and in AWS the line stays JSON.
 */
export const readableInTerminal = () => process.env.LEDGER_STAGE === 'local' && process.stdout.isTTY === true;

/**
 * The access line of one request: method, path, status and latency; never headers or bodies
 * (they carry tokens and payloads).
 */
export function logAccess(entry: AccessEntry): void {
  if (readableInTerminal()) {
    process.stdout.write(`${entry.method} ${entry.path} ${entry.status} ${entry.latencyMs} ms\n`);
    return;
  }
  logger.info('request', { method: entry.method, path: entry.path, status: entry.status, latency_ms: entry.latencyMs });
}
