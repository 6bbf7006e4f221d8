/**
 * GET /v1/agents/:agent_id/attempts (docs/API.md §4.3 "Refused attempts", §2.14): the agent's
 * kept refused submissions, newest first. The agent is looked up as the caller may see it
 * (find-agent.ts), so another organization's agent is NOT_FOUND like a missing one; the log
 * itself is read under the caller's organization. A page is bounded in bytes as the audit
 * query's is (audit/page-budget.ts): an attempt holds a record with 32 KiB subject and action.
 */
import type { OperationRecord } from '@agent-ledger/protocol';
import { attemptPosition, attemptsNewestFirst, type AttemptItem } from '../../store/attempts.js';
import { decodePageCursor, encodePageCursor } from '../../shared/page-cursor.js';
import { withinPageBudget } from '../audit/page-budget.js';
import type { OrgCaller } from '../auth/caller.js';
import { findVisibleAgent } from './find-agent.js';

/** Opaque to clients: the position of the last attempt of the previous page (shared/page-cursor.ts). */
const CURSOR_PREFIX = 'a1.';

export interface AttemptView {
  operation_id: string;
  agent_id: string;
  kid: string;
  refused_code: AttemptItem['refused_code'];
  refused_message: string;
  received_at: number;
  /** The record as submitted; without `payload` when the payload was over LEDGER_INLINE_PAYLOAD_BYTES. */
  record: Partial<OperationRecord>;
  payload_hash: string;
}

function attemptView(item: AttemptItem): AttemptView {
  const record = JSON.parse(item.record_json) as Partial<OperationRecord>;
  return {
    operation_id: item.operation_id,
    agent_id: item.agent_id,
    kid: item.kid,
    refused_code: item.refused_code,
    refused_message: item.refused_message,
    received_at: item.received_at,
    record: item.payload_json === undefined ? record : { ...record, payload: JSON.parse(item.payload_json) as OperationRecord['payload'] },
    payload_hash: item.payload_hash,
  };
}

export async function listAttempts(
  caller: OrgCaller,
  agentId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ attempts: AttemptView[]; cursor?: string }> {
  const before = page.cursor === undefined ? undefined : decodePageCursor(CURSOR_PREFIX, page.cursor);
  await findVisibleAgent(caller, agentId);
  const { items, more } = await attemptsNewestFirst(caller.orgId, agentId, page.limit, before);
  const attempts = withinPageBudget(items.map(attemptView));
  const last = items[attempts.length - 1];
  return more || attempts.length < items.length ? { attempts, cursor: encodePageCursor(CURSOR_PREFIX, attemptPosition(last!)) } : { attempts };
}
