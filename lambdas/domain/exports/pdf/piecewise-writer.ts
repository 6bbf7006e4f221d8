/**
 * A pdf-lib document written out object by object to a sink instead of into one buffer
 * (docs/EXPORT.md "Memory"). The layout is pdf-lib's own `save()` with object streams
 * (PDFStreamWriter): the same header, the same objects in the same order, the same
 * cross-reference stream and trailer; pdf-lib computes it all, offsets included, and only
 * the copying of bytes happens here, one object at a time. A DeflatedFileStream (the
 * embedded bundle) is the one object whose data pdf-lib never sees: its dictionary comes
 * from pdf-lib, its data from deflatePieces.
 */
import { CharCodes, PDFStreamWriter, type PDFContext, type PDFObject, type PDFRef } from 'pdf-lib';
import { DeflatedFileStream, deflatePieces } from './deflated-file.js';

/** Takes the file's bytes in order; may keep the array it is given. */
type PdfSink = (bytes: Uint8Array) => Promise<void>;

/** What PDFStreamWriter.computeBufferSize returns (protected in pdf-lib's types, public at run time). */
interface Layout {
  size: number;
  header: PDFObject;
  indirectObjects: [PDFRef, PDFObject][];
  trailer: PDFObject;
}

const ascii = (text: string) => new TextEncoder().encode(text);

function objectBytes(object: PDFObject): Uint8Array {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return bytes;
}

/** The bytes of a DeflatedFileStream before its data: the dictionary and the `stream` keyword. */
function streamHead(stream: DeflatedFileStream): Uint8Array {
  stream.updateDict();
  const dict = objectBytes(stream.dict);
  const keyword = ascii('\nstream\n');
  const head = new Uint8Array(dict.byteLength + keyword.byteLength);
  head.set(dict, 0);
  head.set(keyword, dict.byteLength);
  return head;
}

/** Writes the document in `context` (after PDFDocument.flush) to `sink`; returns the number of bytes written. */
export async function writePdfPieces(context: PDFContext, sink: PdfSink): Promise<number> {
  const writer = PDFStreamWriter.forContext(context, Number.MAX_SAFE_INTEGER);
  const layout = (await (writer as unknown as { computeBufferSize(): Promise<Layout> }).computeBufferSize()) as Layout;
  let written = 0;
  const put = async (bytes: Uint8Array) => {
    written += bytes.byteLength;
    await sink(bytes);
  };
  await put(new Uint8Array([...objectBytes(layout.header), CharCodes.Newline, CharCodes.Newline]));
  for (const [ref, object] of layout.indirectObjects) {
    await put(ascii(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
    if (object instanceof DeflatedFileStream) {
      await put(streamHead(object));
      let data = 0;
      for await (const piece of deflatePieces(object.source)) {
        data += piece.byteLength;
        await put(piece);
      }
      // The offsets after it were computed from the first pass's length.
      if (data !== object.length) throw new Error(`the embedded file deflated to ${data} bytes, not the ${object.length} its dictionary states`);
      await put(ascii('\nendstream'));
    } else {
      await put(objectBytes(object));
    }
    await put(ascii('\nendobj\n\n'));
  }
  await put(objectBytes(layout.trailer));
  if (written !== layout.size) throw new Error(`wrote ${written} bytes of a PDF laid out as ${layout.size}`);
  return written;
}
