/** The epoch resource (SPEC.md §2.11), its optional RFC 3161 anchor, and the leaf order. */

export type { Epoch, EpochAnchor } from '../../store/epochs.js';
export type { MemberCandidate } from '../../store/epoch-members.js';
import type { MemberCandidate } from '../../store/epoch-members.js';

/** PROTOCOL.md: leaves are ordered by (created_at, operation_id) ascending. */
export function leafOrder(a: MemberCandidate, b: MemberCandidate): number {
  if (a.created_at !== b.created_at) return a.created_at - b.created_at;
  return a.operation_id < b.operation_id ? -1 : a.operation_id > b.operation_id ? 1 : 0;
}
