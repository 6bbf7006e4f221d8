/**
 * `agent-ledger verify FILE [--jwks FILE|URL] [--since OLDER] [--json]`: checks, offline when the JWKS is a
 * file, a receipt (with the record it acknowledges, as `agent-ledger submit` writes it), a
 * JSON export bundle (docs/EXPORT.md, through verifyExportBundle), or a PDF export (the
 * bundle it embeds). Prints one line per check; exits 0 only when every check that ran passed.
 * With `--since OLDER` (an earlier export, JSON or PDF), FILE must also extend OLDER's epoch
 * log (docs/CHECKPOINTS.md "Extending an earlier export").
 */
import { readFileSync } from 'node:fs';
import type { ExportVerificationReport, Jwk, OperationRecord, Receipt } from '@agent-ledger/protocol';
import { jsonBody, send } from '../../sdk/http.js';
import { verifyReceipt, type Check, type Verification } from '../../sdk/verify-receipt.js';
import { readCredentials } from '../../local/credentials.js';
import { parseOptions } from '../args.js';
import { CliError, usageError } from '../errors.js';

type Jwks = { keys: Jwk[] };

export async function verify(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(args, { jwks: { type: 'string' }, json: { type: 'boolean' }, since: { type: 'string' } }, 1);
  const file = positionals[0];
  if (!file) throw usageError('verify needs a FILE (a receipt JSON, an export bundle or a PDF export)');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (values.since !== undefined) return verifySince(file, bytes, values.since, values.jwks, values.json);
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
    const bundle = await bundleOfPdf(bytes);
    return exportVerdict(file, 'PDF export', await verifyBundle(bundle, values.jwks), values.json);
  }
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new CliError(`${file} is neither JSON nor a PDF export`);
  }
  if (document === null || typeof document !== 'object') throw new CliError(`${file} holds JSON that is not an object`);
  if ('body' in document && 'manifest' in document) return exportVerdict(file, 'export bundle', await verifyBundle(bytes, values.jwks), values.json);

  const { kind, result } = verifyReceiptDocument(document as Record<string, unknown>, await loadJwks(values.jwks));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ file, kind, valid: result.valid, checks: result.checks }, null, 2)}\n`);
  } else {
    process.stdout.write(report(file, kind, result));
  }
  return result.valid ? 0 : 1;
}

function verifyReceiptDocument(object: Record<string, unknown>, jwks: Jwks): { kind: string; result: Verification } {
  if (object.receipt && typeof object.receipt === 'object') {
    const options: { record?: OperationRecord; agentPublicKey?: string } = {};
    if (object.record && typeof object.record === 'object') options.record = object.record as OperationRecord;
    if (typeof object.agent_public_key === 'string') options.agentPublicKey = object.agent_public_key;
    return { kind: 'receipt', result: verifyReceipt(object.receipt as Receipt, jwks, options) };
  }
  if ('receipt_hash' in object && 'service_signature' in object) {
    return { kind: 'receipt', result: verifyReceipt(object as unknown as Receipt, jwks) };
  }
  throw new CliError('the file is not a receipt ({receipt, record}), a receipt object or an export bundle ({body, manifest})');
}

/**
 * An export bundle's report. With --jwks the manifest and every receipt must verify with
 * those keys; without, they are checked against the bundle's own JWKS, which proves only
 * that the bundle is self-consistent (docs/EXPORT.md, Trust), and the report says so.
 */
async function verifyBundle(bundle: Uint8Array, jwksSource: string | undefined): Promise<ExportVerificationReport> {
  const { verifyExportBundle } = await import('@agent-ledger/protocol');
  const jwks = jwksSource === undefined ? undefined : await loadJwks(jwksSource);
  return verifyExportBundle(bundle, jwks === undefined ? {} : { jwks });
}

/** The bundle bytes of a JSON export or of the one a PDF export embeds. */
async function bundleBytes(file: string, bytes: Buffer): Promise<Uint8Array> {
  return bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? bundleOfPdf(bytes) : bytes;
}

/** `verify NEW --since OLDER`: both verify, and NEW's epoch log extends OLDER's (docs/CHECKPOINTS.md). */
async function verifySince(file: string, bytes: Buffer, olderFile: string, jwksSource: string | undefined, json: boolean | undefined): Promise<number> {
  let olderBytes: Buffer;
  try {
    olderBytes = readFileSync(olderFile);
  } catch (error) {
    throw new CliError(`cannot read ${olderFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { verifyExtends } = await import('@agent-ledger/protocol');
  const jwks = jwksSource === undefined ? undefined : await loadJwks(jwksSource);
  const result = verifyExtends(await bundleBytes(olderFile, olderBytes), await bundleBytes(file, bytes), jwks === undefined ? {} : { jwks });
  if (json) {
    process.stdout.write(`${JSON.stringify({ file, since: olderFile, valid: result.valid, sizes: result.sizes, consistency_proof: result.consistency_proof, findings: result.findings, older: { valid: result.older.valid, findings: result.older.findings }, newer: { valid: result.newer.valid, findings: result.newer.findings } }, null, 2)}\n`);
    return result.valid ? 0 : 1;
  }
  const lines = result.findings.map((f) => `  failed: ${f.where}: ${f.reason}`);
  for (const [name, side] of [['older', result.older], ['newer', result.newer]] as const) {
    for (const f of side.findings.filter((x) => x.status === 'failed').slice(0, 10)) lines.push(`  ${name}: failed: ${f.where}: ${f.reason}`);
  }
  const sizes = result.sizes ? `epoch log: ${result.sizes.older} epochs in ${olderFile}, ${result.sizes.newer} in ${file}` : 'epoch log: not comparable';
  const trust = jwks === undefined ? 'trust: checkpoints checked against the JWKS inside the bundles only; pass --jwks FILE|URL' : 'trust: checkpoints checked against the JWKS you gave';
  const verdict = result.valid ? `${file}: extends ${olderFile} (consistency proof verified)` : `${file}: does NOT extend ${olderFile}`;
  process.stdout.write([sizes, ...lines, trust, verdict].join('\n') + '\n');
  return result.valid ? 0 : 1;
}

async function bundleOfPdf(pdf: Buffer): Promise<Uint8Array> {
  const { pdfAttachments } = await import('../../verify/pdf-attachment.js');
  let attachments;
  try {
    attachments = await pdfAttachments(pdf);
  } catch (error) {
    throw new CliError(`the PDF cannot be read: ${(error as Error).message}`);
  }
  const bundles = attachments.filter((file) => file.name.toLowerCase().endsWith('.json'));
  if (bundles.length !== 1) {
    throw new CliError(`the PDF embeds ${bundles.length === 0 ? 'no' : bundles.length} JSON file${bundles.length === 1 ? '' : 's'} (attachments: ${attachments.map((a) => a.name).join(', ') || 'none'}); a PDF export embeds exactly its bundle`);
  }
  return bundles[0]!.bytes;
}

function exportVerdict(file: string, kind: string, result: ExportVerificationReport, json: boolean | undefined): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ file, kind, valid: result.valid, trust: result.trust, counts: result.counts, checks: result.checks, findings: result.findings }, null, 2)}\n`);
    return result.valid ? 0 : 1;
  }
  const names = Object.keys(result.checks) as (keyof typeof result.checks)[];
  const width = Math.max(...names.map((name) => name.length));
  const lines = names
    .filter((name) => result.checks[name].passed + result.checks[name].failed + result.checks[name].not_covered > 0)
    .map((name) => {
      const { passed, failed, not_covered: notCovered } = result.checks[name];
      const mark = failed > 0 ? 'FAIL' : passed > 0 ? 'ok  ' : 'skip';
      const parts = [`${passed} passed`, ...(failed ? [`${failed} failed`] : []), ...(notCovered ? [`${notCovered} not covered`] : [])];
      return `  ${mark}  ${name.padEnd(width)}  ${parts.join(', ')}`;
    });
  const failures = result.findings.filter((finding) => finding.status === 'failed');
  const shown = failures.slice(0, 20).map((finding) => `  failed: ${finding.where}: ${finding.reason}`);
  if (failures.length > shown.length) shown.push(`  ... and ${failures.length - shown.length} more (--json lists them all)`);
  const c = result.counts;
  const trust =
    result.trust === 'trusted_jwks'
      ? 'signatures checked against the JWKS you gave'
      : 'signatures checked against the JWKS inside the bundle only: this proves the bundle is self-consistent, not that the service made it; pass --jwks FILE|URL with the service keys you trust';
  const verdict = result.valid ? `${file}: ${kind} verified` : `${file}: ${kind} NOT verified (${failures.length} finding${failures.length === 1 ? '' : 's'} failed)`;
  process.stdout.write(
    [`${c.operations} operations of ${c.agents} agents, ${c.agent_keys} agent keys, ${c.epochs} epochs (${c.anchored_epochs} anchored)`, ...lines, ...shown, `trust: ${trust}`, verdict].join('\n') + '\n',
  );
  return result.valid ? 0 : 1;
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
