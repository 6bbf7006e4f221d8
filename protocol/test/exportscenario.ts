// A realistic, fully deterministic export for the bundle tests, built with the protocol's
// own functions: three agents (one with a rotated key), chained and signed records, receipts
// from a current and a retired service key, RFC 9162 epochs (one operation carried into a
// later epoch, the last ones not sealed yet), and real RFC 3161 tokens for two epoch roots
// (recorded once by fixtures/record-tsa-tokens.ts: Ed25519 is deterministic, so the roots
// never change unless this file does).
import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import {
  EXPORT_BUNDLE_VERSION,
  GENESIS_PREV_ROOT,
  MerkleTree,
  assembleCheckpoint,
  checkpointText,
  logEntryHash,
  logLeafHash,
  logOrigin,
  type EpochLogEntry,
  type ExportLog,
  type ExportLogEntry,
  ExportBundleWriter,
  GENESIS,
  OP_VERSION,
  RECEIPT_VERSION,
  b64uEncode,
  canonicalBytes,
  canonicalize,
  chainHash,
  ed25519Jwk,
  finishReceipt,
  inclusionProofsFor,
  merkleRootB64u,
  payloadHash,
  privateKeyFromSeed,
  rawPublicKey,
  receiptHash,
  receiptSigningInput,
  sha256,
  sign,
  signRecord,
  type Ed25519Jwk,
  type ExportAgentKey,
  type ExportBundle,
  type ExportEpoch,
  type ExportEpochRecord,
  type ExportHeader,
  type ExportOperation,
  type ExportQuery,
  type OperationRecord,
  type StoredOperationRow,
  GENESIS_KEY_EVENT,
  chainKeyEvents,
  keyEventHash,
  provePossession,
  type KeyEvent,
  type KeyEventDraft,
} from '../src/index.js';
import { operationEntry } from '../src/export/entries.js';
import { utf8 } from './vectors.js';

export const ORG = 'org_export_test';
/** Epoch length of the scenario (the local stack's LEDGER_EPOCH_MS may be anything). */
export const E = 60_000;
/**
 * Aligned to E (docs/PROTOCOL.md "Merkle epochs"), and a few minutes before the recorded
 * tokens' genTime: an anchor more than ANCHOR_LATE_BOUND_MS after its epoch's end is late.
 */
export const T0 = 1_795_671_960_000;

export type ScenarioItem = { operation: ExportOperation; epoch?: ExportEpochRecord };

export type Scenario = {
  header: ExportHeader;
  /** every operation of the export, in (created_at, operation_id) order, with the epoch of its proof */
  items: ScenarioItem[];
  /** every epoch of the organization, ascending: more than a filtered export points to */
  orgEpochs: ExportEpoch[];
  /** every key of the organization's agents: more than the records use */
  orgKeys: ExportAgentKey[];
  /** the organization's key history (docs/PROTOCOL.md "Key events"), by key_index */
  keyEvents: KeyEvent[];
  jwks: { keys: Ed25519Jwk[] };
  serviceKey: KeyObject;
  serviceKid: string;
};

type TokenFixture = { root_hash: string; tsa_url: string; tsa_token: string; anchored_at: number };
export const TSA_TOKENS: TokenFixture[] = JSON.parse(readFileSync(new URL('./fixtures/tsa-tokens.json', import.meta.url), 'utf8')).tokens;

function seeded(name: string): KeyObject {
  return privateKeyFromSeed(sha256(utf8(`agent-ledger export test ${name}`)));
}

function uuid(prefix: string, n: number): string {
  const h = n.toString(16).padStart(12, '0');
  return `${prefix}-0000-7000-8000-${h}`;
}

const SERVICE_CURRENT = seeded('service current');
const SERVICE_RETIRED = seeded('service retired');
const jwkOf = (k: KeyObject): Ed25519Jwk => ed25519Jwk(rawPublicKey(k));

/** `unproven`: registered without a proof of possession, as /v1 allows (docs/API.md §4.3). */
export type AgentKeySpec = { kid: string; key: KeyObject; status: string; created_at: number; retired_at: number | null; added?: boolean; unproven?: boolean };
export type AgentSpec = { agent_id: string; keys: AgentKeySpec[] };
const AGENTS: AgentSpec[] = [
  {
    agent_id: 'agent-alpha',
    keys: [
      { kid: 'alpha-2024', key: seeded('alpha 1'), status: 'retired', created_at: T0 - 86_400_000, retired_at: T0 + 40_000 },
      { kid: 'alpha-2025', key: seeded('alpha 2'), status: 'active', created_at: T0 + 39_000, retired_at: null, added: true },
    ],
  },
  { agent_id: 'agent-beta', keys: [{ kid: 'beta-1', key: seeded('beta'), status: 'active', created_at: T0 - 3_600_000, retired_at: null }] },
  {
    agent_id: 'agent-gamma',
    keys: [
      { kid: 'gamma-1', key: seeded('gamma'), status: 'revoked', created_at: T0 - 3_600_000, retired_at: T0 + 500_000 },
      { kid: 'gamma-unused', key: seeded('gamma unused'), status: 'active', created_at: T0 - 3_600_000, retired_at: null },
    ],
  },
];

const PAYLOADS: OperationRecord['payload'][] = [
  { path: '/repo/src/main.ts', bytes: 1204, lines: [1, 2, 3] },
  'héllo ✓ 日本語 😀 — a string payload',
  null,
  { nested: { numbers: [2.5, -0, 1e21, 0.1], flag: true, empty: {} }, 'é': 'key order by UTF-16', '\u20ac': 1, '\ud83d\ude00': 2 },
];
const TYPES = ['file.write', 'shell.exec', 'http.request'];
/** Agent of each operation, by index: irregular interleaving. */
const AGENT_OF = [0, 1, 0, 2, 0, 1, 1, 0, 2, 0, 1, 0, 0, 2, 1, 0, 1, 2, 0, 1, 0, 2, 1, 0];
/** created_at offsets; two operations share one instant (ordered by operation_id). */
const OFFSET_OF = AGENT_OF.map((_, i) => (i === 11 ? 10 * 9_000 + 1 : i * 9_000 + 1));
/** The operation whose write landed in an already sealed window: carried into the next epoch. */
const CARRIED = 13;
/** Sealed windows: operations of windows 0..2 (plus the carried one) have proofs. */
const SEALED_WINDOWS = 3;
/** The operation whose payload was erased after submission (docs/PROTOCOL.md: allowed). */
const ERASED = 5;

/** The scenario with `agents` (their keys and windows) signing the same records. */
export function buildScenario(agents: readonly AgentSpec[] = AGENTS): Scenario {
  const heads = new Map<string, { seq: number; head: string; count: number }>();
  const rows: { operation: ExportOperation; window: number }[] = [];
  AGENT_OF.forEach((a, i) => {
    const agent = agents[a]!;
    const state = heads.get(agent.agent_id) ?? { seq: 0, head: GENESIS, count: 0 };
    const keySpec = agent.agent_id === 'agent-alpha' && state.count >= 3 ? agent.keys[1]! : agent.keys[0]!;
    const createdAt = T0 + OFFSET_OF[i]!;
    const payload = PAYLOADS[i % PAYLOADS.length]!;
    const subject = { type: 'file', path: `/repo/file-${i}.ts`, repo: { name: 'ledger', stars: i } };
    const action = { verb: TYPES[i % 3]!.split('.')[1], target: i === 4 ? 'tab\there \u0007 bell 目标 😀' : `target-${i}` };
    const unsigned = {
      op_version: OP_VERSION,
      operation_id: uuid('01977a00', i),
      org_id: ORG,
      agent_id: agent.agent_id,
      issued_at: createdAt - 150,
      ttl_ms: 60_000,
      nonce: `nonce-${agent.agent_id}-${i}`,
      operation_type: TYPES[i % 3]!,
      subject,
      action,
      payload,
      payload_hash: payloadHash(payload),
      prev_chain_hash: state.head,
      agent_pubkey_kid: keySpec.kid,
    };
    const record = signRecord(unsigned, keySpec.key);
    const chain = chainHash(record.prev_chain_hash, record);
    const seq = state.seq + 1;
    heads.set(agent.agent_id, { seq, head: chain, count: state.count + 1 });
    const row: StoredOperationRow = {
      operation_id: record.operation_id,
      org_id: ORG,
      agent_id: agent.agent_id,
      seq_no: seq,
      operation_type: record.operation_type,
      issued_at: record.issued_at,
      ttl_ms: record.ttl_ms,
      nonce: record.nonce,
      subject: canonicalize(subject),
      action: canonicalize(action),
      payload_hash: record.payload_hash,
      prev_chain_hash: record.prev_chain_hash,
      chain_hash: chain,
      agent_pubkey_kid: record.agent_pubkey_kid,
      signature: record.signature,
      store_payload_key: i === ERASED ? null : `payloads/${ORG}/${record.operation_id}`,
      created_at: createdAt,
    };
    const serviceKey = i < 7 ? SERVICE_RETIRED : SERVICE_CURRENT;
    const unsignedReceipt = {
      receipt_version: RECEIPT_VERSION,
      receipt_id: uuid('01977a01', i),
      operation_id: record.operation_id,
      org_id: ORG,
      agent_id: agent.agent_id,
      server_received_at: createdAt,
      seq_no: seq,
      chain_hash: chain,
      queue_message_id: `msg-${i}`,
    };
    const receipt = finishReceipt(unsignedReceipt, jwkOf(serviceKey).kid, sign(serviceKey, receiptSigningInput(receiptHash(unsignedReceipt))));
    const { payload: _omit, ...signed } = record;
    const operation: ExportOperation = { row, record: signed, receipt };
    if (i !== ERASED) operation.payload = payload;
    const ownWindow = Math.floor(OFFSET_OF[i]! / E);
    rows.push({ operation, window: i === CARRIED ? ownWindow + 1 : ownWindow });
  });

  const orgEpochs: ExportEpoch[] = [];
  const epochOfOp = new Map<string, ExportEpochRecord>();
  for (let w = 0; w < SEALED_WINDOWS; w++) {
    const members = rows.filter((r) => r.window === w).map((r) => r.operation);
    // docs/PROTOCOL.md: leaves ordered by (created_at, operation_id); rows are already in that order.
    const hashes = members.map((m) => m.row.chain_hash);
    const epoch: ExportEpochRecord = {
      epoch_id: uuid('01977a02', w),
      org_id: ORG,
      start_time: T0 + w * E,
      end_time: T0 + (w + 1) * E,
      root_hash: merkleRootB64u(hashes),
      leaf_count: hashes.length,
      store_epoch_key: `epochs/${ORG}/${T0 + w * E}.json`,
      created_at: T0 + (w + 1) * E + 5_000,
    };
    const proofs = inclusionProofsFor(hashes, epoch.epoch_id);
    members.forEach((m, k) => {
      m.proof = proofs[k]!;
      epochOfOp.set(m.row.operation_id, epoch);
    });
    const token = TSA_TOKENS.find((t) => t.root_hash === epoch.root_hash);
    const entry: ExportEpoch = { epoch };
    if (token !== undefined) entry.anchor = { tsa_url: token.tsa_url, tsa_token: token.tsa_token, anchored_at: token.anchored_at };
    orgEpochs.push(entry);
  }
  // An epoch of the organization after the export's range: offered to the writer, never written.
  orgEpochs.push({
    epoch: { epoch_id: uuid('01977a02', 9), org_id: ORG, start_time: T0 + 9 * E, end_time: T0 + 10 * E, root_hash: b64uEncode(sha256(utf8('later'))), leaf_count: 3, store_epoch_key: 'epochs/later.json', created_at: T0 + 10 * E + 5_000 },
  });

  const items = rows.map(({ operation }) => {
    const epoch = epochOfOp.get(operation.row.operation_id);
    return epoch === undefined ? { operation } : { operation, epoch };
  });
  const orgKeys: ExportAgentKey[] = agents.flatMap((a) =>
    a.keys.map((k) => ({ kid: k.kid, agent_id: a.agent_id, public_key: b64uEncode(rawPublicKey(k.key)), algorithm: 'ed25519' as const, status: k.status, created_at: k.created_at, retired_at: k.retired_at })),
  );
  const current = jwkOf(SERVICE_CURRENT);
  const keyEvents = scenarioKeyEvents(ORG, agents);
  return {
    header: {
      export_id: uuid('01977a03', 1),
      org_id: ORG,
      format: 'json',
      include_payloads: true,
      generated_at: T0 + 400_000,
      query: { start_time: T0, end_time: T0 + 4 * E, agent_id: null, operation_type: null },
    },
    items,
    orgEpochs,
    orgKeys,
    keyEvents,
    jwks: { keys: [current, jwkOf(SERVICE_RETIRED)] },
    serviceKey: SERVICE_CURRENT,
    serviceKid: current.kid,
  };
}

/**
 * The key events the service would have logged for `agents` (docs/PROTOCOL.md "Key events"):
 * each key registered (or added) at its created_at with its proof of possession (none when
 * `unproven`), ended at
 * its retired_at (retired or revoked as its status says), ordered by time.
 */
export function scenarioKeyEvents(orgId: string, agents: readonly { agent_id: string; keys: readonly AgentKeySpec[] }[]): KeyEvent[] {
  const drafts: KeyEventDraft[] = [];
  for (const a of agents) {
    for (const k of a.keys) {
      const key = b64uEncode(rawPublicKey(k.key));
      const proof = k.unproven === true ? null : provePossession(k.key, { org_id: orgId, agent_id: a.agent_id, kid: k.kid, registered_at: k.created_at - 1_000 });
      drafts.push({ event: k.added === true ? 'add' : 'register', agent_id: a.agent_id, kid: k.kid, key, time: k.created_at, actor: 'user-owner', proof });
      if (k.retired_at !== null) drafts.push({ event: k.status === 'revoked' ? 'revoke' : 'retire', agent_id: a.agent_id, kid: k.kid, key, time: k.retired_at, actor: 'user-owner', proof: null });
    }
  }
  drafts.sort((x, y) => x.time - y.time);
  return chainKeyEvents(orgId, 0, GENESIS_KEY_EVENT, drafts);
}

/** The agents of the scenario with one agent's keys replaced: what a dishonest operator would log. */
export function agentsWith(agentId: string, keys: AgentKeySpec[]): AgentSpec[] {
  return AGENTS.map((a) => (a.agent_id === agentId ? { agent_id: agentId, keys } : a));
}

/** The scenario's key specs of one agent (kid, private key, status, window). */
export function agentKeySpecs(agentId: string): AgentKeySpec[] {
  return (AGENTS.find((a) => a.agent_id === agentId)?.keys ?? []).map((k) => ({ ...k }));
}

export const base: Scenario = buildScenario();

/** The same organization exported with another query (docs/API.md §4.8 filters) or without payloads. */
export function exportOf(query: Partial<ExportQuery>, options: { include_payloads?: boolean; format?: 'json' | 'pdf' } = {}): Scenario {
  const q: ExportQuery = { ...base.header.query, ...query };
  const include = options.include_payloads ?? true;
  const items = base.items
    .filter(({ operation: { row } }) => row.created_at >= q.start_time && row.created_at < q.end_time)
    .filter(({ operation: { row } }) => q.agent_id === null || row.agent_id === q.agent_id)
    .filter(({ operation: { row } }) => q.operation_type === null || row.operation_type === q.operation_type)
    .map((item) => {
      if (include) return item;
      const { payload: _dropped, ...operation } = item.operation;
      return { ...item, operation };
    });
  return { ...base, header: { ...base.header, format: options.format ?? 'json', include_payloads: include, query: q }, items };
}

/** The bundle as one object, assembled without the writer: what the writer's bytes must be JCS of. */
export function materialize(s: Scenario): ExportBundle {
  const operations = s.items.map((i) => operationEntry(i.operation));
  const used = new Set(operations.map((o) => `${o.record.agent_id}\u0000${o.record.agent_pubkey_kid}`));
  const agentKeys = s.orgKeys
    .filter((k) => used.has(`${k.agent_id}\u0000${k.kid}`))
    .sort((a, b) => (a.agent_id !== b.agent_id ? (a.agent_id < b.agent_id ? -1 : 1) : a.kid < b.kid ? -1 : 1));
  const epochIds = new Set(operations.flatMap((o) => (o.proof ? [o.proof.epoch_id] : [])));
  const epochs = s.orgEpochs.filter((e) => epochIds.has(e.epoch.epoch_id));
  const body = {
    bundle_version: EXPORT_BUNDLE_VERSION,
    export: s.header,
    operations,
    summary: {
      operations: operations.length,
      agents: new Set(operations.map((o) => o.row.agent_id)).size,
      agent_keys: agentKeys.length,
      epochs: epochs.length,
      proofs: operations.filter((o) => o.proof !== undefined).length,
      payloads: operations.filter((o) => Object.hasOwn(o, 'payload')).length,
    },
    verification_material: { agent_keys: agentKeys, epochs, log: scenarioLog(s), service_jwks: s.jwks },
  };
  const digest = sha256(canonicalBytes(body));
  return {
    body,
    manifest: { body_sha256: b64uEncode(digest), service_kid: s.serviceKid, signature: b64uEncode(sign(s.serviceKey, digest)) },
  };
}

/**
 * Write `s` with the streaming writer as an exports worker would: after every call,
 * `pause(step)` may end this "run", the checkpoint goes through JSON (the DynamoDB item),
 * and a new writer resumes from it. Epochs are offered by re-querying from epochRange().
 */
export async function writeBundle(s: Scenario, pause: (step: number) => boolean = () => false): Promise<{ bytes: Uint8Array; checkpoints: string[] }> {
  const chunks: Uint8Array[] = [];
  const checkpoints: string[] = [];
  let w = await ExportBundleWriter.create(s.header);
  let step = 0;
  const next = async (chunk: Uint8Array): Promise<void> => {
    chunks.push(chunk);
    step += 1;
    if (!pause(step)) return;
    const text = JSON.stringify(w.checkpoint());
    checkpoints.push(text);
    w = await ExportBundleWriter.resume(JSON.parse(text));
  };
  await next(w.open());
  for (const item of s.items) await next(w.addOperation(item.operation, item.epoch));
  await next(w.endOperations(s.orgKeys));
  for (let range = w.epochRange(); range !== null; range = w.epochRange()) {
    const { from, to } = range;
    const candidate = s.orgEpochs.find((e) => e.epoch.start_time >= from && e.epoch.start_time < to);
    if (candidate === undefined) break;
    await next(w.offerEpoch(candidate));
  }
  await next(w.endEpochs(s.jwks, scenarioLog(s)));
  await next(w.finish({ service_kid: s.serviceKid, signature: sign(s.serviceKey, w.bodyDigest()) }));
  const size = chunks.reduce((n, c) => n + c.byteLength, 0);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return { bytes, checkpoints };
}

/**
 * The organization's epoch log (docs/CHECKPOINTS.md): every epoch of the scenario by
 * start_time, indexed from 0, `rewrite` applied before hashing (a dishonest operator).
 */
export function scenarioLogEntries(s: Scenario, rewrite?: (entries: EpochLogEntry[]) => void): EpochLogEntry[] {
  const entries: EpochLogEntry[] = [];
  for (const { epoch } of s.orgEpochs) {
    const before = entries.at(-1);
    const { epoch_id, org_id, start_time, end_time, root_hash, leaf_count } = epoch;
    // The sealer commits to the key events made before it sealed (docs/CHECKPOINTS.md "Key history").
    const keyLogSize = s.keyEvents.filter((k) => k.time < epoch.created_at).length;
    const keyLogHead = keyLogSize === 0 ? GENESIS_KEY_EVENT : keyEventHash(s.keyEvents[keyLogSize - 1]!);
    entries.push({
      epoch_id, org_id, epoch_index: entries.length, start_time, end_time, root_hash, leaf_count, prev_root_hash: before?.root_hash ?? GENESIS_PREV_ROOT,
      key_log_size: keyLogSize, key_log_head: keyLogHead,
    });
  }
  rewrite?.(entries);
  return entries;
}

/** The log as the service exports it at `size`: signed checkpoint, leaves, the entries around the range. */
export function scenarioLog(s: Scenario, size?: number, all: EpochLogEntry[] = scenarioLogEntries(s)): ExportLog {
  const log = all.slice(0, size ?? all.length);
  const n = log.length;
  const leaves = log.map(logEntryHash);
  const tree = new MerkleTree(leaves.map(logLeafHash));
  const cp = { origin: logOrigin(s.header.org_id), size: n, root_hash: b64uEncode(tree.root()) };
  const checkpoint = assembleCheckpoint(cp, s.jwks.keys[0]!.x, sign(s.serviceKey, utf8(checkpointText(cp))));
  const q = s.header.query;
  const overlapping = log.filter((e) => e.start_time < q.end_time && e.end_time > q.start_time);
  const after = log.findIndex((e) => e.start_time >= q.end_time);
  const first = overlapping[0]?.epoch_index ?? (after < 0 ? n : after);
  const last = overlapping.at(-1)?.epoch_index ?? first - 1;
  const picked = log.slice(Math.max(0, first - 1), Math.min(n, last + 2));
  const entries: ExportLogEntry[] = picked.map((e) => ({ ...e, audit_path: tree.auditPath(e.epoch_index).map(b64uEncode) }));
  return { checkpoint, leaves, entries, key_events: s.keyEvents };
}
