/**
 * Writes an export bundle (docs/EXPORT.md) as a stream of canonical bytes, in one pass over
 * the operations ordered by (created_at, operation_id), pausable at any operation and
 * resumable in another process from a small JSON resume state (docs/EXPORT.md, "Writing in
 * pieces"). The API calls that state a checkpoint (`checkpoint()`, ExportWriterCheckpoint,
 * `checkpoint_version`, code `INVALID_CHECKPOINT`), names kept for the stored states and the
 * callers; it is not a C2SP log checkpoint (tlog/checkpoint.ts). The bytes are exactly `canonicalBytes(bundle)` of the materialised bundle.
 *
 * Order of calls (each returns the bytes to append to the file, possibly none):
 *
 *   const w = await ExportBundleWriter.create(header);
 *   w.open();
 *   w.addOperation(op, epochOfItsProof);   // for every operation, in order
 *   w.endOperations(keys);                  // keys for w.referencedAgentKeys()
 *   w.offerEpoch(e);                        // every org epoch in w.epochRange(), ascending
 *   w.endEpochs(serviceJwks);
 *   const sig = await signer.sign(w.bodyDigest());
 *   w.finish({ service_kid, signature: sig });
 *
 * `w.checkpoint()` (the resume state) between any two calls; `ExportBundleWriter.resume(state)`
 * goes on.
 * Nothing that grows with the number of operations is kept: the set of epochs pointed to is
 * a WindowSet, the epochs themselves are fetched again at the end (only the epoch query
 * knows their anchors), and the body digest is a resumable SHA-256.
 */
import { b64uDecode, b64uEncode, isB64u } from '../encoding/base64url.js';
import { DigestSum } from './digestsum.js';
import { verify } from '../crypto/ed25519.js';
import { ProtocolError } from '../errors/protocolerror.js';
import {
  EXPORT_BUNDLE_VERSION,
  type ExportAgentKey,
  type ExportEpoch,
  type ExportEpochRecord,
  type ExportHeader,
  type ExportLog,
  type ExportOperation,
  type ExportSummary,
} from './format.js';
import { agentKeyEntry, epochEntry, operationEntry, pickFields, serviceJwkEntry } from './entries.js';
import { canonicalBytes, canonicalize } from '../encoding/jcs.js';
import { jwkThumbprint, type Ed25519Jwk } from '../crypto/jwk.js';
import { createResumableSha256, type ResumableSha256 } from './resumablesha256.js';
import { WindowSet } from './windowset.js';
import { KEY_COMMITMENT_FIELDS, LOG_ENTRY_FIELDS, logOrigin, type EpochLogEntry } from '../tlog/entry.js';
import { KEY_EVENT_FIELDS, type KeyEvent } from '../keys/event.js';

/** Where the writer is: which call may come next. */
export type ExportWriterPhase = 'new' | 'operations' | 'epochs' | 'signing' | 'done';

/** Identifies the layout of the resume state; a change is a new number. */
export const EXPORT_CHECKPOINT_VERSION = 1;

/**
 * The writer's resume state: everything it needs to go on, as plain JSON. Its size does not grow with the number
 * of operations: about 1 KB plus ~80 bytes per distinct agent key plus the epoch window set
 * (at most ~18 KB for 366 days of 5-minute epochs, usually far less).
 */
export type ExportWriterCheckpoint = {
  checkpoint_version: number;
  phase: ExportWriterPhase;
  header: ExportHeader;
  /** resumable SHA-256 state of the body bytes so far (until the body is closed) */
  sha256_state: string | null;
  /** b64u body digest, once the body is closed */
  body_sha256: string | null;
  /** bytes of the file emitted so far */
  bytes: number;
  operations: number;
  proofs: number;
  payloads: number;
  /** (created_at, operation_id) of the last operation written */
  last: [number, string] | null;
  /** (agent_id, kid) of every key that signed a written record, sorted */
  agent_keys: [string, string][];
  /** service_kid of every receipt written, sorted */
  receipt_kids: string[];
  /** the windows of the epochs the written proofs point to (windowset.ts) */
  epoch_windows: string;
  epochs: number;
  epoch_sum: string;
  /** start_time of the last epoch offered, while writing epochs */
  offered_after: number | null;
  offered: number;
  offered_sum: string;
  /** the service JWKS written, once the body is closed */
  service_jwks: Ed25519Jwk[] | null;
};

const utf8 = new TextEncoder();
const EMPTY = new Uint8Array(0);

// JCS order is writing order (format.ts): the fixed text between the streamed parts.
const member = (name: string): string => `${canonicalize(name)}:`;
const FILE_OPEN = `{${member('body')}`;
const OPERATIONS_OPEN = `,${member('operations')}[`;
const OPERATIONS_CLOSE = `],${member('summary')}`;
const MATERIAL_OPEN = `,${member('verification_material')}{${member('agent_keys')}`;
const EPOCHS_OPEN = `,${member('epochs')}[`;
const EPOCHS_CLOSE = `],${member('service_jwks')}`;
const EPOCHS_CLOSE_LOG = `],${member('log')}`;
const LOG_CLOSE = `,${member('service_jwks')}`;
const MANIFEST_OPEN = `,${member('manifest')}`;

/** Bound on the in-memory cross-check of repeated epoch references (not in the resume state). */
const RECENT_EPOCHS_MAX = 4096;

function writerError(message: string): ProtocolError {
  return new ProtocolError('EXPORT_WRITER', message);
}

function keyOf(agentId: string, kid: string): string {
  return `${agentId}\u0000${kid}`;
}

function compareKeyPairs(a: readonly [string, string], b: readonly [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

type EpochIdentity = [string, number, number, string, number];

/** What identifies an epoch for the writer's cross-checks: its id, window, root and size. */
function epochIdentity(epoch: ExportEpochRecord): EpochIdentity {
  return [epoch.epoch_id, epoch.start_time, epoch.end_time, epoch.root_hash, epoch.leaf_count];
}

function sameIdentity(a: EpochIdentity, b: EpochIdentity): boolean {
  return a.every((v, k) => v === b[k]);
}

/**
 * The streaming, resumable writer of export bundles. Every method that writes returns the
 * bytes to append to the file; methods throw ProtocolError `EXPORT_WRITER` on input that
 * would make a bundle that does not verify (out of order, outside the query, a proof that
 * names another epoch, a key or epoch missing at the end, a signature by the wrong key) and
 * on calls out of order, before writing anything.
 *
 * @example
 * const w = await ExportBundleWriter.create(header);
 * await upload(w.open());
 * for (const { operation, epoch } of page) await upload(w.addOperation(operation, epoch));
 * await saveOnExportItem(w.checkpoint());   // a few KB; resume with ExportBundleWriter.resume
 */
export class ExportBundleWriter {
  private state: ExportWriterCheckpoint;
  private hasher: ResumableSha256 | null;
  private readonly keys: Map<string, [string, string]>;
  private readonly receiptKids: Set<string>;
  private readonly windows: WindowSet;
  private readonly epochSum: DigestSum;
  private readonly offeredSum: DigestSum;
  private readonly recentEpochs = new Map<number, EpochIdentity>();

  private constructor(state: ExportWriterCheckpoint, hasher: ResumableSha256 | null) {
    this.state = state;
    this.hasher = hasher;
    this.keys = new Map(state.agent_keys.map(([a, k]) => [keyOf(a, k), [a, k]]));
    this.receiptKids = new Set(state.receipt_kids);
    this.windows = WindowSet.decode(state.epoch_windows);
    this.epochSum = new DigestSum(state.epoch_sum);
    this.offeredSum = new DigestSum(state.offered_sum);
  }

  /**
   * A writer for a new bundle. Throws ProtocolError `EXPORT_WRITER` for a header that is
   * not a valid `body.export` (docs/EXPORT.md).
   *
   * @example
   * const w = await ExportBundleWriter.create({ export_id, org_id, format: 'json', include_payloads: true,
   *   generated_at: Date.now(), query: { start_time, end_time, agent_id: null, operation_type: null } });
   */
  static async create(header: ExportHeader): Promise<ExportBundleWriter> {
    const exact = exactHeader(header);
    canonicalize(exact); // refuse a header that is not JSON now, not at open()
    const empty = new DigestSum().toString();
    const state: ExportWriterCheckpoint = {
      checkpoint_version: EXPORT_CHECKPOINT_VERSION,
      phase: 'new',
      header: exact,
      sha256_state: null,
      body_sha256: null,
      bytes: 0,
      operations: 0,
      proofs: 0,
      payloads: 0,
      last: null,
      agent_keys: [],
      receipt_kids: [],
      epoch_windows: '',
      epochs: 0,
      epoch_sum: empty,
      offered_after: null,
      offered: 0,
      offered_sum: empty,
      service_jwks: null,
    };
    return new ExportBundleWriter(state, await createResumableSha256());
  }

  /**
   * A writer that goes on from a {@link ExportBundleWriter.checkpoint}, in this or another
   * process. Throws ProtocolError `INVALID_CHECKPOINT` for anything else.
   *
   * @example
   * const w = await ExportBundleWriter.resume(JSON.parse(item.writer_checkpoint));
   */
  static async resume(resumeState: ExportWriterCheckpoint): Promise<ExportBundleWriter> {
    const state = checkedResumeState(resumeState);
    const hashing = state.phase === 'new' || state.phase === 'operations' || state.phase === 'epochs';
    const hasher = hashing ? await createResumableSha256(state.sha256_state ?? undefined) : null;
    try {
      return new ExportBundleWriter(state, hasher);
    } catch (err) {
      if (err instanceof ProtocolError) throw new ProtocolError('INVALID_CHECKPOINT', err.message, { cause: err });
      throw err;
    }
  }

  /** The next call allowed: see the file comment. */
  get phase(): ExportWriterPhase {
    return this.state.phase;
  }

  /** Bytes of the file returned so far, across every resumed piece. */
  get bytesWritten(): number {
    return this.state.bytes;
  }

  /** Operations written so far (the export's progress). */
  get operationsWritten(): number {
    return this.state.operations;
  }

  /** (created_at, operation_id) of the last operation written: continue the query after it. */
  get lastOperation(): { created_at: number; operation_id: string } | null {
    const last = this.state.last;
    return last === null ? null : { created_at: last[0], operation_id: last[1] };
  }

  /**
   * The resume state to store between pieces: plain JSON, a few KB (see ExportWriterCheckpoint).
   * Take it together with the bytes returned so far: resuming from it continues right
   * after them.
   *
   * @example
   * const text = JSON.stringify(w.checkpoint());
   */
  checkpoint(): ExportWriterCheckpoint {
    const hashing = this.hasher !== null;
    return {
      ...this.state,
      header: structuredClone(this.state.header),
      sha256_state: hashing ? (this.hasher as ResumableSha256).save() : null,
      last: this.state.last === null ? null : [...this.state.last],
      agent_keys: [...this.keys.values()].sort(compareKeyPairs).map(([a, k]) => [a, k]),
      receipt_kids: [...this.receiptKids].sort(),
      epoch_windows: this.windows.encode(),
      epoch_sum: this.epochSum.toString(),
      offered_sum: this.offeredSum.toString(),
      service_jwks: this.state.service_jwks === null ? null : structuredClone(this.state.service_jwks),
    };
  }

  private expect(phase: ExportWriterPhase, call: string): void {
    if (this.state.phase !== phase) {
      throw writerError(`${call}() is not allowed in phase '${this.state.phase}' (expected '${phase}')`);
    }
  }

  /** Count `text` as emitted; hash it when it is part of the body. */
  private emit(parts: readonly (string | Uint8Array)[], hashed: boolean): Uint8Array {
    const chunks = parts.map((p) => (typeof p === 'string' ? utf8.encode(p) : p));
    let size = 0;
    for (const c of chunks) size += c.byteLength;
    const out = chunks.length === 1 ? (chunks[0] as Uint8Array) : new Uint8Array(size);
    if (chunks.length > 1) {
      let offset = 0;
      for (const c of chunks) {
        out.set(c, offset);
        offset += c.byteLength;
      }
    }
    if (hashed) (this.hasher as ResumableSha256).update(out);
    this.state.bytes += out.byteLength;
    return out;
  }

  /**
   * The start of the file, up to the opening of `operations`.
   *
   * @example
   * await upload(w.open()); // '{"body":{"bundle_version":"1.0","export":{...},"operations":['
   */
  open(): Uint8Array {
    this.expect('new', 'open');
    const head = this.emit([FILE_OPEN], false);
    const body = this.emit([`{${member('bundle_version')}${canonicalize(EXPORT_BUNDLE_VERSION)},${member('export')}`, canonicalize(this.state.header), OPERATIONS_OPEN], true);
    this.state.phase = 'operations';
    return concat(head, body);
  }

  /**
   * Append one operation. `epoch` is the epoch its proof points to (required with a proof,
   * refused without one). Operations must come in strictly ascending (created_at,
   * operation_id), inside the export's query and organization; the payload must be absent
   * when the export leaves payloads out. Members beyond docs/EXPORT.md's are dropped.
   *
   * @example
   * for (const item of page) await upload(w.addOperation(item.operation, item.epoch));
   */
  addOperation(operation: ExportOperation, epoch?: ExportEpochRecord): Uint8Array {
    this.expect('operations', 'addOperation');
    if (operation === null || typeof operation !== 'object') throw writerError('operation must be an object');
    const entry = operationEntry(operation);
    const { row, record, receipt, proof } = entry;
    const { header } = this.state;
    const where = `operation ${String(row.operation_id)}`;
    const typed =
      typeof row.operation_id === 'string' &&
      Number.isSafeInteger(row.created_at) &&
      typeof record.agent_id === 'string' &&
      typeof record.agent_pubkey_kid === 'string' &&
      typeof receipt.service_kid === 'string';
    if (!typed) throw writerError(`${where} lacks operation_id, created_at, agent_id, agent_pubkey_kid or service_kid`);
    if (row.org_id !== header.org_id) throw writerError(`${where} belongs to another organization`);
    const q = header.query;
    if (!(row.created_at >= q.start_time && row.created_at < q.end_time)) throw writerError(`${where} lies outside the export's time range`);
    if (q.agent_id !== null && row.agent_id !== q.agent_id) throw writerError(`${where} is not of agent ${q.agent_id}`);
    if (q.operation_type !== null && row.operation_type !== q.operation_type) throw writerError(`${where} is not of type ${q.operation_type}`);
    const last = this.state.last;
    if (last !== null && !(row.created_at > last[0] || (row.created_at === last[0] && row.operation_id > last[1]))) {
      throw writerError(`${where} does not come after ${last[1]} in (created_at, operation_id) order`);
    }
    const hasPayload = Object.hasOwn(entry, 'payload');
    if (hasPayload && !header.include_payloads) throw writerError(`${where} carries a payload but the export leaves payloads out`);
    if (proof === undefined && epoch !== undefined) throw writerError(`${where} has an epoch but no proof`);
    const bytes = canonicalBytes(entry); // throws on a value that is not JSON, before any state changes
    if (proof !== undefined) this.notePointer(where, row.created_at, proof, epoch);
    const out = this.emit(this.state.operations === 0 ? [bytes] : [',', bytes], true);
    this.state.operations += 1;
    if (proof !== undefined) this.state.proofs += 1;
    if (hasPayload) this.state.payloads += 1;
    this.state.last = [row.created_at, row.operation_id];
    this.keys.set(keyOf(record.agent_id, record.agent_pubkey_kid), [record.agent_id, record.agent_pubkey_kid]);
    this.receiptKids.add(receipt.service_kid);
    return out;
  }

  /** Check a proof against the epoch it names and remember the epoch (before writing). */
  private notePointer(where: string, createdAt: number, proof: NonNullable<ExportOperation['proof']>, epoch: ExportEpochRecord | undefined): void {
    if (epoch === undefined) throw writerError(`${where} has a proof but no epoch was given`);
    if (epoch.org_id !== this.state.header.org_id) throw writerError(`${where}: epoch ${epoch.epoch_id} belongs to another organization`);
    if (proof.epoch_id !== epoch.epoch_id || proof.root_hash !== epoch.root_hash || proof.tree_size !== epoch.leaf_count) {
      throw writerError(`${where}: its proof does not name epoch ${epoch.epoch_id} (id, root_hash and tree_size must match)`);
    }
    // docs/PROTOCOL.md "Merkle epochs": an operation is covered by its own window's epoch or a later one.
    if (!(createdAt < epoch.end_time)) throw writerError(`${where} was created after the window of epoch ${epoch.epoch_id}`);
    const identity = epochIdentity(epoch);
    const seen = this.recentEpochs.get(epoch.start_time);
    if (seen !== undefined && !sameIdentity(seen, identity)) throw writerError(`${where}: two different epochs for the window starting ${epoch.start_time}`);
    if (this.windows.add(epoch.start_time, epoch.end_time)) {
      this.state.epochs += 1;
      this.epochSum.addValue(identity);
    }
    if (this.recentEpochs.size >= RECENT_EPOCHS_MAX) this.recentEpochs.clear();
    this.recentEpochs.set(epoch.start_time, identity);
  }

  /**
   * The (agent_id, kid) of every key that signed a written record, sorted: fetch these
   * keys for {@link ExportBundleWriter.endOperations}.
   *
   * @example
   * const keys = await Promise.all(w.referencedAgentKeys().map(({ agent_id, kid }) => store.agentKey(org, agent_id, kid)));
   */
  referencedAgentKeys(): { agent_id: string; kid: string }[] {
    return [...this.keys.values()].sort(compareKeyPairs).map(([agent_id, kid]) => ({ agent_id, kid }));
  }

  /**
   * Close `operations`, write `summary` and `agent_keys`, and open `epochs`. `agentKeys`
   * must hold every key of {@link ExportBundleWriter.referencedAgentKeys}; others are
   * ignored.
   *
   * @example
   * await upload(w.endOperations(keys));
   */
  endOperations(agentKeys: readonly ExportAgentKey[]): Uint8Array {
    this.expect('operations', 'endOperations');
    const given = new Map<string, ExportAgentKey>();
    for (const key of agentKeys) given.set(keyOf(key.agent_id, key.kid), key);
    const entries: ExportAgentKey[] = [];
    const missing: string[] = [];
    for (const [agentId, kid] of [...this.keys.values()].sort(compareKeyPairs)) {
      const key = given.get(keyOf(agentId, kid));
      if (key === undefined) {
        missing.push(`${agentId}/${kid}`);
        continue;
      }
      const entry = agentKeyEntry(key);
      if (!isB64u(entry.public_key, 32) || entry.algorithm !== 'ed25519') {
        throw writerError(`agent key ${agentId}/${kid} is not a 32-byte base64url Ed25519 key`);
      }
      entries.push(entry);
    }
    if (missing.length > 0) throw writerError(`agent keys missing for ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`);
    const summary: ExportSummary = {
      operations: this.state.operations,
      agents: new Set(entries.map((k) => k.agent_id)).size,
      agent_keys: entries.length,
      epochs: this.state.epochs,
      proofs: this.state.proofs,
      payloads: this.state.payloads,
    };
    const out = this.emit([OPERATIONS_CLOSE, canonicalize(summary), MATERIAL_OPEN, canonicalize(entries), EPOCHS_OPEN], true);
    this.state.phase = 'epochs';
    return out;
  }

  /**
   * The epochs to offer next: every epoch of the organization with `from <= start_time <
   * to`, in ascending start_time (some will not be wanted: a filtered export points to few
   * of them). null once every epoch pointed to was written.
   *
   * @example
   * const range = w.epochRange();
   * if (range) for await (const e of store.epochsByStart(org, range.from, range.to)) await upload(w.offerEpoch(e));
   */
  epochRange(): { from: number; to: number } | null {
    this.expect('epochs', 'epochRange');
    const span = this.windows.span();
    if (span === null || this.state.offered === this.state.epochs) return null;
    const after = this.state.offered_after;
    return { from: after === null ? span.start : Math.max(span.start, after + 1), to: span.end };
  }

  /**
   * Offer the next epoch of the organization (ascending start_time). Returns its bytes
   * when an operation's proof points to it, and no bytes otherwise.
   *
   * @example
   * await upload(w.offerEpoch({ epoch, anchor })); // anchor absent when not anchored
   */
  offerEpoch(offered: ExportEpoch): Uint8Array {
    this.expect('epochs', 'offerEpoch');
    const entry = epochEntry(offered);
    const { epoch } = entry;
    if (epoch.org_id !== this.state.header.org_id) throw writerError(`epoch ${epoch.epoch_id} belongs to another organization`);
    const after = this.state.offered_after;
    if (!Number.isSafeInteger(epoch.start_time) || (after !== null && epoch.start_time <= after)) {
      throw writerError(`epoch ${epoch.epoch_id} does not come after start_time ${String(after)}: offer epochs once each, ascending`);
    }
    if (!this.windows.has(epoch.start_time, epoch.end_time)) {
      this.state.offered_after = epoch.start_time;
      return EMPTY;
    }
    const identity = epochIdentity(epoch);
    const seen = this.recentEpochs.get(epoch.start_time);
    if (seen !== undefined && !sameIdentity(seen, identity)) {
      throw writerError(`epoch ${epoch.epoch_id} is not the epoch the proofs point to for its window`);
    }
    const bytes = canonicalBytes(entry);
    const out = this.emit(this.state.offered === 0 ? [bytes] : [',', bytes], true);
    this.state.offered += 1;
    this.state.offered_after = epoch.start_time;
    this.offeredSum.addValue(identity);
    return out;
  }

  /**
   * Close `epochs`, write the service JWKS and close the body. Throws unless exactly the
   * epochs pointed to were offered, and unless the JWKS holds every receipt's key.
   *
   * `log` is the organization's epoch log as of the export (docs/CHECKPOINTS.md "In an
   * export"); the verifier, not the writer, checks it against the epochs.
   *
   * @example
   * await upload(w.endEpochs({ keys: await signer.jwks() }, log));
   */
  endEpochs(serviceJwks: { keys: readonly Ed25519Jwk[] }, log?: ExportLog): Uint8Array {
    this.expect('epochs', 'endEpochs');
    if (this.state.offered !== this.state.epochs || !this.offeredSum.equals(this.epochSum)) {
      throw writerError(
        `the operations point to ${this.state.epochs} epochs but ${this.state.offered} matching ones were offered; ` +
          'offer every epoch of the organization in epochRange(), ascending',
      );
    }
    const keys = (serviceJwks?.keys ?? []).map(serviceJwkEntry);
    const kids = new Set<string>();
    for (const jwk of keys) {
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !isB64u(jwk.x, 32) || jwk.kid !== jwkThumbprint(jwk)) {
        throw writerError(`service JWK ${String(jwk.kid)} is not an Ed25519 JWK whose kid is its RFC 7638 thumbprint`);
      }
      kids.add(jwk.kid);
    }
    const unknown = [...this.receiptKids].filter((kid) => !kids.has(kid));
    if (unknown.length > 0) throw writerError(`the service JWKS lacks receipt key(s) ${unknown.join(', ')}`);
    const logText = log === undefined ? null : canonicalize(exactLog(log, this.state.header.org_id));
    const out = this.emit([...(logText === null ? [EPOCHS_CLOSE] : [EPOCHS_CLOSE_LOG, logText, LOG_CLOSE]), canonicalize({ keys }), '}}'], true);
    this.state.body_sha256 = b64uEncode((this.hasher as ResumableSha256).digest());
    this.hasher = null;
    this.state.service_jwks = keys;
    this.state.phase = 'signing';
    return out;
  }

  /**
   * SHA-256 of the canonical body: the 32 bytes the service signs for the manifest
   * (docs/EXPORT.md, Manifest), as receipts are signed (docs/PROTOCOL.md "Receipt").
   *
   * @example
   * const signature = await signer.sign(w.bodyDigest());
   */
  bodyDigest(): Uint8Array {
    if (this.state.body_sha256 === null) throw writerError(`bodyDigest() is not available in phase '${this.state.phase}'`);
    return b64uDecode(this.state.body_sha256);
  }

  /**
   * Write the manifest and close the file. The signature must verify over
   * {@link ExportBundleWriter.bodyDigest} with the JWKS key `service_kid` names.
   *
   * @example
   * await upload(w.finish({ service_kid: await signer.kid(), signature }));
   */
  finish(manifest: { service_kid: string; signature: Uint8Array | string }): Uint8Array {
    this.expect('signing', 'finish');
    const jwk = (this.state.service_jwks ?? []).find((k) => k.kid === manifest.service_kid);
    if (jwk === undefined) throw writerError(`service_kid ${manifest.service_kid} is not in the bundle's service JWKS`);
    const signature = typeof manifest.signature === 'string' ? manifest.signature : b64uEncode(manifest.signature);
    if (!verify(jwk.x, this.bodyDigest(), signature)) {
      throw writerError(`the manifest signature does not verify with service key ${manifest.service_kid}`);
    }
    const text = canonicalize({ body_sha256: this.state.body_sha256, service_kid: manifest.service_kid, signature });
    const out = this.emit([MANIFEST_OPEN, text, '}'], false);
    this.state.phase = 'done';
    return out;
  }
}

/** The log with exactly its docs/CHECKPOINTS.md members, refused when it is another organization's. */
function exactLog(log: ExportLog, orgId: string): ExportLog {
  if (log === null || typeof log !== 'object' || !Array.isArray(log.leaves) || !Array.isArray(log.entries)) throw writerError('log must have leaves and entries');
  if (log.checkpoint !== null && !String(log.checkpoint).startsWith(`${logOrigin(orgId)}\n`)) throw writerError("the log's checkpoint is not of this organization");
  const entries = log.entries.map((e) => {
    if (e.org_id !== orgId) throw writerError(`log entry ${String(e.epoch_index)} belongs to another organization`);
    const commitment = e.key_log_size === undefined ? {} : pickFields<EpochLogEntry>(e, KEY_COMMITMENT_FIELDS);
    return { ...pickFields<EpochLogEntry>(e, LOG_ENTRY_FIELDS), ...commitment, audit_path: [...e.audit_path] };
  });
  // docs/EXPORT.md "Key history": a 1.2 bundle always carries the key events, [] when there are none.
  const keyEvents = (log.key_events ?? []).map((k) => {
    if (k.org_id !== orgId) throw writerError(`key event ${String(k.key_index)} belongs to another organization`);
    return pickFields<KeyEvent>(k, KEY_EVENT_FIELDS);
  });
  return { checkpoint: log.checkpoint, leaves: [...log.leaves], entries, key_events: keyEvents };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

function exactHeader(header: ExportHeader): ExportHeader {
  if (header === null || typeof header !== 'object' || header.query === null || typeof header.query !== 'object') {
    throw writerError('header must be an object with a query');
  }
  const exact = pickFields<ExportHeader>(header, ['export_id', 'org_id', 'format', 'include_payloads', 'generated_at', 'query']);
  exact.query = pickFields(header.query, ['start_time', 'end_time', 'agent_id', 'operation_type']);
  const q = exact.query;
  const ok =
    typeof exact.export_id === 'string' &&
    typeof exact.org_id === 'string' &&
    (exact.format === 'json' || exact.format === 'pdf') &&
    typeof exact.include_payloads === 'boolean' &&
    Number.isSafeInteger(exact.generated_at) &&
    Number.isSafeInteger(q.start_time) &&
    Number.isSafeInteger(q.end_time) &&
    q.start_time < q.end_time &&
    (q.agent_id === null || typeof q.agent_id === 'string') &&
    (q.operation_type === null || typeof q.operation_type === 'string');
  if (!ok) throw writerError('header is not a valid body.export (docs/EXPORT.md)');
  return exact;
}

const PHASES: readonly ExportWriterPhase[] = ['new', 'operations', 'epochs', 'signing', 'done'];

/** Shape check of a resume state read back from storage (it is our own JSON, but stored). */
function checkedResumeState(cp: ExportWriterCheckpoint): ExportWriterCheckpoint {
  const bad = (what: string): never => {
    throw new ProtocolError('INVALID_CHECKPOINT', `export writer checkpoint: ${what}`);
  };
  if (cp === null || typeof cp !== 'object') bad('not an object');
  if (cp.checkpoint_version !== EXPORT_CHECKPOINT_VERSION) bad(`checkpoint_version ${String(cp.checkpoint_version)} is not ${EXPORT_CHECKPOINT_VERSION}`);
  if (!PHASES.includes(cp.phase)) bad('unknown phase');
  let header: ExportHeader;
  try {
    header = exactHeader(cp.header);
  } catch {
    return bad('header is not valid');
  }
  const counts = [cp.bytes, cp.operations, cp.proofs, cp.payloads, cp.epochs, cp.offered];
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0)) bad('counters must be non-negative integers');
  const hashing = cp.phase === 'new' || cp.phase === 'operations' || cp.phase === 'epochs';
  if (hashing !== (typeof cp.sha256_state === 'string')) bad('sha256_state does not fit the phase');
  if (!hashing && (typeof cp.body_sha256 !== 'string' || !Array.isArray(cp.service_jwks))) bad('body_sha256 and service_jwks are required once the body is closed');
  if (cp.last !== null && !(Array.isArray(cp.last) && Number.isSafeInteger(cp.last[0]) && typeof cp.last[1] === 'string')) bad('last');
  const pairs = Array.isArray(cp.agent_keys) && cp.agent_keys.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string');
  if (!pairs) bad('agent_keys');
  if (!Array.isArray(cp.receipt_kids) || !cp.receipt_kids.every((k) => typeof k === 'string')) bad('receipt_kids');
  if (typeof cp.epoch_windows !== 'string' || typeof cp.epoch_sum !== 'string' || typeof cp.offered_sum !== 'string') bad('epoch state');
  if (cp.offered_after !== null && !Number.isSafeInteger(cp.offered_after)) bad('offered_after');
  return structuredClone({ ...cp, header });
}
