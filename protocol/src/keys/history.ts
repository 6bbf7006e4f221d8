/**
 * An agent's key history read from its key events (docs/PROTOCOL.md "Key events"): for each
 * key, when it came into use and when it stopped (retired, revoked, or its agent deleted).
 * A record is signed within its key's window or it is not: a key used before its
 * registration, or at or after its end, fails (verify/keys.ts), and every earlier record
 * of a rotated, retired or revoked key stays verifiable.
 */
import type { KeyEvent } from './event.js';

/** One key's valid window. */
export type KeyWindow = {
  agent_id: string;
  kid: string;
  public_key: string;
  thumbprint: string;
  /** time of its `register` or `add` event */
  from: number;
  /** time of the first `retire`, `revoke` or `delete` event naming it; null while in use */
  until: number | null;
  /** the event that ended it */
  ended_by: KeyEvent['event'] | null;
};

/** Agent id → kid → window. */
export type KeyHistory = Map<string, Map<string, KeyWindow>>;

/**
 * Fold events (already checked one by one, in key_index order) into windows. Returns the
 * history and, for each event that does not fit it (a second registration of a kid, an end
 * for a key never registered, a thumbprint that is not the registered key's), its index and
 * why.
 *
 * @example
 * const { history, problems } = foldKeyHistory(events);
 */
export function foldKeyHistory(events: readonly KeyEvent[]): { history: KeyHistory; problems: { index: number; reason: string }[] } {
  const history: KeyHistory = new Map();
  const problems: { index: number; reason: string }[] = [];
  events.forEach((e, index) => {
    const keys = history.get(e.agent_id) ?? new Map<string, KeyWindow>();
    history.set(e.agent_id, keys);
    const known = keys.get(e.kid);
    if (e.event === 'register' || e.event === 'add') {
      if (known !== undefined) return problems.push({ index, reason: `key ${e.kid} of agent ${e.agent_id} is registered twice` });
      keys.set(e.kid, { agent_id: e.agent_id, kid: e.kid, public_key: e.public_key as string, thumbprint: e.thumbprint, from: e.time, until: null, ended_by: null });
      return;
    }
    if (known === undefined) return problems.push({ index, reason: `${e.event} of key ${e.kid} of agent ${e.agent_id}, which was never registered` });
    if (known.thumbprint !== e.thumbprint) return problems.push({ index, reason: `${e.event} names key ${e.kid} of agent ${e.agent_id} with thumbprint ${e.thumbprint}, registered as ${known.thumbprint}` });
    // A revoked key keeps its earlier retirement as its end (docs/API.md "Key status").
    if (known.until === null) {
      known.until = e.time;
      known.ended_by = e.event;
    }
  });
  return { history, problems };
}

/**
 * null when `publicKey` under (agentId, kid) could sign at `time` by `history`; otherwise
 * why not. `undefined` when the history has no event of the agent at all (an agent
 * registered before key history existed: not covered).
 *
 * @example
 * keyUseProblem(history, 'agent-a', 'k1', publicKey, row.created_at); // null
 */
export function keyUseProblem(history: KeyHistory, agentId: string, kid: string, publicKey: string, time: number): string | null | undefined {
  const keys = history.get(agentId);
  if (keys === undefined) return undefined;
  const w = keys.get(kid);
  if (w === undefined) return `key ${kid} of agent ${agentId} is not in the agent's key history`;
  if (w.public_key !== publicKey) return `key ${kid} of agent ${agentId} is not the key its history registered (thumbprint ${w.thumbprint})`;
  if (time < w.from) return `signed at ${time}, before key ${kid} was registered at ${w.from}`;
  if (w.until !== null && time >= w.until) return `signed at ${time}, after key ${kid} was ${w.ended_by === 'retire' ? 'retired' : w.ended_by === 'revoke' ? 'revoked' : 'deleted with its agent'} at ${w.until}`;
  return null;
}
