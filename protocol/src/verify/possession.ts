/**
 * Whether each key that signed a record of the bundle was proven to be held by whoever
 * registered it (docs/PROTOCOL.md "Proof of possession"): its `register` or `add` event
 * carries a proof, which keys.ts already checked holds. /v1 registers a key without one
 * unless the organization requires it (docs/API.md §4.3), so a key may be unproven: its
 * event has `proof: null`, its agent was registered before key history existed, or the
 * bundle (1.0, 1.1) carries no key history at all. An unproven key is reported by agent and
 * kid, as not covered (a warning: nothing shows the key is not the agent's), or as a failure
 * when the auditor requires proofs (`agent-ledger verify --require-key-proofs`). A bundle's
 * `possession_proven` member of an agent key, where present, must say what the history says.
 */
import { KEY_HISTORY_BUNDLE_VERSIONS, type ExportBundleBody } from '../export/format.js';
import { KEY_START_KINDS, type KeyEvent } from '../keys/event.js';
import { agentKeyIndex, type IndexedKey } from './material.js';
import type { ReportBuilder } from './report.js';

/** What the possession check reads from the rest of the verification. */
export type PossessionCheckInput = {
  body: ExportBundleBody;
  keys: Map<string, IndexedKey>;
  /** the checked key events (keys.ts); null when the bundle has none or they did not check out */
  events: readonly KeyEvent[] | null;
  /** fail unproven keys instead of reporting them as not covered */
  requireKeyProofs: boolean;
};

/** Why a key is unproven, or null when its registration carries a proof. */
function unprovenBecause(input: PossessionCheckInput, starts: Map<string, KeyEvent>, agentsWithEvents: Set<string>, key: IndexedKey['key']): string | null {
  if (!KEY_HISTORY_BUNDLE_VERSIONS.includes(input.body.bundle_version)) return `bundle ${input.body.bundle_version} carries no key history, so no proof of possession`;
  const start = starts.get(agentKeyIndex(key.agent_id, key.kid));
  if (start !== undefined) return start.proof === null ? `its ${start.event} event (key event ${start.key_index}) carries no proof of possession: registered without one` : null;
  return agentsWithEvents.has(key.agent_id) ? 'it is not in the key history' : 'its agent was registered before key history existed';
}

/**
 * Report each used, well-formed agent key proven or not (check `key_possession`), and list
 * the unproven ones in `report.unprovenKeys`.
 *
 * @example
 * checkKeyPossession(report, { body, keys, events, requireKeyProofs: false });
 */
export function checkKeyPossession(report: ReportBuilder, input: PossessionCheckInput): void {
  // A bundle that should carry a key history but whose history did not check out has failed there already.
  if (KEY_HISTORY_BUNDLE_VERSIONS.includes(input.body.bundle_version) && input.events === null) return;
  const starts = new Map<string, KeyEvent>();
  const agentsWithEvents = new Set<string>();
  for (const e of input.events ?? []) {
    agentsWithEvents.add(e.agent_id);
    if (KEY_START_KINDS.includes(e.event)) starts.set(agentKeyIndex(e.agent_id, e.kid), e);
  }
  const keys = [...input.keys.values()].filter((k) => k.problem === null && k.used).sort((a, b) => a.index - b.index);
  for (const k of keys) {
    const where = `agent_keys[${k.index}]`;
    const { agent_id: agentId, kid } = k.key;
    const reason = unprovenBecause(input, starts, agentsWithEvents, k.key);
    const claimed = k.key.possession_proven;
    if (claimed !== undefined && claimed !== (reason === null)) {
      report.fail(where, 'key_possession', `agent ${agentId} key ${kid}: possession_proven is ${claimed}, but ${reason ?? 'its registration carries a proof of possession'}`);
      continue;
    }
    if (reason === null) {
      report.pass('key_possession');
      continue;
    }
    report.unprovenKeys.push({ agent_id: agentId, kid, reason });
    const text = `agent ${agentId} key ${kid}: possession not proven (${reason})`;
    if (input.requireKeyProofs) report.fail(where, 'key_possession', `${text}; proofs are required (--require-key-proofs)`);
    else report.notCovered(where, 'key_possession', text);
  }
}
