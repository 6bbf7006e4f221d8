/**
 * `agent-ledger verify FILE [--jwks FILE|URL] [--tsa-ca FILE] [--since OLDER] [--json]`: checks,
 * offline when the JWKS is a file, a receipt (with the record it acknowledges, as `agent-ledger
 * submit` writes it), a JSON export bundle (docs/EXPORT.md, through verifyExportBundle), or a
 * PDF export (the bundle it embeds, and the service's signature over the PDF's bytes). Prints
 * one line per check; the exit codes are VERIFY_EXIT's. With `--since OLDER` (an earlier
 * export, JSON or PDF), FILE must also extend OLDER's epoch log (docs/CHECKPOINTS.md
 * "Extending an earlier export").
 */
import { readFileSync } from 'node:fs';
import type { AgentKeyPins, ExportVerificationReport, Jwk, OperationRecord, Receipt } from '@agent-ledger/protocol';
import { jsonBody, send } from '../../sdk/http.js';
import { verifyReceipt, type Check, type Verification } from '../../sdk/verify-receipt.js';
import { readCredentials } from '../../local/credentials.js';
import { parseOptions } from '../args.js';
import { CliError, usageError } from '../errors.js';
import type { PagesVerdict } from '../../verify/pdf-pages.js';

type Jwks = { keys: Jwk[] };

/**
 * The exit codes of `agent-ledger verify` (docs/EXPORT.md "Exit codes of agent-ledger verify").
 * 2 is every command's wrong usage (cli/errors.ts).
 */
const VERIFY_EXIT = {
  /** every check passed, against the service keys you gave (and, for a PDF, its pages are signed by one) */
  verified: 0,
  /** a check failed: the file is not what it claims */
  failed: 1,
  /** nothing failed, but it was not verified against your trust anchors: no --jwks (only the keys inside the file), or a PDF whose pages carry no service signature */
  notTrusted: 3,
  /** the export could not be processed at all (nested deeper than the protocol allows): neither verified nor shown to be changed */
  cannotProcess: 4,
} as const;

const VERIFY_HELP = `agent-ledger verify FILE [--jwks FILE|URL] [--tsa-ca FILE] [--agent-keys PINS] [--require-key-proofs] [--since OLDER] [--json]

Verify a receipt (with its record), a JSON export bundle or a PDF export (docs/EXPORT.md).

  --jwks FILE|URL  the service's JWKS you trust, fetched yourself from
                   GET /.well-known/service/jwks.json (or pinned earlier). Without it an
                   export is checked against the keys inside the file only, which anyone
                   can replace: "not verified against a trusted JWKS".
  --tsa-ca FILE    the certificate (PEM or DER) of the time-stamping authority you trust, as
                   the TSA publishes it: every RFC 3161 anchor's CMS signature and certificate
                   chain is checked against it. Without it the anchors' imprint and time are
                   checked, their signatures are not (the report says so).
  --agent-keys PINS  the agents' own public keys, a JSON object of agent id to JWKs or RFC 7638
                   thumbprints, as \`agent-ledger agent keys --export\` prints them on each
                   agent's machine. Each agent is reported pinned, unpinned or mismatched; a key
                   the pins do not list (one the service put in place of the agent's) fails.
  --require-key-proofs  fail when a key that signed a record was registered without its
                   proof of possession (docs/PROTOCOL.md "Proof of possession"). Without it
                   such keys are listed by agent and kid as a warning.
  --since OLDER    an earlier export (JSON or PDF) this one must extend: the epochs both hold
                   are the same, the newer checkpoint is consistent with the older one
                   (docs/CHECKPOINTS.md), and every agent's key history extends the older
                   one's; a rewritten or dropped epoch or key event fails.
  --json           the full report as JSON.

Exit codes:
  0  verified: every check passed against the JWKS you gave (a PDF's pages too)
  1  NOT verified: a check failed (the report names the place), or the file cannot be read
  2  wrong usage
  3  no check failed, but not verified against your trust anchors: signatures consistent
     with the keys inside the file (no --jwks), or a PDF whose pages carry no service signature
  4  NOT checked: the export cannot be processed (nested deeper than the protocol allows)
`;

export async function verify(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { jwks: { type: 'string' }, 'tsa-ca': { type: 'string' }, 'agent-keys': { type: 'string' }, json: { type: 'boolean' }, 'require-key-proofs': { type: 'boolean' }, since: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    1,
  );
  if (values.help) {
    process.stdout.write(VERIFY_HELP);
    return 0;
  }
  const file = positionals[0];
  if (!file) throw usageError('verify needs a FILE (a receipt JSON, an export bundle or a PDF export)');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const pins = values['agent-keys'] === undefined ? undefined : await loadPins(values['agent-keys']);
  if (values.since !== undefined) return verifySince(file, bytes, values.since, values.jwks, values.json, pins);
  const options: ExportOptions = { jwksSource: values.jwks, tsaCa: values['tsa-ca'], pins, requireKeyProofs: values['require-key-proofs'] === true };
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
    const bundle = await bundleOfPdf(bytes);
    const verified = await verifyBundle(bundle, options);
    const { pdfPagesVerdict } = await import('../../verify/pdf-pages.js');
    return exportVerdict(file, 'PDF export', verified, values.json, pdfPagesVerdict(bytes, verified.jwks, verified.report.trust === 'trusted_jwks'));
  }
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new CliError(`${file} is neither JSON nor a PDF export`);
  }
  if (document === null || typeof document !== 'object') throw new CliError(`${file} holds JSON that is not an object`);
  if ('body' in document && 'manifest' in document) return exportVerdict(file, 'export bundle', await verifyBundle(bytes, options), values.json, null);

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

type ExportOptions = { jwksSource: string | undefined; tsaCa: string | undefined; pins: AgentKeyPins | undefined; requireKeyProofs: boolean };

/** --agent-keys PINS: the agents' own keys (docs/EXPORT.md "Pinned agent keys"); a bad file is wrong usage. */
async function loadPins(file: string): Promise<AgentKeyPins> {
  const { parseAgentKeyPins } = await import('@agent-ledger/protocol');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read --agent-keys ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return parseAgentKeyPins(JSON.parse(text));
  } catch (error) {
    throw usageError(`--agent-keys ${file}: ${(error as Error).message}`);
  }
}


/**
 * An export bundle's report. With --jwks the manifest and every receipt must verify with
 * those keys; without, they are checked against the bundle's own JWKS, which proves only
 * that the bundle is self-consistent (docs/EXPORT.md, Trust), and the report says so. With
 * --tsa-ca every anchor's token is checked against that certificate first
 * (verify/timestamp-signature.ts), and the verdicts go into the report.
 */
async function verifyBundle(bundle: Uint8Array, options: ExportOptions): Promise<{ report: ExportVerificationReport; jwks: Jwks }> {
  const { verifyExportBundle } = await import('@agent-ledger/protocol');
  const trusted = options.jwksSource === undefined ? undefined : await loadJwks(options.jwksSource);
  let timestampSignature: ((token: string) => string | null | undefined) | undefined;
  if (options.tsaCa !== undefined) {
    const { readCertificates, timestampVerdicts } = await import('../../verify/timestamp-signature.js');
    let certificates;
    try {
      certificates = readCertificates(readFileSync(options.tsaCa));
    } catch (error) {
      throw new CliError(`cannot read the TSA certificate ${options.tsaCa}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(Buffer.from(bundle).toString('utf8'));
    } catch {
      // not JSON: the verifier reports it
    }
    const verdicts = await timestampVerdicts(parsed, certificates);
    timestampSignature = (token) => verdicts.get(token);
  }
  const report = verifyExportBundle(bundle, { ...(trusted === undefined ? {} : { jwks: trusted }), ...(timestampSignature ? { timestampSignature } : {}), ...(options.pins ? { pins: options.pins } : {}), requireKeyProofs: options.requireKeyProofs });
  let jwks: Jwks = trusted ?? { keys: [] };
  if (trusted === undefined) {
    try {
      const keys = (JSON.parse(Buffer.from(bundle).toString('utf8')) as { body: { verification_material: { service_jwks: Jwks } } }).body.verification_material.service_jwks.keys;
      if (Array.isArray(keys)) jwks = { keys };
    } catch {
      // the verifier already reported the bundle as unreadable
    }
  }
  return { report, jwks };
}

/** The bundle bytes of a JSON export or of the one a PDF export embeds. */
async function bundleBytes(file: string, bytes: Buffer): Promise<Uint8Array> {
  return bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? bundleOfPdf(bytes) : bytes;
}

/** `verify NEW --since OLDER`: both verify, and NEW's epoch log extends OLDER's (docs/CHECKPOINTS.md). */
async function verifySince(file: string, bytes: Buffer, olderFile: string, jwksSource: string | undefined, json: boolean | undefined, pins: AgentKeyPins | undefined): Promise<number> {
  let olderBytes: Buffer;
  try {
    olderBytes = readFileSync(olderFile);
  } catch (error) {
    throw new CliError(`cannot read ${olderFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { verifyExtends } = await import('@agent-ledger/protocol');
  const jwks = jwksSource === undefined ? undefined : await loadJwks(jwksSource);
  const result = verifyExtends(await bundleBytes(olderFile, olderBytes), await bundleBytes(file, bytes), { ...(jwks === undefined ? {} : { jwks }), ...(pins ? { pins } : {}) });
  // Verified only against the auditor's keys: without --jwks a valid extension is 3, as for one export.
  const code = !result.valid ? VERIFY_EXIT.failed : jwks === undefined ? VERIFY_EXIT.notTrusted : VERIFY_EXIT.verified;
  if (json) {
    process.stdout.write(`${JSON.stringify({ file, since: olderFile, valid: result.valid, exit_code: code, sizes: result.sizes, consistency_proof: result.consistency_proof, findings: result.findings, older: { valid: result.older.valid, findings: result.older.findings }, newer: { valid: result.newer.valid, findings: result.newer.findings, agents: result.newer.agents } }, null, 2)}\n`);
    return code;
  }
  const lines = result.findings.map((f) => `  failed: ${f.where}: ${f.reason}`);
  for (const [name, side] of [['older', result.older], ['newer', result.newer]] as const) {
    for (const f of side.findings.filter((x) => x.status === 'failed').slice(0, 10)) lines.push(`  ${name}: failed: ${f.where}: ${f.reason}`);
  }
  const sizes = result.sizes ? `epoch log: ${result.sizes.older} epochs in ${olderFile}, ${result.sizes.newer} in ${file}` : 'epoch log: not comparable';
  lines.push(...agentLines(result.newer));
  const trust = jwks === undefined ? 'trust: checkpoints checked against the JWKS inside the bundles only; pass --jwks FILE|URL' : 'trust: checkpoints checked against the JWKS you gave';
  const verdict = result.valid ? `${file}: extends ${olderFile} (consistency proof verified)` : `${file}: does NOT extend ${olderFile}`;
  process.stdout.write([sizes, ...lines, trust, verdict].join('\n') + '\n');
  return code;
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

/** One line per agent: its keys pinned, unpinned (the bundle's word only) or mismatched (docs/EXPORT.md "Pinned agent keys"). */
const failuresOf = (report: ExportVerificationReport) => report.findings.filter((finding) => finding.status === 'failed');

function agentLines(report: ExportVerificationReport): string[] {
  return report.agents.map((a) => `  agent ${a.agent_id}: ${a.pin}${a.unpinned_keys.length > 0 ? ` (not pinned: ${a.unpinned_keys.join(', ')})` : ''}`);
}

/** 0, 1, 3 or 4 (VERIFY_EXIT) for a report and, for a PDF, the verdict on its pages. */
function exitCode(result: ExportVerificationReport, pages: PagesVerdict | null): number {
  if (result.cannot_process !== null) return VERIFY_EXIT.cannotProcess;
  if (!result.valid || pages?.status === 'failed') return VERIFY_EXIT.failed;
  if (result.trust !== 'trusted_jwks' || pages?.status === 'not_verified') return VERIFY_EXIT.notTrusted;
  return VERIFY_EXIT.verified;
}

function exportVerdict(file: string, kind: string, verified: { report: ExportVerificationReport }, json: boolean | undefined, pages: PagesVerdict | null): number {
  const result = verified.report;
  const code = exitCode(result, pages);
  const anchors = result.checks.anchor_signature;
  const timestamps =
    result.counts.anchored_epochs === 0
      ? 'no epoch is anchored'
      : anchors.not_covered > 0
        ? "the time-stamps' signatures were not checked (pass --tsa-ca FILE, the certificate the TSA publishes)"
        : anchors.failed > 0
          ? `${anchors.failed} time-stamp signature${anchors.failed === 1 ? '' : 's'} did not verify against the TSA certificate you gave`
          : 'every time-stamp is signed by the TSA certificate you gave';
  if (json) {
    const out = { file, kind, valid: result.valid, verified: code === VERIFY_EXIT.verified, exit_code: code, cannot_process: result.cannot_process, trust: result.trust, timestamps, ...(pages ? { pages } : {}), counts: result.counts, checks: result.checks, findings: result.findings, agents: result.agents, unproven_keys: result.unproven_keys };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return code;
  }
  if (result.cannot_process !== null) {
    // Neither verified nor shown to be changed: say so, with an exit code of its own.
    process.stdout.write(`${file}: ${kind} NOT checked: ${result.cannot_process}\n`);
    return code;
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
  if (pages) lines.push(`  ${pages.status === 'passed' ? 'ok  ' : pages.status === 'failed' ? 'FAIL' : 'skip'}  ${'pages'.padEnd(width)}  ${pages.reason}`);
  lines.push(...agentLines(result));
  // Unproven keys are a warning unless --require-key-proofs made them failures (listed below then).
  if (!failuresOf(result).some((finding) => finding.check === 'key_possession')) {
    lines.push(...result.unproven_keys.map((k) => `  warning: agent ${k.agent_id} key ${k.kid}: possession not proven (${k.reason}); --require-key-proofs fails on it`));
  }
  const failures = failuresOf(result);
  const shown = failures.slice(0, 20).map((finding) => `  failed: ${finding.where}: ${finding.reason}`);
  if (failures.length > shown.length) shown.push(`  ... and ${failures.length - shown.length} more (--json lists them all)`);
  if (pages?.status === 'failed') shown.push(`  failed: pages: ${pages.reason}`);
  const c = result.counts;
  const trust =
    result.trust === 'trusted_jwks'
      ? 'signatures checked against the JWKS you gave'
      : 'signatures consistent with the keys inside the file; not verified against a trusted JWKS (pass --jwks FILE|URL with the service keys you fetched yourself)';
  const failedCount = failures.length + (pages?.status === 'failed' ? 1 : 0);
  const verdict =
    code === VERIFY_EXIT.verified
      ? `${file}: ${kind} verified`
      : code === VERIFY_EXIT.failed
        ? `${file}: ${kind} NOT verified (${failedCount} finding${failedCount === 1 ? '' : 's'} failed)`
        : `${file}: ${kind} NOT verified against your trust anchors (no check failed; ${result.trust === 'trusted_jwks' ? 'the pages carry no service signature' : 'no --jwks given'})`;
  process.stdout.write(
    [`${c.operations} operations of ${c.agents} agents, ${c.agent_keys} agent keys, ${c.epochs} epochs (${c.anchored_epochs} anchored)`, ...lines, ...shown, `trust: ${trust}`, `time-stamps: ${timestamps}`, verdict].join('\n') + '\n',
  );
  return code;
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
