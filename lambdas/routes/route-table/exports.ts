/** Exports (docs/API.md §4.8): org_owner, security_admin and compliance_auditor, for all four. */
import { AUDITORS } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { createExportBody, createExportResponse, exportParams, getExportResponse, listExportsQuery, listExportsResponse } from '../schemas/exports.js';

export const exportRoutes = {
  createExport: route({
    id: 'CreateExport',
    method: 'POST',
    path: '/v1/exports',
    handler: 'exports/create',
    auth: AUDITORS,
    summary: 'Queues an export of the operations created in [start_time, end_time), as a JSON bundle or a PDF report.',
    description:
      'start_time and end_time are integers (Unix ms); start_time < end_time, the range covers at most 366 days, and ' +
      'start_time is not in the future. agent_id and operation_type filter like the audit query; include_payloads ' +
      '(default true) false leaves payloads out. Answers 201 with the export queued; admin event export.create. ' +
      'The export moves queued → running → done, or failed with a reason; progress counts the operations written.',
    request: { body: createExportBody },
    response: { status: 201, body: createExportResponse },
    uses: ['table:write', 'queue:exports'],
  }),
  listExports: route({
    id: 'ListExports',
    method: 'GET',
    path: '/v1/exports',
    handler: 'exports/list',
    auth: AUDITORS,
    summary: "The organization's exports, newest first (limit 1-100, default 50, and cursor).",
    request: { query: listExportsQuery },
    response: { status: 200, body: listExportsResponse },
    uses: ['table:read'],
  }),
  getExport: route({
    id: 'GetExport',
    method: 'GET',
    path: '/v1/exports/{export_id}',
    handler: 'exports/get',
    auth: AUDITORS,
    summary: 'One export with its status and progress; download_url once it is done.',
    request: { params: exportParams },
    response: { status: 200, body: getExportResponse },
    uses: ['table:read'],
  }),
  downloadExport: route({
    id: 'DownloadExport',
    method: 'GET',
    path: '/v1/exports/{export_id}/download',
    handler: 'exports/download',
    auth: AUDITORS,
    summary: 'Redirects (302) to the file: a presigned S3 URL valid for 5 minutes, served as attachment export-<id>.json or .pdf.',
    description:
      'Before the export is done: VALIDATION_ERROR with HTTP 409. The Location URL is presigned with ' +
      'response-content-disposition attachment; filename=export-<export_id>.json (or .pdf); S3 serves the bytes.',
    request: { params: exportParams },
    response: { status: 302, body: null },
    uses: ['table:read', 'data:read'],
  }),
};
