/**
 * The PDF phase of an export: the finished bundle read back, the report made around it
 * (pdf/report.ts), signed by the service (docs/EXPORT.md "The PDF's pages": the pages are
 * evidence too) and stored with one PutObject, so the file appears whole or not at all. It
 * runs in one go: the report is built in memory (pdf-lib cannot write a document in pieces),
 * which PDF_MAX_OPERATIONS keeps within a run's time and memory; a crash redoes it.
 */
import { b64uEncode, pdfSignatureLine, pdfSigningDigest } from '@agent-ledger/protocol';
import { putExportFile, readExportFile } from '../../store/export-objects.js';
import { getOrg } from '../../store/orgs.js';
import type { Signer } from '../ports.js';
import { renderExportPdf } from './pdf/report.js';

/** Most operations a PDF report may hold (about 230 pages per 10,000); larger exports are JSON. */
export const PDF_MAX_OPERATIONS = 25_000;

/**
 * The rendered PDF with the service's signature line appended after its `%%EOF`
 * (protocol/src/bundle/pdfsignature.ts): Ed25519 by the current service key over SHA-256 of the
 * rendered bytes, checked by `agent-ledger verify report.pdf --jwks ...`.
 */
export async function signPdf(pdf: Uint8Array, signer: Pick<Signer, 'kid' | 'sign'>): Promise<Uint8Array> {
  const [kid, signature] = await Promise.all([signer.kid(), signer.sign(pdfSigningDigest(pdf))]);
  const line = pdfSignatureLine({ service_kid: kid, signature: b64uEncode(signature) });
  const file = new Uint8Array(pdf.byteLength + line.byteLength);
  file.set(pdf, 0);
  file.set(line, pdf.byteLength);
  return file;
}

export async function writePdf(input: { orgId: string; bundleKey: string; fileKey: string; signer: Pick<Signer, 'kid' | 'sign'> }): Promise<number> {
  const [bundle, org] = await Promise.all([readExportFile(input.bundleKey), getOrg(input.orgId)]);
  const { pdf, operations } = await renderExportPdf(bundle, { organizationName: org?.org_name ?? null });
  await putExportFile(input.fileKey, await signPdf(pdf, input.signer), 'pdf');
  return operations;
}
