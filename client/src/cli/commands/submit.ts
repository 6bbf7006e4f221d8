/**
 * `agent-ledger submit --agent ID --type T --verb V --target X [--payload-file F]`: signs and
 * submits one record for a locally configured agent and prints `{receipt, record,
 * agent_public_key}` as JSON: a file that `agent-ledger verify` checks offline.
 */
import { readFileSync } from 'node:fs';
import { LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import { readConfig } from '../../local/agent-state.js';
import { submitForAgent } from '../../local/agent-submit.js';
import { agentDir, agentFiles } from '../../local/paths.js';
import { parseOptions, required } from '../args.js';
import { recordDepthProblem } from '@agent-ledger/protocol/core';
import { CliError } from '../errors.js';

export async function submit(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    agent: { type: 'string' },
    type: { type: 'string' },
    verb: { type: 'string' },
    target: { type: 'string' },
    'payload-file': { type: 'string' },
  });
  const agentId = required(values.agent, '--agent');
  const operationType = required(values.type, '--type');
  const verb = required(values.verb, '--verb');
  const target = values.target ?? '';
  const payload = values['payload-file'] === undefined ? null : readPayload(values['payload-file']);
  const paths = agentFiles(agentDir(agentId));
  const config = readConfig(paths);
  try {
    const { receipt, record } = await submitForAgent(
      paths,
      config,
      { operation_type: operationType, subject: { kind: 'workspace', id: process.cwd() }, action: { verb, target }, payload },
      Date.now() + Math.max(config.timeout_ms ?? 0, 30_000),
    );
    process.stdout.write(`${JSON.stringify({ receipt, record, agent_public_key: config.public_key }, null, 2)}\n`);
    process.stderr.write(`accepted: seq_no ${receipt.seq_no}, operation ${record.operation_id}\n`);
    return 0;
  } catch (error) {
    if (error instanceof LedgerApiError || error instanceof LedgerTransportError) throw new CliError(`the ledger did not accept the record: ${error.message}`);
    throw error;
  }
}

/** JSON (an object, string or null) when the file holds JSON, else its text as a string payload. */
function readPayload(path: string): Record<string, unknown> | string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read --payload-file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value === 'string' || (typeof value === 'object' && !Array.isArray(value))) {
      // Refused here, before anything is signed: the service would refuse the record (docs/PROTOCOL.md, Nesting limit).
      const deep = recordDepthProblem({ payload: value });
      if (deep !== null) throw new CliError(`--payload-file ${path}: ${deep}`);
      return value as Record<string, unknown> | string | null;
    }
    throw new CliError(`--payload-file ${path} holds JSON that is not an object, a string or null (docs/API.md §2.1)`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    return text;
  }
}
