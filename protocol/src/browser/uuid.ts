/**
 * Browser twin of ../uuid.ts (same API): UUIDv7 (RFC 9562 §5.7) with WebCrypto's random bytes.
 */

/**
 * A new lower-case UUIDv7 for the time `now` (Unix ms).
 *
 * @example
 * uuidv7(); // '0190b7c4-8f2e-7a3b-9c1d-5e6f7a8b9c0d'
 */
export function uuidv7(now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10 (RFC 9562 §4.1)
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
