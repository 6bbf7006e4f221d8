/** GET /v1/agents and GET /v1/agents/:agent_id (docs/API.md §4.3), filtered by the read_all rule (§5). */
import { KEY_START_KINDS } from '@agent-ledger/protocol';
import { listAgents, listKeys } from '../../store/agents.js';
import { listKeyEvents } from '../../store/key-log.js';
import type { AgentKeyItem } from '../../store/ledger-items.js';
import { agentScope, inScope } from '../access/agent-visibility.js';
import type { OrgCaller } from '../auth/caller.js';
import { agentView, keyView, type AgentView, type KeyView } from './agent-view.js';
import { findVisibleAgent } from './find-agent.js';

export async function listVisibleAgents(caller: OrgCaller): Promise<AgentView[]> {
  const [agents, scope] = await Promise.all([listAgents(caller.orgId), agentScope(caller)]);
  return agents
    .filter((agent) => inScope(scope, agent.agent_id))
    .sort((a, b) => a.created_at - b.created_at || a.agent_id.localeCompare(b.agent_id))
    .map(agentView);
}

/** The agent, its keys, and its chain head so a client that lost its local state can resume. */
export async function getAgentDetail(
  caller: OrgCaller,
  agentId: string,
): Promise<{ agent: AgentView; keys: KeyView[]; chain: { seq_no: number; chain_hash: string } }> {
  const [agent, keys] = await Promise.all([findVisibleAgent(caller, agentId), listKeys(caller.orgId, agentId)]);
  return { agent: agentView(agent), keys: (await withPossession(caller.orgId, keys)).map(keyView), chain: { seq_no: agent.seq_no, chain_hash: agent.chain_hash } };
}

/**
 * Keys stored before `possession_proven` existed take it from their key event (docs/PROTOCOL.md
 * "Key events"): a `register` or `add` event with a proof is proven; one with `proof: null`, or
 * none at all (the agent predates key history), is not. Only read when such a key is present.
 */
async function withPossession(orgId: string, keys: AgentKeyItem[]): Promise<AgentKeyItem[]> {
  if (keys.every((key) => key.possession_proven !== undefined)) return keys;
  const proven = new Set<string>();
  for (const event of await listKeyEvents(orgId)) {
    if (KEY_START_KINDS.includes(event.event) && event.proof !== null) proven.add(`${event.agent_id}\n${event.kid}`);
  }
  return keys.map((key) => (key.possession_proven !== undefined ? key : { ...key, possession_proven: proven.has(`${key.agent_id}\n${key.kid}`) }));
}
