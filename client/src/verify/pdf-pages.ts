/**
 * The verdict on a PDF export's pages (docs/EXPORT.md "The PDF's pages"): the service signs
 * the PDF's bytes (protocol/src/export/pdfsignature.ts), so a page painted over, or any other
 * changed byte, fails; a PDF without the signature line is reported as pages not verified.
 */
import { verifyPdfSignature, type Jwk } from '@agent-ledger/protocol';

/** The pages' line of the report: passed, failed (naming why) or not verified. */
export type PagesVerdict = { status: 'passed' | 'failed' | 'not_verified'; reason: string };

export function pdfPagesVerdict(pdf: Uint8Array, jwks: { keys: readonly Jwk[] }, trusted: boolean): PagesVerdict {
  const { status, service_kid: kid } = verifyPdfSignature(pdf, jwks);
  switch (status) {
    case 'valid':
      return {
        status: 'passed',
        reason: trusted
          ? `the PDF's bytes (pages and attachment) are signed by service key ${kid} of the JWKS you gave`
          : `the PDF's bytes are signed by service key ${kid} of the JWKS inside the file (consistent only)`,
      };
    case 'unsigned':
      return { status: 'not_verified', reason: 'the pages were not verified: the PDF carries no service signature (only the embedded bundle was checked)' };
    case 'unknown_kid':
      return {
        status: 'failed',
        reason: `${trusted ? 'untrusted key' : 'unknown kid'}: the PDF is signed by service key ${kid}, which ${trusted ? 'the JWKS you gave' : 'the bundled JWKS'} does not list`,
      };
    case 'invalid':
      return { status: 'failed', reason: "the PDF's bytes were changed after the service signed them (a page or the attachment differs from what the service rendered)" };
  }
}
