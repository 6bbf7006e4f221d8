/**
 * Shape checks of an export bundle read from a file (docs/EXPORT.md): which members each
 * object has, and of which JSON type. A bundle is untrusted input, so the verifier checks
 * the shape of every part before it computes anything from it, and names the first
 * problem rather than throwing.
 *
 * Hand-written rather than a schema library: protocol/ has no schema dependency, and these
 * few flat shapes are easier to audit side by side with docs/EXPORT.md than a generic one.
 */
import { isB64u } from '../encoding/base64url.js';
import { isPlainObject } from '../encoding/jsonobject.js';

/** A JSON type a member may have. */
type Kind = 'string' | 'int' | 'bool' | 'object' | 'array' | 'string|null' | 'int|null' | 'any';

/** Member name → kind; a name ending in `?` is optional. */
export type Shape = Record<string, Kind>;

function hasKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'int':
      return Number.isSafeInteger(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'int|null':
      return value === null || Number.isSafeInteger(value);
    case 'any':
      return value !== undefined;
  }
}

/**
 * null when `value` is an object with exactly the members of `shape`, each of its kind;
 * otherwise the first problem, e.g. `member 'seq_no' must be int`.
 *
 * @example
 * shapeProblem({ a: 1 }, { a: 'int', 'b?': 'string' }); // null
 * shapeProblem({ a: '1' }, { a: 'int' });                // "member 'a' must be int"
 */
export function shapeProblem(value: unknown, shape: Shape): string | null {
  if (!isPlainObject(value)) return 'must be an object';
  const known = new Set<string>();
  for (const [spec, kind] of Object.entries(shape)) {
    const optional = spec.endsWith('?');
    const name = optional ? spec.slice(0, -1) : spec;
    known.add(name);
    if (!Object.hasOwn(value, name)) {
      if (optional) continue;
      return `member '${name}' is missing`;
    }
    if (!hasKind(value[name], kind)) return `member '${name}' must be ${kind}`;
  }
  const extra = Object.keys(value).find((k) => !known.has(k));
  return extra === undefined ? null : `unknown member '${extra}'`;
}

/**
 * A SHA-256 value on the wire: 32 bytes of strict base64url (43 characters).
 *
 * @example
 * isHashB64u('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'); // true
 */
export function isHashB64u(value: unknown): value is string {
  return isB64u(value, 32);
}

export const BUNDLE_SHAPE: Shape = { body: 'object', manifest: 'object' };
export const BODY_SHAPE: Shape = {
  bundle_version: 'string',
  export: 'object',
  operations: 'array',
  summary: 'object',
  verification_material: 'object',
};
export const HEADER_SHAPE: Shape = {
  export_id: 'string',
  org_id: 'string',
  format: 'string',
  include_payloads: 'bool',
  generated_at: 'int',
  query: 'object',
};
export const QUERY_SHAPE: Shape = { start_time: 'int', end_time: 'int', agent_id: 'string|null', operation_type: 'string|null' };
export const MATERIAL_SHAPE: Shape = { agent_keys: 'array', epochs: 'array', 'log?': 'object', service_jwks: 'object' };
export const LOG_SHAPE: Shape = { checkpoint: 'string|null', leaves: 'array', entries: 'array', 'key_events?': 'array' };
export const LOG_ENTRY_SHAPE: Shape = {
  epoch_id: 'string',
  org_id: 'string',
  epoch_index: 'int',
  start_time: 'int',
  end_time: 'int',
  root_hash: 'string',
  leaf_count: 'int',
  prev_root_hash: 'string',
  'key_log_size?': 'int',
  'key_log_head?': 'string',
  audit_path: 'array',
};
export const KEY_EVENT_SHAPE: Shape = {
  org_id: 'string',
  key_index: 'int',
  event: 'string',
  agent_id: 'string',
  kid: 'string',
  thumbprint: 'string',
  public_key: 'string|null',
  time: 'int',
  actor: 'string',
  proof: 'any',
  prev_event_hash: 'string',
};
export const JWKS_SHAPE: Shape = { keys: 'array' };
export const MANIFEST_SHAPE: Shape = { body_sha256: 'string', service_kid: 'string', signature: 'string' };
export const SUMMARY_SHAPE: Shape = { operations: 'int', agents: 'int', agent_keys: 'int', epochs: 'int', proofs: 'int', payloads: 'int' };
export const OPERATION_SHAPE: Shape = { row: 'object', record: 'object', 'payload?': 'any', 'payload_erased?': 'object', receipt: 'object', 'proof?': 'object' };
export const ERASURE_SHAPE: Shape = { by: 'string', at: 'int', reason: 'string' };
export const ROW_SHAPE: Shape = {
  operation_id: 'string',
  org_id: 'string',
  agent_id: 'string',
  seq_no: 'int',
  operation_type: 'string',
  issued_at: 'int',
  ttl_ms: 'int',
  nonce: 'string',
  subject: 'string',
  action: 'string',
  payload_hash: 'string',
  prev_chain_hash: 'string',
  chain_hash: 'string',
  agent_pubkey_kid: 'string',
  signature: 'string',
  store_payload_key: 'string|null',
  created_at: 'int',
};
export const RECORD_SHAPE: Shape = {
  op_version: 'string',
  operation_id: 'string',
  org_id: 'string',
  agent_id: 'string',
  issued_at: 'int',
  ttl_ms: 'int',
  nonce: 'string',
  operation_type: 'string',
  subject: 'object',
  action: 'object',
  payload_hash: 'string',
  prev_chain_hash: 'string',
  agent_pubkey_kid: 'string',
  signature: 'string',
};
export const RECEIPT_SHAPE: Shape = {
  receipt_version: 'string',
  receipt_id: 'string',
  operation_id: 'string',
  org_id: 'string',
  agent_id: 'string',
  server_received_at: 'int',
  seq_no: 'int',
  chain_hash: 'string',
  queue_message_id: 'string',
  receipt_hash: 'string',
  service_kid: 'string',
  service_signature: 'string',
};
export const PROOF_SHAPE: Shape = { epoch_id: 'string', leaf_index: 'int', tree_size: 'int', audit_path: 'array', root_hash: 'string' };
export const AGENT_KEY_SHAPE: Shape = {
  kid: 'string',
  agent_id: 'string',
  public_key: 'string',
  algorithm: 'string',
  status: 'string',
  created_at: 'int|null',
  retired_at: 'int|null',
  'possession_proven?': 'bool',
};
export const EPOCH_ENTRY_SHAPE: Shape = { epoch: 'object', 'anchor?': 'object' };
export const EPOCH_SHAPE: Shape = {
  epoch_id: 'string',
  org_id: 'string',
  start_time: 'int',
  end_time: 'int',
  root_hash: 'string',
  leaf_count: 'int',
  store_epoch_key: 'string',
  created_at: 'int',
};
export const ANCHOR_SHAPE: Shape = { tsa_url: 'string', tsa_token: 'string', anchored_at: 'int' };
export const SERVICE_JWK_SHAPE: Shape = { kty: 'string', crv: 'string', x: 'string', kid: 'string', alg: 'string', use: 'string' };

/**
 * The first shape problem of a `body.operations` element, with the part it is in, or null.
 *
 * @example
 * operationProblem(bundle.body.operations[0]); // null for a well-formed entry
 */
export function operationProblem(entry: unknown): string | null {
  const outer = shapeProblem(entry, OPERATION_SHAPE);
  if (outer !== null) return outer;
  const e = entry as Record<string, unknown>;
  const parts: [string, Shape][] = [
    ['row', ROW_SHAPE],
    ['record', RECORD_SHAPE],
    ['receipt', RECEIPT_SHAPE],
  ];
  if (Object.hasOwn(e, 'proof')) parts.push(['proof', PROOF_SHAPE]);
  if (Object.hasOwn(e, 'payload_erased')) parts.push(['payload_erased', ERASURE_SHAPE]);
  for (const [name, shape] of parts) {
    const problem = shapeProblem(e[name], shape);
    if (problem !== null) return `${name}: ${problem}`;
  }
  const path = (e.proof as { audit_path?: unknown[] } | undefined)?.audit_path;
  if (path !== undefined && !path.every((p) => typeof p === 'string')) return 'proof: audit_path must hold strings';
  return null;
}
