/**
 * Checks of `body.verification_material` (docs/EXPORT.md): the service JWKS, the agent
 * keys and the epochs with their RFC 3161 anchors. Each part is indexed for the operation
 * checks; whether every key and epoch is actually used is judged after the operations.
 */
import { b64Decode } from '../encoding/base64.js';
import { b64uDecode, isB64u } from '../encoding/base64url.js';
import { ANCHOR_SHAPE, AGENT_KEY_SHAPE, EPOCH_ENTRY_SHAPE, EPOCH_SHAPE, SERVICE_JWK_SHAPE, isHashB64u, shapeProblem } from '../export/shape.js';
import type { ExportAgentKey, ExportEpochAnchor, ExportEpochRecord } from '../export/format.js';
import type { ReportBuilder } from './report.js';
import { jwkThumbprint, type Jwk } from '../crypto/jwk.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { SHA256_OID, readTimeStampToken } from '../timestamp/token.js';
import { publicKeyProblem } from '../crypto/curve.js';

/**
 * How long after its epoch's window ends an anchor's genTime may be and still count as on
 * time (docs/EXPORT.md "Time-stamps"): the sealer waits a grace period, then asks the TSA, and
 * retries a failed TSA later; a day covers an outage. A root stamped later than that could
 * have been made up after the fact, when its operations were no longer fresh.
 */
export const ANCHOR_LATE_BOUND_MS = 24 * 60 * 60 * 1000;

/**
 * The verdict on one RFC 3161 token's CMS signature and certificate chain, made outside the
 * pure verifier (it needs WebCrypto and X.509 path validation: client/src/verify/timestamp-signature.ts):
 * null when the token is signed by a TSA that chains to the certificate the auditor trusts,
 * else why not. undefined: not checked.
 */
export type TimeStampSignatureVerdict = (tsaToken: string) => string | null | undefined;

/** An agent key of the bundle, with what the operations made of it. */
export type IndexedKey = { index: number; key: ExportAgentKey; problem: string | null; used: boolean };

/** An epoch of the bundle, with what the operations made of it. */
export type IndexedEpoch = { index: number; epoch: ExportEpochRecord; problem: string | null; used: boolean; leaves: Set<number> };

function keyOf(agentId: string, kid: string): string {
  return `${agentId}\u0000${kid}`;
}

/** The index key of an agent key: (agent_id, kid). */
export const agentKeyIndex = keyOf;

/**
 * Check every JWK of the bundled service JWKS; with a trusted JWKS, also that each bundled
 * key agrees with it (a kid it does not list is not covered).
 *
 * @example
 * checkServiceJwks(report, bundle.body.verification_material.service_jwks.keys, trusted);
 */
export function checkServiceJwks(report: ReportBuilder, keys: readonly unknown[], trusted: readonly Jwk[] | null): void {
  const seen = new Set<string>();
  keys.forEach((jwk, i) => {
    const where = `service_jwks.keys[${i}]`;
    const problem = shapeProblem(jwk, SERVICE_JWK_SHAPE);
    if (problem !== null) return report.fail(where, 'service_key', problem);
    const k = jwk as Required<Jwk> & Record<string, string>;
    if (k.kty !== 'OKP' || k.crv !== 'Ed25519' || k.alg !== 'EdDSA' || k.use !== 'sig' || !isB64u(k.x, 32)) {
      return report.fail(where, 'service_key', 'not an Ed25519 signing JWK (kty OKP, crv Ed25519, alg EdDSA, use sig, 32-byte x)');
    }
    if (k.kid !== jwkThumbprint(k)) return report.fail(where, 'service_key', 'kid is not the RFC 7638 thumbprint of the key');
    if (seen.has(k.kid)) return report.fail(where, 'service_key', `kid ${k.kid} is listed twice`);
    seen.add(k.kid);
    if (trusted === null) return report.pass('service_key');
    const match = trusted.find((t) => t !== null && typeof t === 'object' && t.kid === k.kid);
    if (match === undefined) return report.notCovered(where, 'service_key', `kid ${k.kid} is not in the trusted JWKS`);
    report.check(where, 'service_key', match.x === k.x, `kid ${k.kid} names another key in the trusted JWKS`);
  });
}

/**
 * Index the agent keys by (agent_id, kid), noting shape and order problems (judged later,
 * together with whether a record used the key).
 *
 * @example
 * const keys = indexAgentKeys(bundle.body.verification_material.agent_keys);
 */
export function indexAgentKeys(keys: readonly unknown[]): Map<string, IndexedKey> {
  const index = new Map<string, IndexedKey>();
  let previous: string | null = null;
  keys.forEach((raw, i) => {
    let problem = shapeProblem(raw, AGENT_KEY_SHAPE);
    const key = raw as ExportAgentKey;
    if (problem === null && (key.algorithm !== 'ed25519' || !isB64u(key.public_key, 32))) {
      problem = 'not a 32-byte base64url Ed25519 public key with algorithm ed25519';
    }
    if (problem === null) {
      // docs/PROTOCOL.md Notation: a small-order key lets anyone forge; a non-canonical one is refused at registration.
      const pointProblem = publicKeyProblem(b64uDecode(key.public_key));
      if (pointProblem !== undefined) problem = `public_key ${pointProblem}`;
    }
    if (problem !== null) {
      index.set(`#${i}`, { index: i, key, problem, used: false });
      return;
    }
    const id = keyOf(key.agent_id, key.kid);
    if (index.has(id)) problem = `agent ${key.agent_id} key ${key.kid} is listed twice`;
    else if (previous !== null && id < previous) problem = 'agent_keys are not sorted by (agent_id, kid)';
    previous = id;
    index.set(index.has(id) ? `#${i}` : id, { index: i, key, problem, used: false });
  });
  return index;
}

/**
 * Index the epochs by epoch_id, noting shape, organization and order problems, and check
 * each anchor's RFC 3161 token against the epoch root (docs/PROTOCOL.md "RFC 3161 anchor").
 *
 * @example
 * const epochs = indexEpochs(report, bundle.body.verification_material.epochs, header.org_id);
 */
export function indexEpochs(
  report: ReportBuilder,
  entries: readonly unknown[],
  orgId: string | null,
  signatureVerdict?: TimeStampSignatureVerdict,
): Map<string, IndexedEpoch> {
  const index = new Map<string, IndexedEpoch>();
  const unchecked: string[] = [];
  let previousStart = -1;
  entries.forEach((raw, i) => {
    let problem = shapeProblem(raw, EPOCH_ENTRY_SHAPE);
    const entry = raw as { epoch: ExportEpochRecord; anchor?: unknown };
    if (problem === null) problem = shapeProblem(entry.epoch, EPOCH_SHAPE);
    if (problem !== null) {
      index.set(`#${i}`, { index: i, epoch: entry?.epoch, problem, used: false, leaves: new Set() });
      return;
    }
    const { epoch } = entry;
    if (!isHashB64u(epoch.root_hash)) problem = 'root_hash is not 32 bytes of base64url';
    else if (epoch.leaf_count < 1) problem = 'leaf_count must be at least 1';
    else if (!(epoch.start_time < epoch.end_time)) problem = 'window is empty (start_time >= end_time)';
    else if (orgId !== null && epoch.org_id !== orgId) problem = `belongs to organization ${epoch.org_id}, not ${orgId}`;
    else if (index.has(epoch.epoch_id)) problem = `epoch ${epoch.epoch_id} is listed twice`;
    else if (epoch.start_time <= previousStart) problem = 'epochs are not sorted by start_time';
    previousStart = Math.max(previousStart, epoch.start_time);
    index.set(index.has(epoch.epoch_id) ? `#${i}` : epoch.epoch_id, { index: i, epoch, problem, used: false, leaves: new Set() });
    if (!Object.hasOwn(entry, 'anchor')) {
      report.notCovered(`epochs[${i}].anchor`, 'anchor', 'the epoch has no RFC 3161 anchor');
      return;
    }
    const where = `epochs[${i}].anchor`;
    const reason = anchorProblem(entry.anchor, epoch);
    if (reason === null) report.counts.anchored_epochs += 1;
    if (!report.check(where, 'anchor', reason === null, reason ?? '')) return;
    const anchor = entry.anchor as ExportEpochAnchor;
    const late = anchor.anchored_at - epoch.end_time;
    report.check(
      where,
      'anchor_time',
      anchor.anchored_at >= epoch.end_time && late <= ANCHOR_LATE_BOUND_MS,
      anchor.anchored_at < epoch.end_time
        ? `genTime ${new Date(anchor.anchored_at).toISOString()} is before the epoch's window ended (${new Date(epoch.end_time).toISOString()}): the root cannot have existed yet`
        : `late: genTime ${new Date(anchor.anchored_at).toISOString()} is ${Math.round(late / 60_000)} minutes after the epoch's window ended, more than the ${ANCHOR_LATE_BOUND_MS / 3_600_000} h bound`,
    );
    const verdict = signatureVerdict?.(anchor.tsa_token);
    if (verdict === undefined) unchecked.push(where);
    else report.check(where, 'anchor_signature', verdict === null, verdict ?? '');
  });
  if (unchecked.length > 0) {
    report.notCovered(
      unchecked.length === 1 ? (unchecked[0] as string) : 'epochs',
      'anchor_signature',
      `the time-stamps' signatures were not checked (${unchecked.length} token${unchecked.length === 1 ? '' : 's'}): no TSA certificate was given to check them against (agent-ledger verify --tsa-ca FILE)`,
      unchecked.length,
    );
  }
  return index;
}

/** null when the anchor's token attests exactly this epoch's root (docs/PROTOCOL.md "RFC 3161 anchor"). */
function anchorProblem(anchor: unknown, epoch: ExportEpochRecord): string | null {
  const problem = shapeProblem(anchor, ANCHOR_SHAPE);
  if (problem !== null) return problem;
  const a = anchor as ExportEpochAnchor;
  let token: Uint8Array;
  try {
    token = b64Decode(a.tsa_token);
  } catch {
    return 'tsa_token is not padded standard base64';
  }
  let info;
  try {
    info = readTimeStampToken(token);
  } catch (err) {
    return `tsa_token: ${err instanceof ProtocolError ? err.message : 'does not parse'}`;
  }
  if (info.hash_algorithm !== SHA256_OID) return `message imprint algorithm is ${info.hash_algorithm}, not SHA-256`;
  const root = isHashB64u(epoch.root_hash) ? b64uDecode(epoch.root_hash) : new Uint8Array();
  const same = info.hashed_message.byteLength === root.byteLength && info.hashed_message.every((b, k) => b === root[k]);
  if (!same) return "message imprint is not the epoch's root_hash bytes";
  if (info.gen_time !== a.anchored_at) return `anchored_at ${a.anchored_at} is not the token's genTime ${info.gen_time}`;
  return null;
}

/**
 * Why a signature by `kid` cannot be checked against `jwks` at all, or null when the JWKS
 * lists that kid: a key the auditor did not give is "untrusted", one the bundle does not
 * list is "unknown", and neither is a bad signature (docs/EXPORT.md "Trust").
 *
 * @example
 * kidProblem(trustedJwks, manifest.service_kid, true); // 'untrusted key: ...' when not listed
 */
export function kidProblem(jwks: { keys: readonly Jwk[] }, kid: unknown, trusted: boolean): string | null {
  const listed = Array.isArray(jwks?.keys) && jwks.keys.some((k) => k !== null && typeof k === 'object' && k.kid === kid);
  if (listed) return null;
  return trusted
    ? `untrusted key: service key ${String(kid)} is not in the JWKS you gave (signed by a key you do not trust)`
    : `unknown kid: service key ${String(kid)} is not in the bundled service_jwks`;
}
