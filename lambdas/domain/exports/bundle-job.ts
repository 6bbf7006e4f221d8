/**
 * Writes an export's JSON bundle (docs/EXPORT.md) into a multipart upload, in as many runs
 * as it takes: the operations in order, page by page through store/operation-index.ts, each
 * with its evidence (domain/ledger/evidence.ts); then the agent keys, the epochs the proofs
 * point to, the service JWKS and the signed manifest (ExportBundleWriter).
 *
 * After every part uploaded, `save` stores the writer's resume state with the upload's part
 * ETags; the next run resumes from the last saved state and writes exactly the bytes after
 * it. Nothing outside the resume state decides what is written next: the next page starts
 * after the writer's last operation, so an operation is written once however often a run
 * stops or crashes.
 */
import { ExportBundleWriter, type ExportAgentKey, type ExportHeader, type ExportWriterCheckpoint } from '@agent-ledger/protocol';
import { readKey } from '../../store/agents.js';
import { completeUpload, objectSize } from '../../store/export-objects.js';
import { OperationScan, type OperationFilter } from '../../store/operation-index.js';
import { epochInPicture, exportLog, logPicture, type LogPicture } from '../epochs/export-log.js';
import { epochsWithAnchors } from '../epochs/read-epochs.js';
import { loadEvidencePage, type ExportEvidence } from '../ledger/evidence.js';
import type { Ports } from '../ports.js';
import { PartSink, type UploadState } from './part-sink.js';

/** The bundle phase's state on the export item (JSON). */
export interface BundleState {
  checkpoint: ExportWriterCheckpoint | null;
  upload: UploadState | null;
  /** `<agent_id> <kid>` → the public key the rows carry, for keys whose agent was deleted since. */
  key_copies: Record<string, string>;
  /** The epoch log when the export began (epochs/export-log.ts); absent until the first run takes it. */
  log_picture?: LogPicture;
}

interface BundleRun {
  ports: Pick<Ports, 'signer'>;
  header: ExportHeader;
  state: BundleState;
  /** Where the upload goes. */
  key: string;
  partBytes: number;
  /** Operations read per page. */
  pageSize: number;
  /** Past this (ms since the epoch) the run stops right after the next part it saves (every run saves at least one). */
  deadline: number;
  now: () => number;
  /** Stores the state (with progress); false when the run lost its lease. */
  save(state: BundleState, operationsDone: number): Promise<boolean>;
  /** Refuses operations past a limit (a PDF report), before writing them. */
  maxOperations?: number;
}

/** What a run achieved: the bundle is complete under the key, or the run stopped (state saved). */
type BundleOutcome = { done: true; operations: number } | { done: false };

/** A run lost its lease: another run owns the export now and this one must write nothing more. */
export class LeaseLostError extends Error {
  constructor() {
    super('the export run lost its lease');
    this.name = 'LeaseLostError';
  }
}

/** The export needs more operations than its format allows (a permanent failure, said to the user). */
export class ExportTooLargeError extends Error {
  constructor(limit: number) {
    super(`more than ${limit} operations match: too many for a PDF report; export them as json, or narrow the range or filters`);
    this.name = 'ExportTooLargeError';
  }
}

const DAY_MS = 86_400_000;
/** Index entries read per request of a partition while going through an export's range (about 100 KB of keys). */
const INDEX_READ_ITEMS = 1_000;
const keyCopy = (agentId: string, kid: string) => `${agentId} ${kid}`;

export async function writeBundle(run: BundleRun): Promise<BundleOutcome> {
  if (run.state.checkpoint?.phase === 'done' && run.state.upload) {
    await completeOrConfirm(run.state.upload);
    return { done: true, operations: run.state.checkpoint.operations };
  }
  const writer = run.state.checkpoint ? await ExportBundleWriter.resume(run.state.checkpoint) : await ExportBundleWriter.create(run.header);
  const sink = await PartSink.open(run.state.upload, run.key, 'json', run.partBytes);
  const copies = { ...run.state.key_copies };
  // Before the first operation is read (and saved with the first save, below, before any is).
  const picture = run.state.log_picture !== undefined ? run.state.log_picture : await logPicture(run.header.org_id);
  const state = (): BundleState => ({ checkpoint: writer.checkpoint(), upload: sink.upload, key_copies: copies, log_picture: picture });
  const filter: OperationFilter = {
    agentId: run.header.query.agent_id ?? undefined,
    operationType: run.header.query.operation_type ?? undefined,
    startTime: run.header.query.start_time,
    endTime: run.header.query.end_time,
  };
  // A new upload is saved before any part goes to it, so a crash cannot orphan the upload id.
  if ((run.state.upload === null || run.state.log_picture === undefined) && !(await run.save(state(), writer.operationsWritten))) throw new LeaseLostError();

  let saved = false;
  /** At a part boundary: upload, then save the state the uploaded bytes end at. */
  const boundary = async (force: boolean): Promise<void> => {
    if (!sink.full && !force) return;
    await sink.flush();
    if (!(await run.save(state(), writer.operationsWritten))) throw new LeaseLostError();
    saved = true;
  };

  if (writer.phase === 'new') sink.write(writer.open());
  // The next page is read while this one is written (one page ahead): reading and writing overlap.
  const pages = writer.phase === 'operations' ? new EvidencePages(run, filter, writer.lastOperation ?? undefined) : undefined;
  while (writer.phase === 'operations' && pages) {
    // Stop only right after a saved part: nothing unsaved is thrown away, and every run moves on.
    if (saved && sink.buffered === 0 && run.now() >= run.deadline) return { done: false };
    const page = await pages.next();
    if (run.maxOperations !== undefined && writer.operationsWritten + page.evidence.length > run.maxOperations) throw new ExportTooLargeError(run.maxOperations);
    for (const { item, entry, epoch } of page.evidence) {
      // A proof into an epoch sealed after the picture is left out: the operation is unsealed
      // as of the export, as it was when the export began.
      if (epoch !== undefined && !epochInPicture(epoch, picture)) {
        const { proof: _later, ...unsealed } = entry;
        sink.write(writer.addOperation(unsealed));
      } else {
        sink.write(writer.addOperation(entry, epoch));
      }
      copies[keyCopy(item.agent_id, item.agent_pubkey_kid)] ??= item.agent_public_key;
    }
    if (!page.more) sink.write(writer.endOperations(await agentKeys(run.header.org_id, writer.referencedAgentKeys(), copies)));
    await boundary(false);
  }
  await writeEpochs(run.header.org_id, writer, sink);
  if (writer.phase === 'epochs') {
    const { org_id, query } = run.header;
    const [keys, log] = await Promise.all([run.ports.signer.jwks(), exportLog(org_id, query.start_time, query.end_time, picture)]);
    sink.write(writer.endEpochs({ keys }, log));
  }
  const [kid, signature] = await Promise.all([run.ports.signer.kid(), run.ports.signer.sign(writer.bodyDigest())]);
  sink.write(writer.finish({ service_kid: kid, signature }));
  // Every byte uploaded and that state saved before completing: a run that crashes after the
  // completion finds a finished writer and only confirms the object (below).
  await boundary(true);
  await completeOrConfirm(sink.upload);
  return { done: true, operations: writer.operationsWritten };
}

/**
 * The operations after the writer's last one, page by page with their evidence, each page's
 * read started as soon as the one before it is handed out. A page read ahead and not taken
 * (the run stops at its deadline) is dropped; the next run reads from its own resume state.
 */
class EvidencePages {
  private readonly scan: OperationScan;
  private ahead: Promise<{ evidence: ExportEvidence[]; more: boolean }>;

  constructor(
    private readonly run: BundleRun,
    filter: OperationFilter,
    after: { created_at: number; operation_id: string } | undefined,
  ) {
    this.scan = new OperationScan(run.header.org_id, filter, after, INDEX_READ_ITEMS);
    this.ahead = this.read();
    this.ahead.catch(() => undefined);
  }

  async next(): Promise<{ evidence: ExportEvidence[]; more: boolean }> {
    const page = await this.ahead;
    if (page.more) {
      this.ahead = this.read();
      // A read ahead that fails after its run stopped must not crash the process; a taken one throws where it is awaited.
      this.ahead.catch(() => undefined);
    }
    return page;
  }

  private async read(): Promise<{ evidence: ExportEvidence[]; more: boolean }> {
    const { positions, more } = await this.scan.nextPage(this.run.pageSize);
    const ids = positions.map((position) => position.operation_id);
    return { evidence: await loadEvidencePage(this.run.header.org_id, ids, { payloads: this.run.header.include_payloads }), more };
  }
}

/** Completes the upload; one completed by an earlier run that crashed right after counts as completed. */
async function completeOrConfirm(upload: UploadState): Promise<void> {
  try {
    await completeUpload(upload.key, upload.upload_id, upload.etags);
  } catch (error) {
    if ((await objectSize(upload.key)) === undefined) throw error;
  }
}

/**
 * Offers every epoch of the organization in the writer's range, a day of windows per read,
 * until the writer has all the epochs the proofs point to. No resume state is saved in between:
 * the epochs are few next to the operations, and a resumed run starts again where the last
 * saved resume state left the writer.
 */
async function writeEpochs(orgId: string, writer: ExportBundleWriter, sink: PartSink): Promise<void> {
  let from = writer.phase === 'epochs' ? writer.epochRange()?.from : undefined;
  for (let range = from === undefined ? null : writer.epochRange(); range !== null && from !== undefined && from < range.to; range = writer.epochRange()) {
    from = Math.max(from, range.from);
    const to = Math.min(range.to, from + DAY_MS);
    for (const epoch of await epochsWithAnchors(orgId, from, to)) sink.write(writer.offerEpoch(epoch));
    from = to;
  }
}

/** The keys that signed the bundle's records (docs/API.md §2.5); a deleted agent's keys from the rows' copies (docs/EXPORT.md). */
async function agentKeys(orgId: string, wanted: readonly { agent_id: string; kid: string }[], copies: Record<string, string>): Promise<ExportAgentKey[]> {
  return Promise.all(
    wanted.map(async ({ agent_id, kid }): Promise<ExportAgentKey> => {
      const key = await readKey(orgId, agent_id, kid);
      if (key) {
        const entry: ExportAgentKey = { kid, agent_id, public_key: key.public_key, algorithm: 'ed25519', status: key.status, created_at: key.created_at, retired_at: key.retired_at };
        // Keys stored before the field existed: left out, and the verifier reads their key events alone.
        if (key.possession_proven !== undefined) entry.possession_proven = key.possession_proven;
        return entry;
      }
      const copy = copies[keyCopy(agent_id, kid)];
      if (copy === undefined) throw new Error(`no public key known for ${agent_id}/${kid}`);
      return { kid, agent_id, public_key: copy, algorithm: 'ed25519', status: 'deleted', created_at: null, retired_at: null };
    }),
  );
}
