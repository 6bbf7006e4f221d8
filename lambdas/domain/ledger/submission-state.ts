/**
 * What a submission reads before it signs (docs/PROTOCOL.md check order, steps 2-3): the agent
 * with its chain head, its status and its sealing fence, the signing key, and whether the
 * caller may see the agent. On a warm process this is at most one strongly consistent
 * GetItem (docs/COST.md, Caches):
 *
 * - The agent item as this process last committed or read it is used when the record builds
 *   on exactly its chain head (prev_chain_hash = the cached chain_hash): a chain hash names
 *   one position of one chain, so a client that saw the latest receipt can only match a
 *   current entry; any other record reads the agent. The commit is conditioned on every part
 *   of the agent it relied on (head, status, keys_version, fence), so a stale entry can only
 *   make the commit fail, never let a wrong one through: a freeze, a revocation or a new head
 *   applies to the very next submission, which then reads the agent afresh. The submission
 *   re-reads too before it answers with a refusal found on a cached agent
 *   (submit-operation.ts), so the check order of docs/PROTOCOL.md holds on fresh state.
 * - A key is cached with the agent's keys_version it was read under. Every key change bumps
 *   keys_version in the same transaction (store/agents.ts), so a cached key is used only while
 *   the fresh agent read shows that same version, and the commit is conditioned on it too: a
 *   revoked or retired key applies to the very next submission.
 * - Whether a caller without read_all may see the agent (docs/API.md §5) is cached for
 *   LEDGER_CALLER_CACHE_MS, like the caller itself: an assignment removed takes effect
 *   within that time for submissions (reads check it every time).
 */
import { config } from '../../config.js';
import { readAgent, readAgentAndKey } from '../../store/agents.js';
import type { AgentItem, AgentKeyItem } from '../../store/ledger-items.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { READ_ALL_ROLES } from '../../shared/roles.js';
import { canSeeAgent } from '../access/agent-visibility.js';
import type { OrgCaller } from '../auth/caller.js';

/** Keys are immutable apart from their status, which keys_version guards: a long life is safe. */
const KEY_CACHE_MS = 10 * 60_000;
/** A stale head only costs a failed commit (and its signature), so a minute is plenty. */
const HEAD_CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

const keys = new TtlCache<{ keysVersion: number; key: AgentKeyItem }>(KEY_CACHE_MS, MAX_ENTRIES);
const heads = new TtlCache<AgentItem>(HEAD_CACHE_MS, MAX_ENTRIES);
let visibility: TtlCache<boolean> | undefined;

const keyId = (orgId: string, agentId: string, kid: string) => `${orgId}\0${agentId}\0${kid}`;

const agentId_ = (orgId: string, agentId: string) => `${orgId}\0${agentId}`;

interface SubmissionState {
  agent: AgentItem | null;
  key: AgentKeyItem | null;
  visible: boolean;
  /** Read from the table by this call (false: the agent is this process's cached head). */
  fresh: boolean;
}

async function agentAndKey(orgId: string, agentId: string, kid: string, head: AgentItem | undefined): Promise<[AgentItem | null, AgentKeyItem | null]> {
  const id = keyId(orgId, agentId, kid);
  const cached = keys.get(id);
  if (cached) {
    const agent = head ?? (await readAgent(orgId, agentId));
    if (!agent || agent.keys_version === cached.keysVersion) return [agent, cached.key];
  }
  const [agent, key] = await readAgentAndKey(orgId, agentId, kid);
  if (agent && key) keys.set(id, { keysVersion: agent.keys_version, key });
  else keys.delete(id);
  return [agent, key];
}

async function visibleTo(caller: OrgCaller, agentId: string): Promise<boolean> {
  if (READ_ALL_ROLES.includes(caller.role)) return true;
  visibility ??= new TtlCache(config().callerCacheMs, MAX_ENTRIES);
  const id = `${caller.orgId}\0${caller.userId}\0${agentId}`;
  const cached = visibility.get(id);
  if (cached !== undefined) return cached;
  const visible = await canSeeAgent(caller, agentId);
  visibility.set(id, visible);
  return visible;
}

/**
 * The state a submission checks. `prevChainHash` is the record's: the cached head is used
 * only when the record builds on it, and never when `fresh` is asked for.
 */
export async function readSubmissionState(
  caller: OrgCaller,
  agentId: string,
  kid: string,
  options: { prevChainHash: string; fresh: boolean },
): Promise<SubmissionState> {
  const cached = options.fresh ? undefined : heads.get(agentId_(caller.orgId, agentId));
  const head = cached?.chain_hash === options.prevChainHash ? cached : undefined;
  const [[agent, key], visible] = await Promise.all([agentAndKey(caller.orgId, agentId, kid, head), visibleTo(caller, agentId)]);
  if (agent && agent !== head) heads.set(agentId_(caller.orgId, agentId), agent);
  return { agent, key, visible, fresh: agent !== head || head === undefined };
}

/** The agent as this process just committed it (the new head), or forgets it after a failed commit. */
export function rememberHead(orgId: string, agentId: string, agent: AgentItem | null): void {
  if (agent) heads.set(agentId_(orgId, agentId), agent);
  else heads.delete(agentId_(orgId, agentId));
}
