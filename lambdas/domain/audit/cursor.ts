/**
 * The audit query's cursor (docs/API.md §4.6: "opaque string"): where the next page starts, the
 * total counted on the first page and the instant the listing was fixed at, sealed with the
 * service's secrets key (domain/ports.ts Encryptor: KMS in AWS, AES-256-GCM locally) under
 * an encryption context naming the organization and the filter. Authenticated encryption
 * makes an edited cursor, one of another organization and one of another filter fail to
 * open, and all three are the same VALIDATION_ERROR: a cursor never reaches another
 * tenant's rows or another query's.
 */
import { canonicalize } from '@agent-ledger/protocol';
import type { Encryptor } from '../ports.js';
import { CURSOR_PURPOSE } from '../../shared/cursor-purpose.js';
import { LedgerError } from '../../shared/errors.js';
import type { OrderPosition } from '../../store/operation-index.js';

/** What a cursor carries from one page to the next. */
interface AuditCursor {
  /** The last row of the previous page. */
  after: OrderPosition;
  /** total_count, counted once on the first page. */
  total: number;
  /** Exclusive created_at bound fixed by the first page: later operations are not listed. */
  until: number;
}

/** The filter a cursor is bound to, exactly as the request gave it. */
export interface CursorBinding {
  orgId: string;
  agent_id: string | null;
  operation_type: string | null;
  start_time: number | null;
  end_time: number | null;
}


function context(binding: CursorBinding): Record<string, string> {
  const { orgId, ...filter } = binding;
  return { purpose: CURSOR_PURPOSE, org_id: orgId, filter: canonicalize(filter) };
}

function invalid(): LedgerError {
  return new LedgerError(
    'VALIDATION_ERROR',
    'body.cursor: not a cursor of this query (it must come from a previous page of the same organization and the same filters, unchanged)',
  );
}

/**
 * AWS failures that say nothing about the cursor (throttling, KMS unavailable): those stay
 * errors of the service, not of the request.
 */
function isServiceFailure(error: unknown): boolean {
  const fault = (error as { $fault?: string } | undefined)?.$fault;
  const name = (error as Error | undefined)?.name ?? '';
  return fault === 'server' || /Throttl|Internal|Unavailable|Timeout/.test(name);
}

export async function sealCursor(encryptor: Encryptor, binding: CursorBinding, cursor: AuditCursor): Promise<string> {
  const text = JSON.stringify([cursor.after.created_at, cursor.after.operation_id, cursor.total, cursor.until]);
  return Buffer.from(await encryptor.encrypt(text, context(binding)), 'utf8').toString('base64url');
}

export async function openCursor(encryptor: Encryptor, binding: CursorBinding, sealed: string): Promise<AuditCursor> {
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(sealed)) throw invalid();
  let text: string;
  try {
    text = await encryptor.decrypt(Buffer.from(sealed, 'base64url').toString('utf8'), context(binding));
  } catch (error) {
    if (isServiceFailure(error)) throw error;
    throw invalid();
  }
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  const [createdAt, operationId, total, until] = parsed as unknown[];
  if (!Number.isSafeInteger(createdAt) || typeof operationId !== 'string' || !Number.isSafeInteger(total) || !Number.isSafeInteger(until)) {
    throw invalid();
  }
  return { after: { created_at: createdAt as number, operation_id: operationId }, total: total as number, until: until as number };
}
