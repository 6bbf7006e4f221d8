/**
 * The PDF phase of an export: the finished bundle read back, the report made around it
 * (pdf/report.ts) and stored with one PutObject, so the file appears whole or not at all. It
 * runs in one go: the report is built in memory (pdf-lib cannot write a document in pieces),
 * which PDF_MAX_OPERATIONS keeps within a run's time and memory; a crash redoes it.
 */
import { putExportFile, readExportFile } from '../../store/export-objects.js';
import { getOrg } from '../../store/orgs.js';
import { renderExportPdf } from './pdf/report.js';

/** Most operations a PDF report may hold (about 230 pages per 10,000); larger exports are JSON. */
export const PDF_MAX_OPERATIONS = 25_000;

export async function writePdf(input: { orgId: string; bundleKey: string; fileKey: string }): Promise<number> {
  const [bundle, org] = await Promise.all([readExportFile(input.bundleKey), getOrg(input.orgId)]);
  const { pdf, operations } = await renderExportPdf(bundle, { organizationName: org?.org_name ?? null });
  await putExportFile(input.fileKey, pdf, 'pdf');
  return operations;
}
