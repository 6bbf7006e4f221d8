/** Stored agent and key items as the API shows them (docs/API.md §2.4, §2.5): exactly those fields. */
import type { AgentItem, AgentKeyItem } from '../../store/ledger-items.js';

export interface AgentView {
  agent_id: string;
  org_id: string;
  display_name: string;
  responsible_entity: string | null;
  integration_type: AgentItem['integration_type'];
  status: AgentItem['status'];
  created_at: number;
  updated_at: number;
  /** docs/API.md §2.4: the agent's last accepted record or kept refused attempt, null when never seen. */
  last_seen_at: number | null;
}

export interface KeyView {
  kid: string;
  agent_id: string;
  public_key: string;
  algorithm: 'ed25519';
  status: AgentKeyItem['status'];
  created_at: number;
  retired_at: number | null;
  /** null: a key stored before the field existed whose key event was not looked up (read-agents.ts does) */
  possession_proven: boolean | null;
}

/** The later of the newest accepted record's created_at and the last kept attempt (ledger-items.ts AgentItem). */
function lastSeenAt(item: AgentItem): number | null {
  const seen = [item.latest_created_at, item.last_attempt_at].filter((at): at is number => at !== undefined);
  return seen.length === 0 ? null : Math.max(...seen);
}

export function agentView(item: AgentItem): AgentView {
  return {
    agent_id: item.agent_id,
    org_id: item.org_id,
    display_name: item.display_name,
    responsible_entity: item.responsible_entity ?? null,
    integration_type: item.integration_type,
    status: item.status,
    created_at: item.created_at,
    updated_at: item.updated_at,
    last_seen_at: lastSeenAt(item),
  };
}

export function keyView(item: AgentKeyItem): KeyView {
  return {
    kid: item.kid,
    agent_id: item.agent_id,
    public_key: item.public_key,
    algorithm: item.algorithm,
    status: item.status,
    created_at: item.created_at,
    retired_at: item.retired_at ?? null,
    possession_proven: item.possession_proven ?? null,
  };
}
