/**
 * Checks of the organization's key history (bundle 1.2, docs/EXPORT.md "Key history") and of
 * the auditor's pins: every key event is well-formed, numbered and chained, a registration's
 * proof of possession holds where it has one (whether each key was proven: possession.ts),
 * the epoch log's entries commit to the events (`key_log_size`, `key_log_head`), each record
 * was signed within its key's window, and each agent's keys are pinned, unpinned or
 * mismatched. A key the service put in place of an agent's own fails here against pins;
 * against an earlier export it fails in since.ts.
 */
import { isB64u } from '../encoding/base64url.js';
import { KEY_HISTORY_BUNDLE_VERSIONS, type ExportBundleBody, type ExportHeader, type ExportLogEntry, type ExportOperation } from '../export/format.js';
import { KEY_EVENT_SHAPE, isHashB64u, shapeProblem } from '../export/shape.js';
import { publicKeyProblem } from '../crypto/curve.js';
import { b64uDecode } from '../encoding/base64url.js';
import { GENESIS_KEY_EVENT, KEY_EVENT_KINDS, KEY_START_KINDS, keyEventHash, keyThumbprint, type KeyEvent } from '../keys/event.js';
import { foldKeyHistory, keyUseProblem, type KeyHistory } from '../keys/history.js';
import { pinStatus, type AgentKeyPins } from '../keys/pins.js';
import { possessionProblem } from '../keys/possession.js';
import type { CheckedLog } from './log.js';
import { agentKeyIndex, type IndexedKey } from './material.js';
import type { ReportBuilder } from './report.js';

const WHERE = 'verification_material.log.key_events';

/** What the key checks read from the rest of the verification. */
export type KeyCheckInput = {
  body: ExportBundleBody;
  header: ExportHeader | null;
  log: CheckedLog | null;
  /** body.operations as checked (null where an operation did not check out) */
  operations: readonly (ExportOperation | null)[];
  keys: Map<string, IndexedKey>;
  pins: AgentKeyPins | null;
};

/** Why one event is not a well-formed successor of `prevHash` at `index`, or null. */
function eventProblem(raw: unknown, index: number, orgId: string, prevHash: string): string | null {
  const problem = shapeProblem(raw, KEY_EVENT_SHAPE);
  if (problem !== null) return problem;
  const e = raw as KeyEvent;
  if (e.org_id !== orgId) return `belongs to organization ${e.org_id}`;
  if (e.key_index !== index) return `key_index is ${e.key_index}, expected ${index}: the key events are not numbered 0, 1, 2, … without a gap`;
  if (!(KEY_EVENT_KINDS as readonly string[]).includes(e.event)) return `event ${e.event} is not one of ${KEY_EVENT_KINDS.join(', ')}`;
  if (!isHashB64u(e.thumbprint) || !isHashB64u(e.prev_event_hash)) return 'thumbprint and prev_event_hash must be 32 bytes of base64url';
  if (e.prev_event_hash !== prevHash) return `prev_event_hash is not the hash of key event ${index - 1}: the history was rewritten or an event left out`;
  if (!KEY_START_KINDS.includes(e.event)) {
    return e.public_key === null && e.proof === null ? null : `a ${e.event} event carries no public_key and no proof`;
  }
  if (!isB64u(e.public_key, 32)) return `the ${e.event} event of key ${e.kid} (agent ${e.agent_id}) must carry a 32-byte base64url public_key`;
  const point = publicKeyProblem(b64uDecode(e.public_key as string));
  if (point !== undefined) return `public_key ${point}`;
  if (keyThumbprint(e.public_key as string) !== e.thumbprint) return `thumbprint is not the RFC 7638 thumbprint of key ${e.kid}`;
  // No proof: the key was registered without one (docs/API.md §4.3), unproven but not
  // wrong; possession.ts reports it. A proof that is there must hold.
  if (e.proof === null) return null;
  const proof = possessionProblem(e.proof, e.public_key as string, { org_id: e.org_id, agent_id: e.agent_id, kid: e.kid }, e.time);
  return proof === null ? null : `agent ${e.agent_id} key ${e.kid}: ${proof}`;
}

/** The events one by one; null (reported) when one fails, since what follows it is not anchored. */
function checkEvents(report: ReportBuilder, raw: readonly unknown[], orgId: string): KeyEvent[] | null {
  let prev = GENESIS_KEY_EVENT;
  const events: KeyEvent[] = [];
  for (let i = 0; i < raw.length; i++) {
    const reason = eventProblem(raw[i], i, orgId, prev);
    if (!report.check(`${WHERE}[${i}]`, 'key_event', reason === null, reason ?? '')) return null;
    const event = raw[i] as KeyEvent;
    events.push(event);
    prev = keyEventHash(event);
  }
  return events;
}

/** The log entries' commitments (key_log_size, key_log_head) against the events. */
function checkCommitments(report: ReportBuilder, entries: readonly ExportLogEntry[], events: readonly KeyEvent[]): number {
  let committed = 0;
  let seen = false;
  entries.forEach((e, i) => {
    const where = `verification_material.log.entries[${i}]`;
    if (e.key_log_size === undefined || e.key_log_head === undefined) {
      const ok = !seen && e.key_log_size === undefined && e.key_log_head === undefined;
      report.check(where, 'key_log', ok, `epoch index ${e.epoch_index} commits to no key history although an earlier entry does (or names only half of it)`);
      return;
    }
    seen = true;
    const size = e.key_log_size;
    const head = size === 0 ? GENESIS_KEY_EVENT : size <= events.length ? keyEventHash(events[size - 1] as KeyEvent) : null;
    const ok = size >= committed && head !== null && head === e.key_log_head;
    const reason =
      size < committed
        ? `epoch index ${e.epoch_index} commits to ${size} key events, fewer than an earlier entry (${committed})`
        : head === null
          ? `epoch index ${e.epoch_index} commits to ${size} key events; the bundle holds ${events.length}`
          : `epoch index ${e.epoch_index} commits to a key history of ${size} events whose last hash is not the bundle's: the key history was rewritten`;
    if (report.check(where, 'key_log', ok, reason)) committed = size;
  });
  return committed;
}

/** key_log_size of the entry of each epoch (by epoch_id) that commits to the key history. */
function commitmentByEpoch(log: CheckedLog | null): Map<string, number> {
  const by = new Map<string, number>();
  for (const e of log?.entries ?? []) if (e.key_log_size !== undefined) by.set(e.epoch_id, e.key_log_size);
  return by;
}

/** Each record against its key's window, and against the key history its epoch committed to. */
function checkRecords(report: ReportBuilder, input: KeyCheckInput, history: KeyHistory, events: readonly KeyEvent[], log: CheckedLog | null): void {
  const committedAt = commitmentByEpoch(log);
  const startIndex = new Map(events.filter((e) => KEY_START_KINDS.includes(e.event)).map((e) => [agentKeyIndex(e.agent_id, e.kid), e.key_index]));
  const uncovered = new Set<string>();
  input.operations.forEach((op, i) => {
    if (op === null) return;
    const { record, row } = op;
    const key = input.keys.get(agentKeyIndex(record.agent_id, record.agent_pubkey_kid));
    if (key === undefined || key.problem !== null) return; // reported by the signature check
    const problem = keyUseProblem(history, record.agent_id, record.agent_pubkey_kid, key.key.public_key, row.created_at);
    if (problem === undefined) {
      uncovered.add(record.agent_id);
      return;
    }
    const where = `operations[${i}].record.agent_pubkey_kid`;
    if (!report.check(where, 'key_window', problem === null, `operation ${record.operation_id} of agent ${record.agent_id}: ${problem}`)) return;
    const size = op.proof === undefined ? undefined : committedAt.get(op.proof.epoch_id);
    const index = startIndex.get(agentKeyIndex(record.agent_id, record.agent_pubkey_kid)) as number;
    if (size !== undefined) {
      report.check(where, 'key_log', index < size, `operation ${record.operation_id} of agent ${record.agent_id}: key ${record.agent_pubkey_kid} is key event ${index}, after the ${size} events its epoch committed to`);
    }
  });
  for (const agent of uncovered) {
    report.notCovered(`agents.${agent}`, 'key_window', `agent ${agent} has no event in the key history (registered before key history existed): its keys are checked against the bundle alone`);
  }
}

/** Pinned, unpinned or mismatched, for each agent with records in the bundle. */
function checkPins(report: ReportBuilder, input: KeyCheckInput): void {
  const byAgent = new Map<string, Set<string>>();
  for (const op of input.operations) {
    if (op === null) continue;
    const key = input.keys.get(agentKeyIndex(op.record.agent_id, op.record.agent_pubkey_kid));
    if (key === undefined || key.problem !== null) continue;
    const set = byAgent.get(op.record.agent_id) ?? new Set<string>();
    set.add(keyThumbprint(key.key.public_key));
    byAgent.set(op.record.agent_id, set);
  }
  for (const agentId of [...byAgent.keys()].sort()) {
    const keys = [...(byAgent.get(agentId) as Set<string>)].sort();
    const { status, unpinned_keys } = pinStatus(input.pins, agentId, keys);
    report.agents.push({ agent_id: agentId, pin: status, keys, unpinned_keys });
    const where = `agents.${agentId}`;
    if (status === 'mismatched') report.fail(where, 'key_pin', `agent ${agentId} signed with key${unpinned_keys.length === 1 ? '' : 's'} ${unpinned_keys.join(', ')}, which the pins do not list: not the agent's own key`);
    else if (status === 'pinned') report.pass('key_pin');
    else report.notCovered(where, 'key_pin', `agent ${agentId} is not pinned: its keys are the ones the bundle names (agent-ledger verify --agent-keys PINS)`);
  }
}

/**
 * Check the key history and the pins. Returns the checked events for `verify --since`, or
 * null when the bundle has none or they did not check out.
 *
 * @example
 * const events = checkKeyHistory(report, { body, header, log, operations, keys, pins });
 */
export function checkKeyHistory(report: ReportBuilder, input: KeyCheckInput): KeyEvent[] | null {
  checkPins(report, input);
  const { body, header, log } = input;
  const material = body.verification_material as { log?: { key_events?: unknown } };
  const raw = material.log?.key_events;
  if (!KEY_HISTORY_BUNDLE_VERSIONS.includes(body.bundle_version)) {
    report.notCovered(WHERE, 'key_event', `bundle ${body.bundle_version} carries no key history: each record's key is checked against the bundle's agent_keys alone`);
    return null;
  }
  if (header === null || material.log === undefined || material.log === null) return null;
  if (!Array.isArray(raw)) {
    report.fail(WHERE, 'key_event', `a ${body.bundle_version} bundle must carry the organization's key events`);
    return null;
  }
  const events = checkEvents(report, raw, header.org_id);
  if (events === null) return null;
  const { history, problems } = foldKeyHistory(events);
  for (const p of problems) report.fail(`${WHERE}[${p.index}]`, 'key_event', p.reason);
  if (problems.length > 0) return null;
  if (log !== null) {
    const committed = checkCommitments(report, log.entries, events);
    if (events.length > committed) report.notCovered(`${WHERE}[${committed}]`, 'key_log', `${events.length - committed} key event${events.length - committed === 1 ? ' is' : 's are'} not yet committed by an epoch of the log`, events.length - committed);
  } else {
    report.notCovered(WHERE, 'key_log', 'the bundle carries no checked epoch log: the key history is committed to by nothing the verifier could check');
  }
  checkRecords(report, input, history, events, log);
  return events;
}
