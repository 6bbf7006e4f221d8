/**
 * The ledger's rules on Ed25519 keys and signatures beyond what node:crypto checks
 * (docs/PROTOCOL.md, Notation):
 *
 * - an agent public key is the canonical encoding (y < p, RFC 8032 §5.1.3) of a curve
 *   point that is not of small order. With one of the eight small-order points (the
 *   identity `AQAA…AA` among them) the signature R = identity, S = 0 verifies for every
 *   message, so anyone could forge that agent's records; node verifies it (it does not
 *   reject small-order keys);
 * - a signature's S is below the group order L (RFC 8032 §5.1.7), checked here rather than
 *   trusted to the crypto library, so every verifier refuses the same signatures.
 *
 * Point decoding is @noble/curves' (audited, maintained): RFC 8032 §5.1.3 decoding with
 * y < p enforced (zip215 = false), x recovered by a square root, x = 0 with the sign bit
 * set refused, and `isSmallOrder()`. node:crypto offers none of these on a raw key, and a
 * hand-written decoder is field arithmetic better taken from a library that is reviewed
 * for exactly this. It runs once per key (publicKeyFromRaw caches), never per signature.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { b64uDecode, isB64u } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';

const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

/** The order L of the Ed25519 base point (RFC 8032 §5.1): 2^252 + 27742317777372353535851937790883648493. */
export const ED25519_L = ed25519.Point.Fn.ORDER;

/**
 * Why a raw 32-byte public key is not acceptable as an agent key, or undefined when it is.
 *
 * @example
 * publicKeyProblem(b64uDecode('AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')); // 'is a small-order point ...'
 */
export function publicKeyProblem(raw: Uint8Array): string | undefined {
  if (!(raw instanceof Uint8Array) || raw.byteLength !== KEY_BYTES) return 'must be 32 bytes';
  let point;
  try {
    point = ed25519.Point.fromBytes(raw, false);
  } catch {
    // noble refuses y >= p, x = 0 with the sign bit set, and y with no x on the curve.
    return 'is not the canonical encoding of an Ed25519 point (RFC 8032 §5.1.3)';
  }
  if (point.isSmallOrder()) return 'is a small-order point, with which any signature could be forged (docs/PROTOCOL.md, Notation)';
  return undefined;
}

/**
 * Checks an agent public key (raw bytes or b64u) against docs/PROTOCOL.md (Notation) and returns
 * its bytes. Throws ProtocolError `INVALID_PUBLIC_KEY` saying why otherwise. Registration
 * and key addition call it; {@link publicKeyFromRaw} (and so every verification) does too.
 *
 * @example
 * assertValidPublicKey('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'); // the 32 bytes
 * assertValidPublicKey('AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'); // throws: small order
 */
export function assertValidPublicKey(key: Uint8Array | string): Uint8Array {
  let raw: Uint8Array;
  if (typeof key === 'string') {
    if (!isB64u(key, KEY_BYTES)) throw new ProtocolError('INVALID_PUBLIC_KEY', 'public key must be 32 bytes of strict base64url');
    raw = b64uDecode(key);
  } else {
    raw = key;
  }
  const problem = publicKeyProblem(raw);
  if (problem !== undefined) throw new ProtocolError('INVALID_PUBLIC_KEY', `public key ${problem}`);
  return raw;
}

/**
 * True when the S half of a 64-byte signature (bytes 32..63, little-endian) is below L
 * (RFC 8032 §5.1.7: "if S >= L, the signature is invalid"). Anything that is not 64 bytes
 * is false.
 *
 * @example
 * signatureScalarInRange(sig); // false for a signature whose S was replaced by S + L
 */
export function signatureScalarInRange(signature: Uint8Array): boolean {
  if (!(signature instanceof Uint8Array) || signature.byteLength !== SIGNATURE_BYTES) return false;
  // L = 2^252 + (a 125-bit number): the top byte of L is 0x10, so a smaller top byte means
  // S < 2^252 < L and a larger one S > L; only a top byte of exactly 0x10 needs the full compare.
  const top = signature[SIGNATURE_BYTES - 1] as number;
  if (top < 0x10) return true;
  if (top > 0x10) return false;
  let s = 0n;
  for (let i = SIGNATURE_BYTES - 1; i >= KEY_BYTES; i--) s = (s << 8n) | BigInt(signature[i] as number);
  return s < ED25519_L;
}
