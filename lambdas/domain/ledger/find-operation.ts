/**
 * The operation a request names, as the caller may see it: a strongly consistent point read
 * in the caller's organization (tenancy is in the key), then the read_all rule (docs/API.md §5)
 * on its agent. An operation of an agent the caller may not see is NOT_FOUND, like a missing one.
 */
import type { OperationItem } from '../../store/ledger-items.js';
import { readOperation } from '../../store/operations.js';
import { canSeeAgent } from '../access/agent-visibility.js';
import type { OrgCaller } from '../auth/caller.js';
import { notFound } from '../../shared/errors.js';

export async function findVisibleOperation(caller: OrgCaller, operationId: string): Promise<OperationItem> {
  const row = await readOperation(caller.orgId, operationId);
  if (!row || !(await canSeeAgent(caller, row.agent_id))) throw notFound(`operation ${operationId}`);
  return row;
}
