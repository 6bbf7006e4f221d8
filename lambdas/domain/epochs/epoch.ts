/** The epoch resource (SPEC.md §2.11) and its optional RFC 3161 anchor. */

export interface Epoch {
  epoch_id: string;
  org_id: string;
  /** Window `[start_time, end_time)`, PROTOCOL.md "Merkle epochs". */
  start_time: number;
  end_time: number;
  /** b64u RFC 9162 Merkle root over the members' chain hashes. */
  root_hash: string;
  leaf_count: number;
  /** Key of the leaf list in the anchors bucket. */
  store_epoch_key: string;
  created_at: number;
}

export interface EpochAnchor {
  tsa_url: string;
  /** The whole RFC 3161 TimeStampToken, base64 with the standard alphabet (SPEC.md §2.11). */
  tsa_token: string;
  /** The token's genTime: the instant the authority attests the root existed. */
  anchored_at: number;
}

/** One unsealed operation as the sealer needs it: enough to order, hash and mark it. */
export interface MemberCandidate {
  operation_id: string;
  created_at: number;
  chain_hash: string;
}

/** PROTOCOL.md: leaves are ordered by (created_at, operation_id) ascending. */
export function leafOrder(a: MemberCandidate, b: MemberCandidate): number {
  if (a.created_at !== b.created_at) return a.created_at - b.created_at;
  return a.operation_id < b.operation_id ? -1 : a.operation_id > b.operation_id ? 1 : 0;
}
