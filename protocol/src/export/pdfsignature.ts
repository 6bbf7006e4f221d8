/**
 * The service's signature over a PDF export's bytes (docs/EXPORT.md "The PDF's pages"): the
 * pages a person reads are evidence too, so the service signs the whole file, pages and
 * embedded bundle together, and appends the signature as one PDF comment line after the
 * file's final `%%EOF`, where PDF readers ignore it (ISO 32000-1 §7.2.3 comments; readers
 * look for `%%EOF` within the file's last 1024 bytes, and the line is about 180):
 *
 *   signed  = the PDF's bytes as rendered (they end with "%%EOF\n")
 *   digest  = H(signed)
 *   file    = signed || "%agent-ledger-pdf-signature " || JCS({service_kid, signature}) || "\n"
 *   signature = b64u(Sign(service_sk, digest))
 *
 * The service signs the 32 digest bytes, as it signs a bundle's body digest. The signed
 * bytes begin with `%PDF-`, a bundle body with `{"bundle_version":` and a receipt with
 * `{"agent_id":`, so a digest of one cannot be the digest of another without a SHA-256
 * collision. Any changed byte of the pages, the attachment or the signature line fails.
 */
import { b64uDecode, isB64u } from '../encoding/base64url.js';
import { sha256 } from '../crypto/hash.js';
import { canonicalBytes } from '../encoding/jcs.js';
import { verifyWithJwks } from '../crypto/jwksverify.js';
import type { Jwk } from '../crypto/jwk.js';

/** What the signature line holds. */
export type PdfSignature = { service_kid: string; signature: string };

const MARKER = new TextEncoder().encode('%agent-ledger-pdf-signature ');
const EOF = new TextEncoder().encode('%%EOF');

/**
 * The digest the service signs: SHA-256 over the PDF's bytes as rendered.
 *
 * @example
 * const signature = await signer.sign(pdfSigningDigest(renderedPdf));
 */
export function pdfSigningDigest(signedBytes: Uint8Array): Uint8Array {
  return sha256(signedBytes);
}

/**
 * The line to append to the rendered PDF.
 *
 * @example
 * const digest = pdfSigningDigest(pdf);
 * const file = Buffer.concat([pdf, pdfSignatureLine({ service_kid: kid, signature: b64uEncode(await signer.sign(digest)) })]);
 */
export function pdfSignatureLine(signature: PdfSignature): Uint8Array {
  const json = canonicalBytes({ service_kid: signature.service_kid, signature: signature.signature });
  const line = new Uint8Array(MARKER.byteLength + json.byteLength + 1);
  line.set(MARKER, 0);
  line.set(json, MARKER.byteLength);
  line[line.byteLength - 1] = 0x0a;
  return line;
}

function lastIndexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = haystack.byteLength - needle.byteLength; i >= 0; i--) {
    for (let k = 0; k < needle.byteLength; k++) if (haystack[i + k] !== needle[k]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Split a PDF into its signed bytes and its signature line. null when the file does not end
 * with a signature line right after its last `%%EOF` line (an unsigned PDF); a line that is
 * there but malformed is returned with `signature: null` so that it fails, not skips.
 *
 * @example
 * const split = splitSignedPdf(file); // { signed: the bytes before the line, signature: {service_kid, signature} }
 */
export function splitSignedPdf(file: Uint8Array): { signed: Uint8Array; signature: PdfSignature | null } | null {
  const at = lastIndexOf(file.subarray(Math.max(0, file.byteLength - 1024)), MARKER);
  if (at < 0) return null;
  const start = Math.max(0, file.byteLength - 1024) + at;
  const signed = file.subarray(0, start);
  const tail = file.subarray(start + MARKER.byteLength);
  // The marker must follow the file's final %%EOF line: nothing may be hidden between them.
  const eof = lastIndexOf(signed, EOF);
  const between = eof < 0 ? null : new TextDecoder().decode(signed.subarray(eof + EOF.byteLength));
  if (between === null || !/^\r?\n?$/.test(between)) return { signed, signature: null };
  if (tail.byteLength === 0 || tail[tail.byteLength - 1] !== 0x0a) return { signed, signature: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(tail.subarray(0, tail.byteLength - 1)));
  } catch {
    return { signed, signature: null };
  }
  const p = parsed as Partial<PdfSignature>;
  if (p === null || typeof p !== 'object' || typeof p.service_kid !== 'string' || typeof p.signature !== 'string' || Object.keys(p).length !== 2) {
    return { signed, signature: null };
  }
  return { signed, signature: { service_kid: p.service_kid, signature: p.signature } };
}

/**
 * The verdict on a PDF's pages: `unsigned` (no signature line: the pages were not verified),
 * `unknown_kid` (a key the JWKS does not list: untrusted, not forged), `invalid` (the
 * bytes were changed since the service signed them, or the line is malformed) or `valid`.
 *
 * @example
 * verifyPdfSignature(readFileSync('export.pdf'), trustedJwks).status; // 'valid'
 */
export function verifyPdfSignature(
  file: Uint8Array,
  jwks: { keys: readonly Jwk[] },
): { status: 'unsigned' | 'unknown_kid' | 'invalid' | 'valid'; service_kid: string | null } {
  const split = splitSignedPdf(file);
  if (split === null) return { status: 'unsigned', service_kid: null };
  const { signed, signature } = split;
  if (signature === null || !isB64u(signature.signature, 64)) return { status: 'invalid', service_kid: signature?.service_kid ?? null };
  const listed = Array.isArray(jwks?.keys) && jwks.keys.some((k) => k !== null && typeof k === 'object' && k.kid === signature.service_kid);
  if (!listed) return { status: 'unknown_kid', service_kid: signature.service_kid };
  const ok = verifyWithJwks(jwks, signature.service_kid, pdfSigningDigest(signed), b64uDecode(signature.signature));
  return { status: ok ? 'valid' : 'invalid', service_kid: signature.service_kid };
}
