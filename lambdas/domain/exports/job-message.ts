/** The exports queue's message: which export to work on (the worker reads everything else from its item). */
export interface ExportJobMessage {
  export_id: string;
  org_id: string;
}

export function parseJobMessage(body: string): ExportJobMessage | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<ExportJobMessage>;
    return typeof parsed.export_id === 'string' && typeof parsed.org_id === 'string' ? { export_id: parsed.export_id, org_id: parsed.org_id } : undefined;
  } catch {
    return undefined;
  }
}
