/**
 * POST /v1/audit/query (docs/API.md §4.6): an organization's stored rows (§2.2), filtered by
 * agent, operation type and created_at range in any combination, oldest first in
 * (created_at, operation_id) order, `limit` at a time.
 *
 * The first page fixes the listing: its `until` (the request time, or end_time when that is
 * earlier) bounds every later page, and total_count is counted once, there, and repeated by
 * every page of the same pagination (the cursor carries both). Operations that arrive while
 * a client pages are therefore neither listed nor counted, so the total stays the number of
 * rows the pages return; a new query sees them. Auditor roles all have read_all (docs/API.md
 * §5), so no agent visibility applies.
 *
 * A page also stops early at PAGE_BYTE_BUDGET (page-budget.ts): rows of up to 64 KiB of
 * subject and action would otherwise make a 500-row page larger than a Lambda response may be.
 * Its cursor then continues right after its last row, like any other.
 */
import type { Encryptor } from '../ports.js';
import type { OrgCaller } from '../auth/caller.js';
import { operationPage, type OperationFilter } from '../../store/operation-index.js';
import { countMatches } from './count-matches.js';
import type { OperationItem } from '../../store/ledger-items.js';
import { STORED_ROW_FIELDS } from '@agent-ledger/protocol';
import { storedOperationView } from '../ledger/operation-row.js';
import { openCursor, sealCursor, type CursorBinding } from './cursor.js';
import { withinPageBudget } from './page-budget.js';

interface AuditQueryRequest {
  agent_id?: string | undefined;
  operation_type?: string | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
  cursor?: string | undefined;
  limit: number;
}

type StoredOperationView = ReturnType<typeof storedOperationView>;

export interface AuditQueryResult {
  operations: StoredOperationView[];
  total_count: number;
  cursor?: string;
}

export async function queryAudit(ports: { encryptor: Encryptor }, caller: OrgCaller, request: AuditQueryRequest, now = Date.now()): Promise<AuditQueryResult> {
  const binding: CursorBinding = {
    orgId: caller.orgId,
    agent_id: request.agent_id ?? null,
    operation_type: request.operation_type ?? null,
    start_time: request.start_time ?? null,
    end_time: request.end_time ?? null,
  };
  const previous = request.cursor === undefined ? undefined : await openCursor(ports.encryptor, binding, request.cursor);
  const until = previous?.until ?? Math.min(request.end_time ?? Number.MAX_SAFE_INTEGER, now + 1);
  const filter: OperationFilter = {
    agentId: request.agent_id,
    operationType: request.operation_type,
    startTime: request.start_time,
    endTime: until,
  };
  const pageRead = operationPage(caller.orgId, filter, { limit: request.limit, after: previous?.after, attributes: STORED_ROW_FIELDS });
  const [page, total] = await Promise.all([pageRead, previous?.total ?? countMatches(caller.orgId, { ...filter, endTime: until })]);
  const read = page.items.map((item) => storedOperationView(item as unknown as OperationItem));
  const operations = withinPageBudget(read);
  const more = page.more || operations.length < read.length;
  const last = operations.at(-1);
  if (!more || last === undefined) return { operations, total_count: total };
  const cursor = await sealCursor(ports.encryptor, binding, {
    after: { created_at: last.created_at, operation_id: last.operation_id },
    total,
    until,
  });
  return { operations, total_count: total, cursor };
}
