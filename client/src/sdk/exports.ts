/**
 * Exports (docs/API.md §2.10, §4.8): create, follow `progress`, download. The shapes come from
 * the API types generated from the route table (client/src/generated/api.ts).
 */
import type { components } from '../generated/api.js';
import type { RequestOf, ResponseOf } from './api-shapes.js';

/** An export: status queued, running, done or failed; progress; the failure reason. */
export type ExportJob = components['schemas']['Export'];

/** POST /v1/exports's body. */
export type CreateExportInput = RequestOf<'CreateExport'>;

export type ExportFormat = CreateExportInput['format'];

/** GET /v1/exports/:export_id's answer: download_url once done. */
export type ExportDetail = ResponseOf<'GetExport'>;
