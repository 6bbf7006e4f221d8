/**
 * The opaque cursors of the newest-first lists that need no sealing (docs/API.md §4.3 attempts,
 * §4.9 deliveries): base64url of a prefix naming the list and the log position of the last
 * entry of the previous page. A cursor names nothing but a position in the caller's own list
 * (the list is read under the caller's organization), so it needs no secret; what does not
 * decode to the list's prefix and a well-formed position is VALIDATION_ERROR, never a query.
 * (The audit cursor carries filters and a snapshot, so it is sealed instead: domain/audit/cursor.ts.)
 */
import { LedgerError } from './errors.js';

/** `<13-digit Unix ms>#<UUID>`: a position of an entry made at a time with an id. */
export const TIME_ID_POSITION = /^\d{13}#[0-9a-f-]{36}$/;

export function encodePageCursor(prefix: string, position: string): string {
  return Buffer.from(`${prefix}${position}`).toString('base64url');
}

export function decodePageCursor(prefix: string, cursor: string, position: RegExp = TIME_ID_POSITION): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const value = text.slice(prefix.length);
  if (!text.startsWith(prefix) || !position.test(value)) {
    throw new LedgerError('VALIDATION_ERROR', 'query.cursor: not a cursor from a previous page');
  }
  return value;
}
