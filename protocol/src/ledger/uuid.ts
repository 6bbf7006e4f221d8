/**
 * UUIDv7 (RFC 9562 §5.7): 48-bit Unix ms timestamp, version 7, 74 random bits. The
 * client-generated operation_id of docs/API.md §2.1 and the receipt_id of docs/PROTOCOL.md "Receipt"
 * are UUIDv7; time-ordered ids keep related items close in indexes.
 * (node:crypto has randomUUID, v4 only, before Node 24.) The random bits come from the Web
 * Crypto API's getRandomValues, global in browsers and in Node alike, so one module serves both.
 */

/** The largest 48-bit timestamp (RFC 9562 §5.7 `unix_ts_ms`). */
const MAX_MS = 2 ** 48 - 1;

/**
 * A new lower-case UUIDv7 for the time `now` (Unix ms). Throws a RangeError for a time
 * outside 48 bits.
 *
 * @example
 * uuidv7(); // '0190b7c4-8f2e-7a3b-9c1d-5e6f7a8b9c0d'
 */
export function uuidv7(now = Date.now()): string {
  if (!(now >= 0 && now <= MAX_MS)) throw new RangeError(`uuidv7: the time ${now} is not a 48-bit Unix millisecond count`);
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = Math.trunc(now);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10 (RFC 9562 §4.1)
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
