/**
 * The JSON export bundle, version 1.2 (docs/EXPORT.md; 1.1 adds the organization's epoch log,
 * docs/CHECKPOINTS.md, and erased payloads' marks; 1.2 adds the organization's key history,
 * docs/PROTOCOL.md "Key events"): every matching operation with the
 * evidence to check it (record, receipt, inclusion proof), the epochs and keys that
 * evidence needs, and a manifest binding all of it with one service signature.
 *
 * The file is exactly `JCS(bundle)` (RFC 8785). Member names are chosen so that JCS order
 * is also writing order: everything known before the operations sorts before
 * `operations`, everything known only after them sorts after it, and `manifest` sorts
 * after `body`. That is what lets writer.ts stream the file in one pass.
 */
import type { Ed25519Jwk } from '../crypto/jwk.js';
import type { InclusionProof } from '../merkle/merkle.js';
import type { Receipt } from '../ledger/receipt.js';
import type { EpochLogEntry } from '../tlog/entry.js';
import type { KeyEvent } from '../keys/event.js';
import { RECORD_FIELDS, type OperationRecord } from '../ledger/record.js';

/** `body.bundle_version`; a change to this format is a new version (docs/EXPORT.md). */
export const EXPORT_BUNDLE_VERSION = '1.2';

/**
 * Versions the verifier reads; 1.0 bundles carry no epoch log (append-only checks are not
 * possible), 1.0 and 1.1 no key history (keys are checked against the bundle alone).
 */
export const READABLE_BUNDLE_VERSIONS: readonly string[] = ['1.0', '1.1', '1.2'];

/** The versions that carry `verification_material.log.key_events`. */
export const KEY_HISTORY_BUNDLE_VERSIONS: readonly string[] = ['1.2'];

/** The filter the export was made with (docs/API.md §4.8); null when a filter was not given. */
export type ExportQuery = {
  /** Unix ms, inclusive, on created_at */
  start_time: number;
  /** Unix ms, exclusive */
  end_time: number;
  agent_id: string | null;
  operation_type: string | null;
};

/** `body.export`: which export this is and what it was asked for. */
export type ExportHeader = {
  export_id: string;
  org_id: string;
  /** the requested file format; a PDF export embeds this same JSON bundle */
  format: 'json' | 'pdf';
  /** false when the export was created with `include_payloads: false` */
  include_payloads: boolean;
  /** Unix ms when the export job started writing */
  generated_at: number;
  query: ExportQuery;
};

/** The stored operation row, exactly the docs/API.md §2.2 fields. */
export type StoredOperationRow = {
  operation_id: string;
  org_id: string;
  agent_id: string;
  seq_no: number;
  operation_type: string;
  issued_at: number;
  ttl_ms: number;
  nonce: string;
  /** JSON-encoded */
  subject: string;
  /** JSON-encoded */
  action: string;
  payload_hash: string;
  prev_chain_hash: string;
  chain_hash: string;
  agent_pubkey_kid: string;
  signature: string;
  store_payload_key: string | null;
  /** server time, Unix ms; equals the receipt's server_received_at */
  created_at: number;
};

/** The 17 members of a stored row, in docs/API.md §2.2 order. */
export const STORED_ROW_FIELDS = [
  'operation_id',
  'org_id',
  'agent_id',
  'seq_no',
  'operation_type',
  'issued_at',
  'ttl_ms',
  'nonce',
  'subject',
  'action',
  'payload_hash',
  'prev_chain_hash',
  'chain_hash',
  'agent_pubkey_kid',
  'signature',
  'store_payload_key',
  'created_at',
] as const satisfies readonly (keyof StoredOperationRow)[];

/**
 * The record as the agent signed it (docs/API.md §2.1) without its payload: the 14 members
 * that signing_input, record_digest and chain_hash are computed from (docs/PROTOCOL.md).
 */
export type SignedRecord = Omit<OperationRecord, 'payload'>;

/** One element of `body.operations`. */
export type ExportOperation = {
  row: StoredOperationRow;
  record: SignedRecord;
  /** present when payloads are included and the payload is still stored (it may be null) */
  payload?: OperationRecord['payload'];
  receipt: Receipt;
  /** present once an epoch covers the operation (docs/PROTOCOL.md "Merkle epochs") */
  proof?: InclusionProof;
  /** bundle 1.1: the payload was erased by an owner (user id, Unix ms, reason); `payload` is then absent */
  payload_erased?: { by: string; at: number; reason: string };
};

/** An agent key (docs/API.md §2.5) that signed at least one record of the bundle. */
export type ExportAgentKey = {
  kid: string;
  agent_id: string;
  /** b64u raw Ed25519 public key */
  public_key: string;
  algorithm: 'ed25519';
  /** `active`, `retired`, `revoked` at generation time; `deleted` once the agent was deleted */
  status: string;
  created_at: number | null;
  retired_at: number | null;
  /**
   * bundle 1.2: whether the key's registration carried a proof of possession (docs/PROTOCOL.md
   * "Proof of possession"); the verifier checks it against the key history. Absent in bundles
   * written before it existed.
   */
  possession_proven?: boolean;
};

/** An epoch (docs/API.md §2.11). */
export type ExportEpochRecord = {
  epoch_id: string;
  org_id: string;
  start_time: number;
  end_time: number;
  root_hash: string;
  leaf_count: number;
  store_epoch_key: string;
  created_at: number;
};

/** An epoch's RFC 3161 anchor (docs/API.md §2.11). */
export type ExportEpochAnchor = {
  tsa_url: string;
  /** DER TimeStampToken, standard padded base64 */
  tsa_token: string;
  /** the token's genTime, Unix ms */
  anchored_at: number;
};

/** One element of `verification_material.epochs`: as GET /v1/epochs/:epoch_id returns it. */
export type ExportEpoch = {
  epoch: ExportEpochRecord;
  /** present when the epoch is anchored */
  anchor?: ExportEpochAnchor;
};

/** `body.summary`: counts a reader sees without walking the arrays (checked by the verifier). */
export type ExportSummary = {
  operations: number;
  /** distinct agent_id values among the operations */
  agents: number;
  agent_keys: number;
  epochs: number;
  /** operations carrying an inclusion proof */
  proofs: number;
  /** operations carrying their payload */
  payloads: number;
};

/** An entry of the organization's epoch log with its RFC 9162 inclusion path in the log at the checkpoint. */
export type ExportLogEntry = EpochLogEntry & {
  /** b64u node hashes, leaf's sibling first, in the log tree of the checkpoint's size */
  audit_path: string[];
};

/**
 * `verification_material.log` (bundle 1.1, docs/CHECKPOINTS.md "In an export"): the
 * organization's epoch log as of the export.
 */
export type ExportLog = {
  /** C2SP tlog-checkpoint signed note of the log; null when the log was empty */
  checkpoint: string | null;
  /** every entry hash of the log, index 0 to size - 1 (the leaves of the checkpoint's tree) */
  leaves: string[];
  /** the log entries of the epochs overlapping the export's range, plus the one before and the one after, by index */
  entries: ExportLogEntry[];
  /**
   * bundle 1.2: every key event of the organization, key_index 0 up, as of the export
   * (docs/PROTOCOL.md "Key events"); the entries' key_log_size and key_log_head commit to it
   */
  key_events?: KeyEvent[];
};

/** `body.verification_material`: the keys and epochs the evidence is checked against. */
export type ExportVerificationMaterial = {
  /** sorted by (agent_id, kid) */
  agent_keys: ExportAgentKey[];
  /** sorted by start_time */
  epochs: ExportEpoch[];
  /** bundle 1.1: the epoch log (docs/CHECKPOINTS.md) */
  log?: ExportLog;
  /** the service JWKS (docs/PROTOCOL.md "Receipt"): current and retired receipt keys */
  service_jwks: { keys: Ed25519Jwk[] };
};

/** The signed part of the bundle. */
export type ExportBundleBody = {
  bundle_version: string;
  export: ExportHeader;
  /** ordered by (created_at, operation_id) */
  operations: ExportOperation[];
  summary: ExportSummary;
  verification_material: ExportVerificationMaterial;
};

/** `manifest`: what binds the body (docs/EXPORT.md, Manifest). */
export type ExportManifest = {
  /** b64u(SHA-256(JCS(body))) */
  body_sha256: string;
  /** RFC 7638 thumbprint of the service key that signed */
  service_kid: string;
  /** b64u(Ed25519(service_sk, b64u_decode(body_sha256))) */
  signature: string;
};

/** A whole export bundle; the file is `JCS(bundle)`. */
export type ExportBundle = {
  body: ExportBundleBody;
  manifest: ExportManifest;
};

/** The 14 members of {@link SignedRecord}: docs/API.md §2.1 without `payload`, in that order. */
export const SIGNED_RECORD_FIELDS: readonly (keyof SignedRecord)[] = RECORD_FIELDS.filter(
  (f): f is Exclude<(typeof RECORD_FIELDS)[number], 'payload'> => f !== 'payload',
);

/** The members of an inclusion proof (docs/PROTOCOL.md "Merkle epochs"). */
export const PROOF_FIELDS = ['epoch_id', 'leaf_index', 'tree_size', 'audit_path', 'root_hash'] as const satisfies readonly (keyof InclusionProof)[];

/** The members of {@link ExportAgentKey} (docs/API.md §2.5). */
export const AGENT_KEY_FIELDS = [
  'kid',
  'agent_id',
  'public_key',
  'algorithm',
  'status',
  'created_at',
  'retired_at',
] as const satisfies readonly (keyof ExportAgentKey)[];

/** The members of {@link ExportEpochRecord} (docs/API.md §2.11). */
export const EPOCH_FIELDS = [
  'epoch_id',
  'org_id',
  'start_time',
  'end_time',
  'root_hash',
  'leaf_count',
  'store_epoch_key',
  'created_at',
] as const satisfies readonly (keyof ExportEpochRecord)[];

/** The members of {@link ExportEpochAnchor} (docs/API.md §2.11). */
export const ANCHOR_FIELDS = ['tsa_url', 'tsa_token', 'anchored_at'] as const satisfies readonly (keyof ExportEpochAnchor)[];

/** The members of a service JWK (docs/PROTOCOL.md "Receipt"). */
export const SERVICE_JWK_FIELDS = ['kty', 'crv', 'x', 'kid', 'alg', 'use'] as const satisfies readonly (keyof Ed25519Jwk)[];

/** The members of {@link ExportManifest}. */
export const MANIFEST_FIELDS = ['body_sha256', 'service_kid', 'signature'] as const satisfies readonly (keyof ExportManifest)[];
