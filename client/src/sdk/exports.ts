/**
 * Exports (SPEC.md §2.10, §4.8): create, follow `progress`, download. The shapes come from
 * the API types generated from the route table (client/src/generated/api.ts).
 */
import type { components, operations } from '../generated/api.js';

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** An export: status queued, running, done or failed; progress; the failure reason. */
export type ExportJob = components['schemas']['Export'];

/** POST /v1/exports's body. */
export type CreateExportInput = JsonOf<NonNullable<operations['CreateExport']['requestBody']>>;

export type ExportFormat = CreateExportInput['format'];

/** GET /v1/exports/:export_id's answer: download_url once done. */
export type ExportDetail = JsonOf<operations['GetExport']['responses'][200]>;
