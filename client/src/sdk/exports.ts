/**
 * Exports (SPEC.md §2.10, §4.8): create, follow `progress`, download. The routes are not in
 * the route table yet, so these shapes are written here from SPEC.md; once they are, they
 * come from the generated types like every other response.
 */
export type ExportFormat = 'json' | 'pdf';

export interface ExportJob {
  export_id: string;
  org_id: string;
  /** `queued`, then `done` (SPEC.md §3); a service may report `running` or `failed` too. */
  status: string;
  /** JSON-encoded {start_time, end_time, agent_id, operation_type, format} */
  query_params: string;
  store_export_key: string | null;
  created_at: number;
  completed_at: number | null;
  progress?: { operations_done: number; operations_total: number };
  error?: string;
}

export interface CreateExportInput {
  start_time: number;
  end_time: number;
  format: ExportFormat;
  agent_id?: string;
  operation_type?: string;
}
