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
