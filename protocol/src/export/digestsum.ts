/**
 * An order-independent fingerprint of a set of items: the sum of their SHA-256 digests
 * modulo 2^256. The export writer fingerprints the epochs the operations point to (in
 * operation order) and, later, the epochs it was given to write (in window order); equal
 * sums and counts mean it wrote exactly the epochs it was asked to, without remembering
 * them (docs/EXPORT.md, "Writing in pieces").
 *
 * This guards the writer against a wrong epoch query, not against an adversary: the
 * bundle's integrity rests on the manifest signature and the proofs, never on this sum.
 */
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { sha256 } from '../crypto/hash.js';
import { canonicalBytes } from '../encoding/jcs.js';

const BYTES = 32;

/**
 * A running sum of digests, 32 bytes big-endian.
 *
 * @example
 * const a = new DigestSum(); a.addValue('x'); a.addValue('y');
 * const b = new DigestSum(); b.addValue('y'); b.addValue('x');
 * a.equals(b); // true: order does not matter
 */
export class DigestSum {
  private readonly acc: Uint8Array;

  /**
   * A sum, empty or continued from {@link DigestSum.toString}. Throws ProtocolError
   * `INVALID_CHECKPOINT` for text that is not 32 bytes of base64url.
   *
   * @example
   * const sum = new DigestSum();
   * sum.addValue(['a', 1]);
   * new DigestSum(sum.toString()).equals(sum); // true
   */
  constructor(saved?: string) {
    if (saved === undefined) {
      this.acc = new Uint8Array(BYTES);
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = b64uDecode(saved);
    } catch (err) {
      throw new ProtocolError('INVALID_CHECKPOINT', 'digest sum is not base64url', { cause: err });
    }
    if (bytes.byteLength !== BYTES) throw new ProtocolError('INVALID_CHECKPOINT', 'digest sum must be 32 bytes');
    this.acc = bytes;
  }

  /** Add SHA-256(JCS(value)). */
  addValue(value: unknown): void {
    const digest = sha256(canonicalBytes(value));
    let carry = 0;
    for (let i = BYTES - 1; i >= 0; i--) {
      const s = (this.acc[i] as number) + (digest[i] as number) + carry;
      this.acc[i] = s & 0xff;
      carry = s >> 8;
    }
  }

  equals(other: DigestSum): boolean {
    return this.toString() === other.toString();
  }

  toString(): string {
    return b64uEncode(this.acc);
  }
}
