/** The export resource as the API shows it (docs/API.md §2.10 plus progress and the failure reason). */
import type { ExportItem } from '../../store/exports.js';

/** What an export selects and how it is written: the JSON of `query_params`. */
export interface ExportQueryParams {
  start_time: number;
  end_time: number;
  agent_id: string | null;
  operation_type: string | null;
  format: 'json' | 'pdf';
  include_payloads: boolean;
}

export function exportView(item: ExportItem) {
  return {
    export_id: item.export_id,
    org_id: item.org_id,
    status: item.status,
    query_params: item.query_params,
    store_export_key: item.store_export_key,
    created_at: item.created_at,
    completed_at: item.completed_at,
    progress: { operations_done: item.operations_done, operations_total: item.operations_total },
    ...(item.status === 'failed' && item.error !== undefined ? { error: item.error } : {}),
    ...(item.withdrawn ? { withdrawn: item.withdrawn } : {}),
  };
}

export type ExportView = ReturnType<typeof exportView>;

export function queryParamsOf(item: ExportItem): ExportQueryParams {
  return JSON.parse(item.query_params) as ExportQueryParams;
}
