/**
 * How many operations of a sealed window match each audit filter (docs/API.md §4.6 total_count,
 * §4.8 progress): per agent, per operation type and per pair, kept on the epoch item and
 * summed per hour and day (store/epoch-span-counts.ts). The sealer reads every member of a window
 * anyway (seal-organization.ts), and a sealed window never changes (the fence), so these
 * counts are exact for good and a count over sealed history reads a few items instead of
 * every index entry (domain/audit/count-matches.ts).
 *
 * An organization with very many agents and types would make the maps large; past
 * MAX_COUNTS_BYTES they are left out, and readers count that window from the index instead.
 */
import type { EpochCounts } from '../../store/epochs.js';

export type { EpochCounts };

/** What a count is filtered by (the time range is the caller's). */
interface CountFilter {
  agentId?: string | undefined;
  operationType?: string | undefined;
}

/** Well under DynamoDB's 400 KB item limit, with room for the epoch's own fields. */
export const MAX_COUNTS_BYTES = 64 * 1024;

const pairKey = (agentId: string, operationType: string) => JSON.stringify([agentId, operationType]);

function add(into: Record<string, number>, key: string, n: number): void {
  into[key] = (into[key] ?? 0) + n;
}

/** The counts of a window's members; undefined when they would be too large to keep, or a member's agent or type is unknown. */
export function countMembers(members: readonly { agent_id: string | undefined; operation_type: string | undefined }[]): EpochCounts | undefined {
  const counts: EpochCounts = { agents: {}, types: {}, pairs: {} };
  for (const member of members) {
    if (member.agent_id === undefined || member.operation_type === undefined) return undefined;
    add(counts.agents, member.agent_id, 1);
    add(counts.types, member.operation_type, 1);
    add(counts.pairs, pairKey(member.agent_id, member.operation_type), 1);
  }
  return withinLimit(counts);
}

/** The sum of several windows' counts; undefined when it would be too large to keep. */
export function sumCounts(all: readonly EpochCounts[]): EpochCounts | undefined {
  const sum: EpochCounts = { agents: {}, types: {}, pairs: {} };
  for (const counts of all) {
    for (const part of ['agents', 'types', 'pairs'] as const) {
      for (const [key, n] of Object.entries(counts[part])) add(sum[part], key, n);
    }
  }
  return withinLimit(sum);
}

function withinLimit(counts: EpochCounts): EpochCounts | undefined {
  return Buffer.byteLength(JSON.stringify(counts)) <= MAX_COUNTS_BYTES ? counts : undefined;
}

/** How many of the counted operations match `filter`; `total` is the window's leaf count. */
export function matchingCount(counts: EpochCounts, total: number, filter: CountFilter): number {
  const { agentId, operationType } = filter;
  if (agentId !== undefined && operationType !== undefined) return counts.pairs[pairKey(agentId, operationType)] ?? 0;
  if (agentId !== undefined) return counts.agents[agentId] ?? 0;
  if (operationType !== undefined) return counts.types[operationType] ?? 0;
  return total;
}
