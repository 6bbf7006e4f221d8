/**
 * `agent-ledger verify FILE [--jwks FILE|URL] [--json]`: checks, offline when the JWKS is a
 * file, a receipt (with the record it acknowledges, as `agent-ledger submit` writes it).
 * Prints one line per check; exits 0 only when every check that ran passed.
 */
import { readFileSync } from 'node:fs';
import type { Jwk, OperationRecord, Receipt } from '@agent-ledger/protocol';
import { jsonBody, send } from '../../sdk/http.js';
import { verifyReceipt, type Check, type Verification } from '../../sdk/verify-receipt.js';
import { readCredentials } from '../../local/credentials.js';
import { parseOptions } from '../args.js';
import { CliError, usageError } from '../errors.js';

type Jwks = { keys: Jwk[] };

export async function verify(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(args, { jwks: { type: 'string' }, json: { type: 'boolean' } }, 1);
  const file = positionals[0];
  if (!file) throw usageError('verify needs a FILE (a receipt JSON, an export bundle or a PDF export)');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const jwks = await loadJwks(values.jwks);
  const { kind, result } = await verifyDocument(bytes, jwks);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ file, kind, valid: result.valid, checks: result.checks }, null, 2)}\n`);
  } else {
    process.stdout.write(report(file, kind, result));
  }
  return result.valid ? 0 : 1;
}

async function verifyDocument(bytes: Buffer, jwks: Jwks): Promise<{ kind: string; result: Verification }> {
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new CliError('the file is neither JSON nor a PDF export');
  }
  if (document === null || typeof document !== 'object') throw new CliError('the file holds JSON that is not an object');
  const object = document as Record<string, unknown>;
  if (object.receipt && typeof object.receipt === 'object') {
    const options: { record?: OperationRecord; agentPublicKey?: string } = {};
    if (object.record && typeof object.record === 'object') options.record = object.record as OperationRecord;
    if (typeof object.agent_public_key === 'string') options.agentPublicKey = object.agent_public_key;
    return { kind: 'receipt', result: verifyReceipt(object.receipt as Receipt, jwks, options) };
  }
  if ('receipt_hash' in object && 'service_signature' in object) {
    return { kind: 'receipt', result: verifyReceipt(object as unknown as Receipt, jwks) };
  }
  throw new CliError('the file is not a receipt ({receipt, record}) or a receipt object');
}

/** The JWKS from a file (offline), from a URL, or from the logged-in service. */
async function loadJwks(source: string | undefined): Promise<Jwks> {
  let location = source;
  if (location === undefined) {
    try {
      location = `${readCredentials().url}/.well-known/service/jwks.json`;
    } catch {
      throw usageError('--jwks FILE|URL is required (not logged in, so there is no service to fetch the keys from)');
    }
  }
  let jwks: unknown;
  if (/^https?:\/\//i.test(location)) {
    const url = new URL(location);
    try {
      jwks = jsonBody('GET', url, await send({ method: 'GET', url, timeoutMs: 10_000 }));
    } catch (error) {
      throw new CliError(`cannot fetch the JWKS from ${location}: ${(error as Error).message}`);
    }
  } else {
    try {
      jwks = JSON.parse(readFileSync(location, 'utf8'));
    } catch (error) {
      throw new CliError(`cannot read the JWKS file ${location}: ${(error as NodeJS.ErrnoException).code ?? 'not JSON'}`);
    }
  }
  if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as Jwks).keys)) throw new CliError(`${location} is not a JWKS ({"keys": [...]})`);
  return jwks as Jwks;
}

function report(file: string, kind: string, result: Verification): string {
  const mark = (check: Check) => (check.ok === true ? 'ok  ' : check.ok === false ? 'FAIL' : 'skip');
  const width = Math.max(...result.checks.map((check) => check.name.length));
  const lines = result.checks.map((check) => `  ${mark(check)}  ${check.name.padEnd(width)}  ${check.detail}`);
  const failed = result.checks.filter((check) => check.ok === false).length;
  const verdict = result.valid ? `${file}: ${kind} verified` : `${file}: ${kind} NOT verified (${failed} check${failed === 1 ? '' : 's'} failed)`;
  return `${lines.join('\n')}\n${verdict}\n`;
}
