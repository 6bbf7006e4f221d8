/**
 * A finished page's drawing compressed as soon as the page is full (docs/EXPORT.md "Memory").
 * pdf-lib keeps every operator of every page as objects until the document is saved: for a
 * 10,000-operation report, millions of small objects. Here, when the report moves on to the
 * next page, the page's content stream is deflated into a raw stream under the same
 * reference (what `save()` would write for it), and the page starts a new content stream for
 * what is drawn on it later (its running header and page number, once the page count is
 * known). The operators go; the page reads exactly as before.
 */
import { PDFArray, PDFContentStream, PDFRawStream, PDFRef, type PDFDocument, type PDFPage } from 'pdf-lib';

export function sealPage(doc: PDFDocument, page: PDFPage): void {
  const contents = page.node.Contents();
  const ref = contents instanceof PDFArray ? contents.get(contents.size() - 1) : contents;
  if (!(ref instanceof PDFRef)) return;
  const stream = doc.context.lookup(ref);
  if (!(stream instanceof PDFContentStream)) return;
  // getContents() is the deflated operators, as save() computes them (the dictionary names the filter).
  doc.context.assign(ref, PDFRawStream.of(stream.dict, stream.getContents()));
  // The page lets go of the old stream: later drawing on it goes to a new one (pdf-lib's resetPosition).
  page.resetPosition();
}
