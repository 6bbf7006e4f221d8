/**
 * The agent a request names, as the caller may see it (docs/API.md §5 read_all rule,
 * access/agent-visibility.ts): an agent the caller may not see is answered exactly like a
 * missing one, NOT_FOUND, so its existence does not leak. (Submission answers both with
 * UNKNOWN_AGENT instead, docs/API.md §4.5 rule 1.)
 */
import { readAgent } from '../../store/agents.js';
import type { AgentItem } from '../../store/ledger-items.js';
import { canSeeAgent } from '../access/agent-visibility.js';
import type { OrgCaller } from '../auth/caller.js';
import { notFound } from '../../shared/errors.js';

export async function findVisibleAgent(caller: OrgCaller, agentId: string): Promise<AgentItem> {
  const [agent, visible] = await Promise.all([readAgent(caller.orgId, agentId), canSeeAgent(caller, agentId)]);
  if (!agent || !visible) throw notFound(`agent ${agentId}`);
  return agent;
}
