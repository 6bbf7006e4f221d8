/** The audit query (docs/API.md §4.6, §8: limit 1 to 500, default 100). */
import * as z from 'zod';
import { unixMs } from './common.js';
import { agentIdSchema } from './agents.js';
import { OPERATION_TYPE_PATTERN, storedOperationSchema } from './operations.js';

/** An operation type filter: the dotted form a submitted type has (docs/API.md §2.1); any other can match nothing. */
export const operationTypeFilter = z.string().max(128).regex(OPERATION_TYPE_PATTERN, 'must be dotted, e.g. domain.verb');

/** start_time inclusive, end_time exclusive (both on created_at); when both are given, start_time < end_time. */
export function orderedRange<T extends { start_time?: number | undefined; end_time?: number | undefined }>(value: T): boolean {
  return value.start_time === undefined || value.end_time === undefined || value.start_time < value.end_time;
}

export const auditQueryBody = z
  .strictObject({
    agent_id: agentIdSchema.optional(),
    operation_type: operationTypeFilter.optional(),
    start_time: unixMs.max(Number.MAX_SAFE_INTEGER).optional().describe('Unix ms, inclusive, on created_at'),
    end_time: unixMs.max(Number.MAX_SAFE_INTEGER).optional().describe('Unix ms, exclusive, on created_at'),
    cursor: z.string().min(1).max(4096).optional().describe('from the previous page of the same query; bound to the organization and the filters'),
    limit: z.number().int().min(1).max(500).default(100),
  })
  .refine(orderedRange, { message: 'start_time must be before end_time', path: ['start_time'] });

export const auditQueryResponse = z.object({
  operations: z.array(storedOperationSchema).describe('oldest first: created_at, then operation_id'),
  total_count: z.number().int().nonnegative().describe('every operation the query matches, counted on the first page and repeated by its later pages'),
  cursor: z.string().optional().describe('present only when more operations follow'),
});
