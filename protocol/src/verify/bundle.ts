/**
 * verifyExportBundle: every check of docs/EXPORT.md "What the verifier checks", offline,
 * from the bundle alone (and, optionally, a JWKS you trust more than the bundled one).
 */
import { b64uDecode } from '../encoding/base64url.js';
import { bytesAt, equalBytes } from '../encoding/bytes.js';
import { sha256 } from '../crypto/hash.js';
import { canonicalBytes, canonicalEndIn } from '../encoding/jcs.js';
import { MAX_BUNDLE_DEPTH, deepestPathOver } from '../encoding/depth.js';
import { READABLE_BUNDLE_VERSIONS, type ExportBundle, type ExportHeader, type ExportOperation, type ExportSummary } from '../export/format.js';
import { checkEpochLog, type CheckedLog } from './log.js';
import { checkKeyHistory } from './keys.js';
import { checkKeyPossession } from './possession.js';
import type { AgentKeyPins } from '../keys/pins.js';
import type { KeyEvent } from '../keys/event.js';
import { checkServiceJwks, indexAgentKeys, indexEpochs, kidProblem, type TimeStampSignatureVerdict } from './material.js';
import { checkChainCompleteness, checkEpochCompleteness } from './completeness.js';
import { checkChainLinks, checkOperation, type OperationTally } from './operations.js';
import { ReportBuilder, type ExportVerificationReport } from './report.js';
import {
  BODY_SHAPE,
  BUNDLE_SHAPE,
  HEADER_SHAPE,
  JWKS_SHAPE,
  MANIFEST_SHAPE,
  MATERIAL_SHAPE,
  QUERY_SHAPE,
  SUMMARY_SHAPE,
  isHashB64u,
  shapeProblem,
} from '../export/shape.js';
import type { Jwk } from '../crypto/jwk.js';
import { verifyWithJwks } from '../crypto/jwksverify.js';

/** Options of {@link verifyExportBundle}. */
export type VerifyExportOptions = {
  /**
   * A service JWKS you trust (e.g. fetched yourself from
   * `/.well-known/service/jwks.json`, or `agent-ledger verify --jwks FILE`). When given, the
   * manifest and every receipt must verify with one of its keys instead of the bundled
   * ones, and each bundled key is compared with it.
   */
  jwks?: { keys: readonly Jwk[] };
  /**
   * The verdict on each anchor's RFC 3161 signature and certificate chain, made beforehand
   * (it needs WebCrypto, which is asynchronous: `agent-ledger verify --tsa-ca FILE` makes
   * it). Without it, anchor signatures are reported as not checked.
   */
  timestampSignature?: TimeStampSignatureVerdict;
  /**
   * The agents' keys as the auditor learned them from the agents' machines (keys/pins.ts,
   * `agent-ledger verify --agent-keys PINS`). Each agent is then reported pinned, unpinned
   * or mismatched, and a mismatch fails; without pins every agent is unpinned.
   */
  pins?: AgentKeyPins;
  /**
   * Fail every key that signed a record without a proof of possession (docs/PROTOCOL.md
   * "Proof of possession"; `agent-ledger verify --require-key-proofs`). Without it such a key
   * is reported unproven (`unproven_keys`, check `key_possession` not covered), not failed.
   */
  requireKeyProofs?: boolean;
};

/** What verifyExportBundleAndLog hands to `verify --since`: the checked epoch log and key history. */
export type CheckedHistory = { log: CheckedLog | null; keyEvents: KeyEvent[] | null };

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();
const FILE_HEAD = utf8Encoder.encode('{"body":');
const MANIFEST_HEAD = utf8Encoder.encode(',"manifest":');

function headerOf(value: unknown): ExportHeader | null {
  if (shapeProblem(value, HEADER_SHAPE) !== null) return null;
  const h = value as ExportHeader;
  if (shapeProblem(h.query, QUERY_SHAPE) !== null) return null;
  if ((h.format !== 'json' && h.format !== 'pdf') || !(h.query.start_time < h.query.end_time)) return null;
  return h;
}

/** The parsed file, and the body's canonical bytes when they were already computed. */
type Parsed = { value: unknown; bodyBytes: Uint8Array | null };

/**
 * A bundle of records within the nesting limit (docs/PROTOCOL.md) nests at most
 * MAX_BUNDLE_DEPTH levels. A deeper one is not processed: it is reported as such
 * (`cannot_process`), not as a failed check, since nothing shows it was changed.
 */
function tooDeep(report: ReportBuilder, value: unknown): boolean {
  const path = deepestPathOver(value, MAX_BUNDLE_DEPTH);
  if (path === null) return false;
  report.cannotProcess(`nesting deeper than ${MAX_BUNDLE_DEPTH} levels (at ${path}); a bundle of records within the protocol's nesting limit of docs/PROTOCOL.md is never this deep`);
  return true;
}

/** JSON.parse of the file; a TypeError when its bytes are not UTF-8, a SyntaxError when it is not JSON. */
function parseJson(input: string | Uint8Array): unknown {
  return JSON.parse(typeof input === 'string' ? input : utf8Decoder.decode(input));
}

/**
 * Parse the file, and check that it is exactly JCS of what it parses to. For a bundle the
 * check is made piecewise ('{"body":' JCS(body) ',"manifest":' JCS(manifest) '}'), so that
 * the body's canonical bytes serve the manifest digest too: one JCS pass, not two.
 */
function parseText(report: ReportBuilder, input: string | Uint8Array): Parsed | undefined | null {
  let value: unknown;
  try {
    // The decoded text is not kept past the parse: for a large bundle it is tens of MB.
    value = parseJson(input);
  } catch (error) {
    report.fail('bundle', 'bundle', error instanceof TypeError ? 'the file is not UTF-8' : 'the file is not JSON');
    return undefined;
  }
  if (tooDeep(report, value)) return null;
  const bytes = typeof input === 'string' ? utf8Encoder.encode(input) : input;
  let canonical = false;
  let bodyBytes: Uint8Array | null = null;
  try {
    if (shapeProblem(value, BUNDLE_SHAPE) === null) {
      const { body, manifest } = value as ExportBundle;
      // The body is compared with the file as it is serialized, never built whole beside it
      // (a bundle of 10,000 operations is tens of MB); when it matches, the file's own bytes
      // are the canonical body the manifest digest is over.
      const bodyEnd = bytesAt(bytes, FILE_HEAD, 0) ? canonicalEndIn(body, bytes, FILE_HEAD.byteLength) : null;
      bodyBytes = bodyEnd !== null ? bytes.subarray(FILE_HEAD.byteLength, bodyEnd) : canonicalBytes(body);
      const tail = canonicalBytes(manifest);
      canonical =
        bodyEnd !== null &&
        bytes.byteLength === bodyEnd + MANIFEST_HEAD.byteLength + tail.byteLength + 1 &&
        bytesAt(bytes, MANIFEST_HEAD, bodyEnd) &&
        bytesAt(bytes, tail, bytes.byteLength - 1 - tail.byteLength) &&
        bytes[bytes.byteLength - 1] === 0x7d;
    } else {
      const again = canonicalBytes(value);
      canonical = equalBytes(bytes, again);
    }
  } catch {
    canonical = false;
  }
  report.check('bundle', 'canonical', canonical, 'the file is not the RFC 8785 canonical form of its content (reformatted, or a member repeated)');
  return { value, bodyBytes };
}

function checkManifest(report: ReportBuilder, bundle: ExportBundle, jwks: { keys: readonly Jwk[] }, trusted: boolean, bodyBytes: Uint8Array | null): void {
  const problem = shapeProblem(bundle.manifest, MANIFEST_SHAPE);
  if (problem !== null) {
    report.fail('manifest', 'manifest_digest', problem);
    report.fail('manifest', 'manifest_signature', problem);
    return;
  }
  const m = bundle.manifest;
  let digest: Uint8Array | null = null;
  try {
    digest = sha256(bodyBytes ?? canonicalBytes(bundle.body));
  } catch {
    digest = null;
  }
  const claimed = isHashB64u(m.body_sha256) ? b64uDecode(m.body_sha256) : null;
  const same = digest !== null && claimed !== null && equalBytes(digest, claimed);
  report.check('manifest.body_sha256', 'manifest_digest', same, 'body_sha256 is not the SHA-256 of the canonical body: the body was changed');
  // Checked over the claimed digest, so that the two verdicts say which part was changed.
  const unknown = kidProblem(jwks, m.service_kid, trusted);
  const signed = unknown === null && claimed !== null && verifyWithJwks(jwks, m.service_kid, claimed, m.signature);
  report.check('manifest.signature', 'manifest_signature', signed, unknown ?? `the signature does not verify over body_sha256 with service key ${m.service_kid}`);
}

function checkSummary(report: ReportBuilder, declared: unknown, actual: ExportSummary): void {
  const problem = shapeProblem(declared, SUMMARY_SHAPE);
  if (problem !== null) return report.fail('summary', 'summary', problem);
  const d = declared as ExportSummary;
  const off = (Object.keys(actual) as (keyof ExportSummary)[]).filter((k) => d[k] !== actual[k]);
  report.check('summary', 'summary', off.length === 0, off.map((k) => `${k} is ${d[k]}, counted ${actual[k]}`).join('; '));
}

/**
 * Verify an export bundle offline (docs/EXPORT.md). `bundle` is the parsed JSON, or the
 * file's bytes or text (then the file must also be exactly canonical: check `canonical`).
 * Never throws: every problem is a finding naming the check and the place, e.g.
 * `operations[12].signature` or `epochs[3].anchor`. `valid` is true when no check failed;
 * gaps in an agent's seq_no that a filter explains, operations not yet in an epoch,
 * unanchored epochs and payloads left out are "not covered", not failures; a gap no filter
 * explains fails (completeness.ts).
 *
 * The RFC 3161 token's signature and certificate chain are judged outside (they need
 * WebCrypto) and passed in as `options.timestampSignature`; without it they are reported
 * as not checked. Nothing the bundle does not hold is checked.
 *
 * @example
 * const report = verifyExportBundle(await readFile('export.json'), { jwks: trustedJwks });
 * if (!report.valid) for (const f of report.findings) console.log(f.status, f.where, f.reason);
 */
export function verifyExportBundle(bundle: unknown, options: VerifyExportOptions = {}): ExportVerificationReport {
  return verifyExportBundleAndLog(bundle, options).report;
}

/**
 * {@link verifyExportBundle}, and the bundle's epoch log when it checked out (bundle 1.1,
 * docs/CHECKPOINTS.md): what `verify --since` compares (since.ts).
 *
 * @example
 * const { report, log } = verifyExportBundleAndLog(bytes, { jwks: trustedJwks });
 * if (report.valid && log) console.log(log.checkpoint.size);
 */
export function verifyExportBundleAndLog(bundle: unknown, options: VerifyExportOptions = {}): { report: ExportVerificationReport } & CheckedHistory {
  const report = new ReportBuilder(options.jwks === undefined ? 'bundled_jwks' : 'trusted_jwks');
  const { log, keyEvents } = verifyInto(report, bundle, options);
  return { report: report.build(), log, keyEvents };
}

/**
 * {@link verifyExportBundle} of a file's bytes, and the bundle as the verifier parsed it (null
 * when it is not a bundle this verifier reads), for a caller that reads the bundle too: one
 * parse instead of two, where a bundle of 10,000 operations is some hundred MB of objects
 * (the PDF report, docs/EXPORT.md "Memory"). The bundle is the parsed file, unchanged.
 *
 * @example
 * const { report, bundle } = verifyAndReadExportBundle(bytes);
 * if (bundle) console.log(bundle.body.operations.length, report.valid);
 */
export function verifyAndReadExportBundle(bytes: Uint8Array, options: VerifyExportOptions = {}): { report: ExportVerificationReport; bundle: ExportBundle | null } {
  const report = new ReportBuilder(options.jwks === undefined ? 'bundled_jwks' : 'trusted_jwks');
  const { bundle } = verifyInto(report, bytes, options);
  return { report: report.build(), bundle };
}

type Checked = CheckedHistory & { bundle: ExportBundle | null };

const NOTHING: Checked = { log: null, keyEvents: null, bundle: null };

function verifyInto(report: ReportBuilder, bundle: unknown, options: VerifyExportOptions): Checked {
  // A trusted JWKS that is not one trusts no key: never fall back to the bundled keys.
  const given = options.jwks;
  const trusted = given === undefined ? null : given !== null && Array.isArray(given.keys) ? given : { keys: [] };
  if (trusted !== null && trusted.keys.length === 0) report.fail('options.jwks', 'service_key', 'the trusted JWKS has no keys');
  const text = typeof bundle === 'string' || bundle instanceof Uint8Array;
  const parsed = text ? parseText(report, bundle) : { value: bundle, bodyBytes: null };
  if (parsed === undefined || parsed === null) return NOTHING;
  const value = parsed.value;
  if (!text && tooDeep(report, value)) return NOTHING;

  const top = shapeProblem(value, BUNDLE_SHAPE) ?? shapeProblem((value as ExportBundle).body, BODY_SHAPE);
  if (top !== null) {
    report.fail('bundle', 'bundle', `not an export bundle: ${top}`);
    return NOTHING;
  }
  const b = value as ExportBundle;
  const body = b.body;
  report.bundleVersion = body.bundle_version;
  if (!READABLE_BUNDLE_VERSIONS.includes(body.bundle_version)) {
    report.fail('bundle', 'bundle', `bundle_version ${body.bundle_version} is not one this verifier reads (${READABLE_BUNDLE_VERSIONS.join(', ')})`);
    return NOTHING;
  }
  const material = body.verification_material;
  const materialProblem = shapeProblem(material, MATERIAL_SHAPE) ?? shapeProblem(material.service_jwks, JWKS_SHAPE);
  if (materialProblem !== null) {
    report.fail('verification_material', 'bundle', materialProblem);
    return NOTHING;
  }
  const header = headerOf(body.export);
  report.header = header;
  report.check('export', 'bundle', header !== null, 'export is not a well-formed header (docs/EXPORT.md)');

  const bundledJwks = material.service_jwks as { keys: Jwk[] };
  const jwks = trusted ?? bundledJwks;
  checkManifest(report, b, jwks, trusted !== null, parsed.bodyBytes);
  checkServiceJwks(report, bundledJwks.keys, trusted?.keys ?? null);

  const keys = indexAgentKeys(material.agent_keys);
  const epochs = indexEpochs(report, material.epochs, header?.org_id ?? null, options.timestampSignature);
  const tally: OperationTally = { agents: new Set(), proofs: 0, payloads: 0, omittedPayloads: 0, receiptKids: new Map() };
  const ctx = { report, header, keys, epochs, jwks, trusted: trusted !== null };
  const checked: (ExportOperation | null)[] = [];
  let previous: ExportOperation | null = null;
  body.operations.forEach((raw: unknown, i: number) => {
    const op = checkOperation(ctx, i, raw, tally, previous);
    checked.push(op);
    if (op !== null) previous = op;
  });
  checkChainLinks(report, checked);
  if (header !== null) {
    checkChainCompleteness(report, header, checked);
    checkEpochCompleteness(report, header, epochs);
  }
  // docs/EXPORT.md: the bundled JWKS holds every receipt's service_kid; one it no longer lists is flagged.
  for (const [kid, i] of tally.receiptKids) {
    if (kidProblem(bundledJwks, kid, false) !== null) {
      report.fail('service_jwks', 'service_key', `the bundled JWKS does not list service key ${kid}, which signed operations[${i}].receipt`);
    }
  }
  if (tally.omittedPayloads > 0) {
    report.notCovered('export.include_payloads', 'payload', `payloads were left out of the export (${tally.omittedPayloads} operations)`, tally.omittedPayloads);
  }

  for (const k of keys.values()) {
    const reason = k.problem ?? (k.used ? null : 'signed no record of this bundle');
    report.check(`agent_keys[${k.index}]`, 'agent_key', reason === null, reason ?? '');
  }
  for (const e of epochs.values()) {
    const reason = e.problem ?? (e.used ? null : "no operation's proof points to this epoch");
    report.check(`epochs[${e.index}]`, 'epoch', reason === null, reason ?? '');
  }

  report.counts = {
    operations: body.operations.length,
    agents: tally.agents.size,
    agent_keys: material.agent_keys.length,
    epochs: material.epochs.length,
    anchored_epochs: report.counts.anchored_epochs,
  };
  checkSummary(report, body.summary, {
    operations: body.operations.length,
    agents: tally.agents.size,
    agent_keys: material.agent_keys.length,
    epochs: material.epochs.length,
    proofs: tally.proofs,
    payloads: tally.payloads,
  });
  const log = checkEpochLog(report, body, header, jwks);
  const keyEvents = checkKeyHistory(report, { body, header, log, operations: checked, keys, pins: options.pins ?? null });
  checkKeyPossession(report, { body, keys, events: keyEvents, requireKeyProofs: options.requireKeyProofs === true });
  return { log, keyEvents, bundle: b };
}
