/**
 * Deterministic epoch ids. docs/API.md §2 wants UUIDs; sealing must be idempotent (a re-run
 * after a crash seals the same window again), so
 * the id of an organization's epoch is a function of (org_id, start_time) alone: a sealer
 * that crashes and runs again, or two sealers racing, name the same window's epoch alike.
 *
 * Layout: an RFC 9562 §5.8 UUIDv8 ("custom") whose first 48 bits are start_time in Unix ms,
 * as in UUIDv7, so ids sort by window; the other 74 free bits come from
 * SHA-256("agent-ledger/epoch/v1" || org_id || start_time). Because the window start can be
 * read back from the id, GET /v1/epochs/:epoch_id is one strongly consistent GetItem on the
 * caller's own partition; the hash bits tie the id to its organization.
 */
import { createHash } from 'node:crypto';

const DOMAIN = 'agent-ledger/epoch/v1';
const MAX_START = 2 ** 48 - 1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function hex(bytes: Uint8Array): string {
  const h = Buffer.from(bytes).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The epoch id of `orgId`'s window starting at `startTime`. */
export function epochIdFor(orgId: string, startTime: number): string {
  if (!Number.isSafeInteger(startTime) || startTime < 0 || startTime > MAX_START) {
    throw new RangeError(`start_time ${startTime} does not fit 48 bits`);
  }
  const digest = createHash('sha256').update(`${DOMAIN}\0${orgId}\0${startTime}`).digest();
  const bytes = new Uint8Array(16);
  bytes.set(digest.subarray(0, 16));
  // 48-bit big-endian start_time (RFC 9562 §5.7 layout, reused by this v8 id).
  let t = startTime;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = 0x80 | (bytes[6]! & 0x0f); // version 8
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10
  return hex(bytes);
}

/** The window start an epoch id names, or undefined when it is not an id this service makes. */
export function startTimeOfEpochId(epochId: string): number | undefined {
  const id = epochId.toLowerCase();
  if (!UUID.test(id)) return undefined;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
