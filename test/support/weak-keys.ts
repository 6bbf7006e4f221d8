/** The Ed25519 identity point as a public key, and the signature R = identity, S = 0 that node's verify accepts for every message under it (docs/PROTOCOL.md, Notation). */
import { b64uEncode } from '@agent-ledger/protocol';

export const IDENTITY = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
/** R = identity, S = 0. */
export const FORGED_SIGNATURE = b64uEncode(Uint8Array.from({ length: 64 }, (_, i) => (i === 0 ? 1 : 0)));
