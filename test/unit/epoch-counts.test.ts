/**
 * The counts an epoch and a day keep (domain/epochs/epoch-counts.ts): what each filter reads
 * from them, sums over windows, and the cases where none are kept so that readers count from
 * the index instead (maps too large, a member whose agent or type the index did not give).
 */
import { describe, expect, it } from 'vitest';
import { countMembers, matchingCount, MAX_COUNTS_BYTES, sumCounts } from '../../lambdas/domain/epochs/epoch-counts.js';

const members = [
  { agent_id: 'a', operation_type: 'file.edit' },
  { agent_id: 'a', operation_type: 'shell.run' },
  { agent_id: 'b', operation_type: 'file.edit' },
  { agent_id: 'a', operation_type: 'file.edit' },
];

describe('epoch counts', () => {
  it('answer every filter: none, agent, type, and agent with type', () => {
    const counts = countMembers(members)!;
    expect(matchingCount(counts, 4, {})).toBe(4);
    expect(matchingCount(counts, 4, { agentId: 'a' })).toBe(3);
    expect(matchingCount(counts, 4, { operationType: 'file.edit' })).toBe(3);
    expect(matchingCount(counts, 4, { agentId: 'a', operationType: 'file.edit' })).toBe(2);
    expect(matchingCount(counts, 4, { agentId: 'b', operationType: 'shell.run' })).toBe(0);
    expect(matchingCount(counts, 4, { agentId: 'nobody' })).toBe(0);
  });

  it('keep an agent and a type apart however their names look', () => {
    // A naive "agent type" key would make these two the same pair.
    const counts = countMembers([
      { agent_id: 'a b', operation_type: 'c' },
      { agent_id: 'a', operation_type: 'b c' },
    ])!;
    expect(matchingCount(counts, 2, { agentId: 'a b', operationType: 'c' })).toBe(1);
    expect(matchingCount(counts, 2, { agentId: 'a', operationType: 'b c' })).toBe(1);
  });

  it('sum over windows', () => {
    const sum = sumCounts([countMembers(members)!, countMembers(members.slice(0, 2))!])!;
    expect(matchingCount(sum, 6, { agentId: 'a' })).toBe(5);
    expect(matchingCount(sum, 6, { agentId: 'a', operationType: 'shell.run' })).toBe(2);
  });

  it('are not kept when too large, or when a member lacks its agent or type', () => {
    const many = Array.from({ length: 2_000 }, (_, i) => ({ agent_id: `agent-${i}`, operation_type: `type.${i}` }));
    expect(Buffer.byteLength(JSON.stringify(many))).toBeGreaterThan(MAX_COUNTS_BYTES);
    expect(countMembers(many)).toBeUndefined();
    expect(countMembers([...members, { agent_id: 'c', operation_type: undefined }])).toBeUndefined();
  });
});
