/**
 * When a change that ends keys (retirement, revocation, agent revocation, deletion) says they
 * ended: the time of its key events and the keys' retired_at. The change takes its time when
 * the request starts, then may wait for the key history's sequencer (key-log.ts) while the key
 * still signs. A record accepted meanwhile must still lie inside the key's window, created_at
 * before its end (docs/PROTOCOL.md "Key events"; the verifier's key_window check), so the end
 * is never before the agent's latest accepted record, and the change's transaction is
 * conditioned on that (store/agents.ts ACCEPTED_BEFORE_END): a record accepted between the
 * read and the commit fails the commit, and the next attempt takes the time again.
 */
import type { AgentItem } from '../../store/ledger-items.js';

/**
 * The end for each attempt of one change: the request's time at first, the clock's on a later
 * attempt (one that failed: its time was taken too early), and always after the agent's latest
 * accepted record as the attempt read it.
 */
export function keyEndClock(requestedAt: number): (agent: AgentItem) => number {
  let attempts = 0;
  return (agent) => {
    const at = attempts++ === 0 ? requestedAt : Math.max(requestedAt, Date.now());
    return agent.latest_created_at === undefined ? at : Math.max(at, agent.latest_created_at + 1);
  };
}
