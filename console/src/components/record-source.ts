/**
 * Which client made a record, so that a label says only what is known: the coding-tool hook
 * records `tool.invoke` with `subject {kind: 'workspace', id}` and `action {verb, target}`
 * (docs/HOOKS.md) for an agent registered with one of the fifteen tools' integration types
 * (docs/API.md §2.5 `integration_type`); a record of that shape by an `sdk`, `gui`,
 * `enterprise` or `other` agent was made by other code, which may have run it or not.
 */
import { useEffect, useState } from 'preact/hooks';
import { TOOL_FLAGS } from '../../../client/src/tools/flags.js';
import { api, call } from '../api/client.js';

/** The integration types of agents whose records the coding-tool hook makes: the tools' flags (docs/HOOKS.md). */
const HOOK_INTEGRATIONS: ReadonlySet<string> = new Set(TOOL_FLAGS);

export type RecordSource = 'hook' | 'other' | 'unknown';

const hasOnly = (value: Record<string, unknown>, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));

/** By shape and, when known, the agent's integration type ('unknown' when the agent is not at hand). */
export function recordSource(op: { operation_type: string }, subject: Record<string, unknown>, action: Record<string, unknown>, integrationType: string | undefined): RecordSource {
  const hookShaped = op.operation_type === 'tool.invoke' && subject.kind === 'workspace' && hasOnly(subject, ['kind', 'id']) && hasOnly(action, ['verb', 'target']);
  if (!hookShaped) return 'other';
  if (integrationType === undefined) return 'unknown';
  return HOOK_INTEGRATIONS.has(integrationType) ? 'hook' : 'other';
}

/** How long one read of the agents serves every row and table (a new agent is labelled within it). */
const FRESH_MS = 30_000;
let loaded: { at: number; types: Promise<Map<string, string>> } | undefined;

/** Agent id → integration type (GET /v1/agents, shared by every row); empty until it is in, or if it fails. */
export function useIntegrationTypes(): Map<string, string> {
  const [types, setTypes] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (loaded === undefined || Date.now() - loaded.at > FRESH_MS) {
      loaded = { at: Date.now(), types: call(api.GET('/v1/agents')).then((data) => new Map(data.agents.map((agent) => [agent.agent_id, agent.integration_type]))) };
    }
    loaded.types.then(setTypes, () => {
      loaded = undefined; // tried again by the next table
    });
  }, []);
  return types;
}
