/**
 * UUIDv7 (RFC 9562 §5.7): 48-bit Unix ms timestamp, version 7, 74 random bits. The
 * client-generated operation_id of docs/API.md §2.1 and the receipt_id of docs/PROTOCOL.md "Receipt"
 * are UUIDv7; time-ordered ids keep related items close in indexes.
 * (node:crypto has randomUUID, v4 only, before Node 24.)
 */
import { randomBytes } from 'node:crypto';

/**
 * A new lower-case UUIDv7 for the time `now` (Unix ms).
 *
 * @example
 * uuidv7(); // '0190b7c4-8f2e-7a3b-9c1d-5e6f7a8b9c0d'
 */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10 (RFC 9562 §4.1)
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
