/**
 * Internal byte helpers. node:crypto hands back Buffers; the package's API promises plain
 * Uint8Arrays so that callers (and deep equality in their tests) see one type everywhere.
 */
import type { Buffer } from 'node:buffer';

/**
 * A plain Uint8Array view of a Buffer's bytes, without copying. Only for Buffers that own
 * their memory (digests, signatures), never for pooled ones such as `Buffer.from(string)`.
 *
 * @example
 * plainBytes(createHash('sha256').update(x).digest()); // Uint8Array, not Buffer
 */
export function plainBytes(buf: Buffer | Uint8Array): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/**
 * Whether `part` stands in `bytes` from `offset` on (false when it would run past the end).
 *
 * @example
 * bytesAt(new Uint8Array([1, 2, 3]), new Uint8Array([2, 3]), 1); // true
 */
export function bytesAt(bytes: Uint8Array, part: Uint8Array, offset: number): boolean {
  if (offset < 0 || offset + part.byteLength > bytes.byteLength) return false;
  for (let i = 0; i < part.byteLength; i++) if (bytes[offset + i] !== part[i]) return false;
  return true;
}

/**
 * Whether `a` and `b` hold the same bytes.
 *
 * @example
 * equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2])); // true
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && bytesAt(a, b, 0);
}
