/**
 * The PDF phase of an export: the finished bundle read back, the report made around it
 * (pdf/report.ts), written piece by piece into a multipart upload (pdf/piecewise-writer.ts)
 * while its SHA-256 is computed, and signed by the service (docs/EXPORT.md "The PDF's pages":
 * the pages are evidence too) with the signature line as the upload's last bytes. The upload
 * is completed only then, so the file appears whole or not at all. It runs in one go; a crash
 * redoes it (the abandoned upload is aborted, or expires by the bucket's lifecycle rule).
 * PDF_MAX_OPERATIONS keeps it within a run's time and memory (docs/EXPORT.md "Memory").
 */
import { createHash } from 'node:crypto';
import { b64uEncode, pdfSignatureLine } from '@agent-ledger/protocol';
import { abortUpload, completeUpload, readExportFile } from '../../store/export-objects.js';
import { getOrg } from '../../store/orgs.js';
import type { Signer } from '../ports.js';
import { PartSink } from './part-sink.js';
import { writePdfPieces } from './pdf/piecewise-writer.js';
import { renderExportPdf } from './pdf/report.js';

/** Most operations a PDF report may hold (about 230 pages per 10,000); larger exports are JSON. */
export const PDF_MAX_OPERATIONS = 25_000;

/**
 * The line that ends a signed PDF (protocol/src/export/pdfsignature.ts): Ed25519 by the current
 * service key over `digest`, the SHA-256 of the rendered bytes (pdfSigningDigest), checked by
 * `agent-ledger verify report.pdf --jwks ...`.
 */
async function pdfSignature(digest: Uint8Array, signer: Pick<Signer, 'kid' | 'sign'>): Promise<Uint8Array> {
  const [kid, signature] = await Promise.all([signer.kid(), signer.sign(digest)]);
  return pdfSignatureLine({ service_kid: kid, signature: b64uEncode(signature) });
}

export async function writePdf(input: { orgId: string; bundleKey: string; fileKey: string; partBytes: number; signer: Pick<Signer, 'kid' | 'sign'> }): Promise<number> {
  const [bundle, org] = await Promise.all([readExportFile(input.bundleKey), getOrg(input.orgId)]);
  const { doc, operations } = await renderExportPdf(bundle, { organizationName: org?.org_name ?? null });
  const sink = await PartSink.open(null, input.fileKey, 'pdf', input.partBytes);
  try {
    // The signed bytes are hashed as they go out: pdfSigningDigest over the whole file, never held whole.
    const digest = createHash('sha256');
    await writePdfPieces(doc.context, async (bytes) => {
      digest.update(bytes);
      sink.write(bytes);
      if (sink.full) await sink.flush();
    });
    sink.write(await pdfSignature(new Uint8Array(digest.digest()), input.signer));
    await sink.flush();
    await completeUpload(sink.upload.key, sink.upload.upload_id, sink.upload.etags);
  } catch (error) {
    await abortUpload(sink.upload.key, sink.upload.upload_id);
    throw error;
  }
  return operations;
}
