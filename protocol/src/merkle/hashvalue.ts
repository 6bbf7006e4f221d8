/**
 * A SHA-256 value as the wire carries it (docs/PROTOCOL.md "Notation": b64u of 32 bytes), decoded
 * with the precise reason when it is not one: merklehash.ts's slow path, and the Merkle
 * proofs' decoding of the hashes they carry.
 */
import { b64uDecode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';

/** A node of the tree is a SHA-256 value. */
export const HASH_BYTES = 32;

/**
 * The 32 bytes of a b64u SHA-256 value; ProtocolError `INVALID_HASH` naming `what` otherwise.
 *
 * @example
 * decodeHash(proof.root_hash, 'root_hash'); // Uint8Array(32)
 */
export function decodeHash(text: string, what: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = b64uDecode(text);
  } catch (err) {
    throw new ProtocolError('INVALID_HASH', `${what} is not base64url`, { cause: err });
  }
  if (bytes.byteLength !== HASH_BYTES) {
    throw new ProtocolError('INVALID_HASH', `${what} must be 32 bytes`);
  }
  return bytes;
}
