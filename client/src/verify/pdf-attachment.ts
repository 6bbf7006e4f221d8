/**
 * The export bundle embedded in a PDF export (docs/EXPORT.md: "A PDF export embeds the very
 * same bytes as a file attachment"). pdf-lib writes attachments but has no reader for them,
 * so the document's EmbeddedFiles name tree (ISO 32000-1 §7.7.4, §7.11.4) is walked here
 * with pdf-lib's low-level objects, and each file's stream decoded with its own decoder.
 */
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, type PDFObject } from 'pdf-lib';

export interface Attachment {
  name: string;
  bytes: Uint8Array;
}

export async function pdfAttachments(pdf: Uint8Array): Promise<Attachment[]> {
  const document = await PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: false });
  const names = document.catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  const tree = names?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict);
  const found: Attachment[] = [];
  const seen = new Set<PDFObject>();
  const walk = (node: PDFDict | undefined) => {
    if (!node || seen.has(node)) return;
    seen.add(node);
    const pairs = node.lookupMaybe(PDFName.of('Names'), PDFArray);
    for (let i = 0; pairs && i + 1 < pairs.size(); i += 2) {
      const key = pairs.lookup(i);
      const spec = pairs.lookup(i + 1);
      if (!(spec instanceof PDFDict)) continue;
      const fileName = spec.lookup(PDFName.of('UF')) ?? spec.lookup(PDFName.of('F')) ?? key;
      const stream = spec.lookupMaybe(PDFName.of('EF'), PDFDict)?.lookup(PDFName.of('F'));
      if (!(stream instanceof PDFRawStream)) continue;
      found.push({ name: text(fileName), bytes: decodePDFRawStream(stream).decode() });
    }
    const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
    for (let i = 0; kids && i < kids.size(); i++) walk(kids.lookupMaybe(i, PDFDict));
  };
  walk(tree);
  return found;
}

function text(value: PDFObject | undefined): string {
  if (value instanceof PDFString || value instanceof PDFHexString) return value.decodeText();
  return value === undefined ? '' : value.toString();
}
