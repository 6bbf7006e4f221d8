/**
 * The report's tables (report.ts draws them with layout.ts): a chain verdict per agent, the
 * keys that signed, whether each was proven, the operations oldest first with what became of
 * each payload, and the epochs with their anchors.
 */
import type { ExportBundle, ExportOperation, ExportVerificationReport } from '@agent-ledger/protocol';
import { BODY_WIDTH, GREY, RED, type Cell, type Column } from './layout.js';
import { iso } from './prose.js';

interface Table {
  columns: Column[];
  rows: Iterable<Cell[]>;
}

/**
 * "verb target" of an operation: the command or target the agent acted on is `action.target`
 * (docs/API.md §2.1, as `agent-ledger submit --verb V --target X` and the hooks write it);
 * `subject` is where it acted (a workspace), used only when the action names no target.
 */
function verbAndTarget(action: string, subject: string): string {
  const pick = (json: string, names: string[]): string | undefined => {
    try {
      const value = JSON.parse(json) as Record<string, unknown>;
      for (const name of names) if (typeof value[name] === 'string' || typeof value[name] === 'number') return String(value[name]);
    } catch {
      // a row's JSON always parses; the report never fails on it regardless
    }
    return undefined;
  };
  const verb = pick(action, ['verb', 'name', 'type', 'tool', 'method']) ?? action;
  const target = pick(action, ['target', 'command', 'path', 'url']) ?? pick(subject, ['target', 'path', 'resource', 'file', 'url', 'command', 'id', 'name']) ?? subject;
  return `${verb} ${target}`;
}

/** Per agent: how many operations, which seq_no, and what the verifier says of its chain. */
function agentSummaries(bundle: ExportBundle, report: ExportVerificationReport) {
  const agents = new Map<string, { operations: number; first: number; last: number; broken: number; gaps: number }>();
  const agentOf = bundle.body.operations.map((op) => op.row.agent_id);
  for (const op of bundle.body.operations) {
    const a = agents.get(op.row.agent_id) ?? { operations: 0, first: op.row.seq_no, last: op.row.seq_no, broken: 0, gaps: 0 };
    a.operations += 1;
    a.first = Math.min(a.first, op.row.seq_no);
    a.last = Math.max(a.last, op.row.seq_no);
    agents.set(op.row.agent_id, a);
  }
  for (const finding of report.findings) {
    const index = /^operations\[(\d+)\]/.exec(finding.where)?.[1];
    const agent = index === undefined ? undefined : agents.get(agentOf[Number(index)] as string);
    if (!agent) continue;
    if (finding.status === 'failed' && ['chain_hash', 'chain_link', 'signature', 'row', 'order'].includes(finding.check)) agent.broken += 1;
    if (finding.status === 'not_covered' && finding.check === 'chain_link') agent.gaps += 1;
  }
  // chain_complete findings name the agent: chains["<agent_id>"] (protocol/src/verify/completeness.ts).
  for (const finding of report.findings) {
    const named = /^chains\[(".*")\]$/.exec(finding.where)?.[1];
    const agent = named === undefined ? undefined : agents.get(JSON.parse(named) as string);
    if (agent && finding.status === 'failed') agent.broken += 1;
  }
  return [...agents.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The chain column is the offline verifier's own verdict, run on the embedded bytes while the report is made. */
export function agentsTable(bundle: ExportBundle, report: ExportVerificationReport): Table {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return {
    columns: [
      { title: 'Agent', width: 260 },
      { title: 'Operations', width: 70 },
      { title: 'First seq_no', width: 70 },
      { title: 'Last seq_no', width: 70 },
      { title: 'Chain', width: BODY_WIDTH - 470 },
    ],
    rows: agentSummaries(bundle, report).map(([agentId, a]) => [
      agentId,
      String(a.operations),
      String(a.first),
      String(a.last),
      a.broken > 0
        ? { text: `BROKEN or INCOMPLETE: ${plural(a.broken, 'failed check')} (see agent-ledger verify)`, color: RED }
        : a.gaps > 0
          ? `intact where covered; ${plural(a.gaps, 'link')} to operations outside this export`
          : 'intact',
    ]),
  };
}

/**
 * The agent keys that signed the export's records, with their window and whether their
 * possession was proven. The Possession column is the offline verifier's own verdict
 * (protocol/src/verify/possession.ts, from the key history): an unproven key is a warning an
 * auditor may make a failure (`agent-ledger verify --require-key-proofs`), so it stands out.
 */
/** The verifier's reason in the few words a cell holds; the full reason is in `agent-ledger verify`'s output. */
function unprovenCell(reason: string): string {
  if (/carries no proof of possession/.test(reason)) return 'NOT PROVEN: registered without a proof';
  if (/before key history existed/.test(reason)) return 'NOT PROVEN: registered before key history';
  return `NOT PROVEN: ${reason}`;
}

export function keysTable(bundle: ExportBundle, report: ExportVerificationReport): Table {
  const unproven = new Map(report.unproven_keys.map((k) => [`${k.agent_id}\n${k.kid}`, k.reason]));
  const keys = [...bundle.body.verification_material.agent_keys].sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0));
  return {
    columns: [
      { title: 'Agent', width: 160 },
      { title: 'Key (kid)', width: 110 },
      { title: 'Status', width: 50 },
      { title: 'Registered (UTC)', width: 118 },
      { title: 'Retired (UTC)', width: 118 },
      { title: 'Proof of possession', width: BODY_WIDTH - 556 },
    ],
    rows: keys.map((key) => {
      const reason = unproven.get(`${key.agent_id}\n${key.kid}`);
      return [
        key.agent_id,
        key.kid,
        key.status,
        key.created_at === null ? { text: 'not known (agent deleted)', color: GREY } : iso(key.created_at),
        key.retired_at === null ? { text: '-', color: GREY } : iso(key.retired_at),
        reason === undefined ? 'proven' : { text: unprovenCell(reason), color: RED },
      ];
    }),
  };
}

/** Epochs are told apart by their index in this export and their window's start (their UUIDv7 ids share a prefix). */
function epochLabels(bundle: ExportBundle): Map<string, string> {
  return new Map(bundle.body.verification_material.epochs.map(({ epoch }, k) => [epoch.epoch_id, `#${k} ${iso(epoch.start_time).slice(11, 19)}`]));
}

/**
 * The Payload column: the offline verifier's own verdict on each operation's payload
 * (protocol/src/verify/operations.ts, docs/EXPORT.md "body.operations[i]"): `present` (it hashes to
 * payload_hash), `erased` (by an owner, through the service: the entry carries the mark),
 * `left out` (an export without payloads), `absent` (not covered: a 1.0 bundle, which marked
 * no erasure, or a row that names no stored copy);
 * in red `MISSING` (neither in the bundle nor marked erased: its stored copy was destroyed),
 * `ALTERED` (it does not hash to payload_hash) or `FAILED` (any other payload finding).
 */
function payloadCell(op: ExportOperation, includePayloads: boolean, failed: string | undefined): Cell {
  const present = Object.hasOwn(op, 'payload');
  if (failed !== undefined) return { text: !present ? 'MISSING' : failed.startsWith('SHA-256') ? 'ALTERED' : 'FAILED', color: RED };
  if (op.payload_erased !== undefined) return 'erased';
  if (present) return 'present';
  return { text: includePayloads ? 'absent' : 'left out', color: GREY };
}

export function operationsTable(bundle: ExportBundle, report: ExportVerificationReport): Table {
  const epochLabel = epochLabels(bundle);
  // Only the failed payload findings, by operation index: a handful, however long the export.
  const failedPayload = new Map<number, string>();
  for (const f of report.findings) {
    const index = f.check === 'payload' && f.status === 'failed' ? /^operations\[(\d+)\]\.payload$/.exec(f.where)?.[1] : undefined;
    if (index !== undefined && !failedPayload.has(Number(index))) failedPayload.set(Number(index), f.reason);
  }
  const includePayloads = bundle.body.export.include_payloads;
  return {
    columns: [
      { title: 'Time (UTC)', width: 118 },
      { title: 'Agent', width: 107 },
      { title: 'seq_no', width: 42 },
      { title: 'Type', width: 94 },
      { title: 'Verb and target', width: 174 },
      { title: 'Chain hash', width: 74 },
      { title: 'Payload', width: 50 },
      { title: 'Epoch, leaf', width: BODY_WIDTH - 659 },
    ],
    // A generator: the rows of a 10,000-operation report are made as they are drawn, never all at once.
    rows: (function* () {
      let i = 0;
      for (const op of bundle.body.operations) {
        yield [
          iso(op.row.created_at),
          op.row.agent_id,
          String(op.row.seq_no),
          op.row.operation_type,
          verbAndTarget(op.row.action, op.row.subject),
          { mono: `${op.row.chain_hash.slice(0, 10)}...` },
          payloadCell(op, includePayloads, failedPayload.get(i)),
          op.proof ? `${epochLabel.get(op.proof.epoch_id) ?? op.proof.epoch_id}, leaf ${op.proof.leaf_index}` : { text: 'not sealed yet', color: GREY },
        ];
        i += 1;
      }
    })(),
  };
}

export function epochsTable(bundle: ExportBundle): Table {
  return {
    columns: [
      { title: 'Epoch', width: 185 },
      { title: 'Window (UTC)', width: 200 },
      { title: 'Leaves', width: 35 },
      { title: 'Root hash', width: 215 },
      { title: 'Anchored (RFC 3161 genTime)', width: BODY_WIDTH - 635 },
    ],
    rows: bundle.body.verification_material.epochs.map(({ epoch, anchor }, k) => {
      const start = iso(epoch.start_time);
      const end = iso(epoch.end_time);
      return [
        `#${k} ${epoch.epoch_id}`,
        // The end's date only when it differs from the start's.
        `${start} to ${end.slice(end.slice(0, 10) === start.slice(0, 10) ? 11 : 0)}`,
        String(epoch.leaf_count),
        { mono: epoch.root_hash },
        anchor ? iso(anchor.anchored_at) : { text: 'not anchored', color: GREY },
      ];
    }),
  };
}
