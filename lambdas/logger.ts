/**
 * The structured logger (Powertools for AWS Lambda, docs/ARCHITECTURE.md "Logs and metrics"): JSON
 * lines with the request id and the Lambda context (cold_start, function_name, ...) on each.
 * Never log tokens, secrets or payloads.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-ledger',
});

export interface AccessEntry {
  method: string;
  path: string;
  status: number;
  latencyMs: number;
}

/**
 * Someone watches the local stack in a terminal: `npm start` in a shell. Then one readable
 * line per request beats a JSON object; piped, in tests and in AWS the line stays JSON.
 */
const readableAccessLines = () => process.env.LEDGER_STAGE === 'local' && process.stdout.isTTY === true;

/**
 * The access line of one request: method, path, status and latency; never headers or bodies
 * (they carry tokens and payloads).
 */
export function logAccess(entry: AccessEntry): void {
  if (readableAccessLines()) {
    process.stdout.write(`${entry.method} ${entry.path} ${entry.status} ${entry.latencyMs} ms\n`);
    return;
  }
  logger.info('request', { method: entry.method, path: entry.path, status: entry.status, latency_ms: entry.latencyMs });
}
