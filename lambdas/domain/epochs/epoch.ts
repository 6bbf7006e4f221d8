/** The epoch resource (docs/API.md §2.11), its optional RFC 3161 anchor, and the leaf order. */

export type { Epoch, EpochAnchor } from '../../store/epochs.js';
export { leafOrder, type MemberCandidate } from '../../store/operation-windows.js';
