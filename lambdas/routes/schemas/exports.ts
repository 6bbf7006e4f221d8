/** Export endpoints (docs/API.md §2.10, §3 Export status, §4.8). */
import * as z from 'zod';
import { unixMs } from './common.js';
import { agentIdSchema } from './agents.js';
import { operationTypeFilter, orderedRange } from './audit.js';

/** Longest range one export may cover. */
const MAX_EXPORT_RANGE_MS = 366 * 24 * 60 * 60 * 1000;

const exportTime = unixMs.max(Number.MAX_SAFE_INTEGER);

export const createExportBody = z
  .strictObject({
    start_time: exportTime.describe('Unix ms, inclusive, on created_at; not in the future'),
    end_time: exportTime.describe('Unix ms, exclusive; after start_time, at most 366 days after it'),
    format: z.enum(['json', 'pdf']).describe('json: the export bundle (docs/EXPORT.md); pdf: a report that embeds the same bundle as a file attachment'),
    agent_id: agentIdSchema.nullish(),
    operation_type: operationTypeFilter.nullish(),
    include_payloads: z.boolean().default(true).describe('false leaves payloads out of the bundle; their hashes still bind them'),
  })
  .refine(orderedRange, { message: 'start_time must be before end_time', path: ['start_time'] })
  .refine((body) => body.end_time - body.start_time <= MAX_EXPORT_RANGE_MS, {
    message: 'the range may cover at most 366 days',
    path: ['end_time'],
  });

/** UUIDv7, like every id the service makes; lower case. */
export const exportParams = z.strictObject({
  export_id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'must be a lower-case UUIDv7 export id'),
});

const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

const exportSchema = z
  .object({
    export_id: z.string(),
    org_id: z.string(),
    status: z
      .enum(EXPORT_STATUSES)
      .describe('queued, then running while the worker writes the file, then done (store_export_key and completed_at set) or failed (error says why)'),
    query_params: z.string().describe('JSON: {start_time, end_time, agent_id|null, operation_type|null, format, include_payloads}'),
    store_export_key: z.string().nullable(),
    created_at: unixMs,
    completed_at: unixMs.nullable().describe('when it became done or failed'),
    progress: z
      .object({
        operations_done: z.number().int().nonnegative(),
        operations_total: z.number().int().nonnegative().nullable().describe('null until the worker has counted the matching operations'),
      })
      .describe('operations written to the file so far'),
    error: z.string().optional().describe('why the export failed (status failed only)'),
    withdrawn: z
      .object({
        at: unixMs,
        by: z.string().describe('the user who erased the payload'),
        operation_id: z.string().describe('the operation whose payload was erased'),
        reason: z.string().describe("the erasure's reason"),
      })
      .optional()
      .describe('present once a done export was withdrawn because a payload it held was erased: its file is destroyed and a download answers EXPORT_WITHDRAWN'),
  })
  .meta({ id: 'Export' });

export const createExportResponse = z.object({ export: exportSchema });

export const listExportsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(128).optional(),
});

export const listExportsResponse = z.object({
  exports: z.array(exportSchema).describe('newest first'),
  cursor: z.string().optional().describe('present only when older exports follow'),
});

export const getExportResponse = z.object({
  export: exportSchema,
  download_url: z.string().optional().describe('/v1/exports/<export_id>/download, once status is done (never for a withdrawn export)'),
});
