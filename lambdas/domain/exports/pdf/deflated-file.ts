/**
 * The embedded bundle as a PDF stream whose bytes are never held whole (docs/EXPORT.md "Memory"):
 * pdf-lib's own attachment keeps the bundle and its deflated copy in memory until the whole
 * file is serialized, itself one buffer. Here the bundle is deflated twice in fixed-size
 * chunks: once to learn the compressed length the stream's dictionary must state before its
 * data (ISO 32000-1 §7.3.8.2, `/Length`), and once more while the file is written
 * (pdf/piecewise-writer.ts). zlib's output depends only on the input bytes and the settings,
 * so both passes make the same bytes; the writer checks that they did.
 */
import { createDeflate } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, PDFStream, type PDFDocument } from 'pdf-lib';

/** Bytes fed to zlib per write, in both passes. */
const CHUNK_BYTES = 256 * 1024;
/** One setting for both passes (zlib's default level, the one pdf-lib's own attachment uses). */
const DEFLATE_OPTIONS = { level: 6 } as const;

/** The deflated bytes of `data`, piece by piece, in the order of the compressed stream. */
export async function* deflatePieces(data: Uint8Array): AsyncGenerator<Uint8Array> {
  const deflate = createDeflate(DEFLATE_OPTIONS);
  const feeding = (async () => {
    for (let at = 0; at < data.byteLength; at += CHUNK_BYTES) {
      if (!deflate.write(data.subarray(at, at + CHUNK_BYTES))) await new Promise((resolve) => deflate.once('drain', resolve));
    }
    deflate.end();
  })();
  feeding.catch((error: unknown) => deflate.destroy(error as Error));
  for await (const piece of deflate) yield piece as Buffer;
  await feeding;
}

/** How many bytes `data` deflates to (the first pass). */
async function deflatedLength(data: Uint8Array): Promise<number> {
  let length = 0;
  for await (const piece of deflatePieces(data)) length += piece.byteLength;
  return length;
}

/**
 * A stream object of the document whose data the writer produces itself: `source` deflated
 * (deflatePieces), `length` bytes. pdf-lib sizes it from `length` and never asks for the bytes.
 */
export class DeflatedFileStream extends PDFStream {
  constructor(
    dict: PDFDict,
    readonly source: Uint8Array,
    readonly length: number,
  ) {
    super(dict);
  }

  override getContentsSize(): number {
    return this.length;
  }

  override getContents(): Uint8Array {
    throw new Error('a deflated file stream is written piece by piece (pdf/piecewise-writer.ts), never whole');
  }
}

type AttachOptions = NonNullable<Parameters<PDFDocument['attach']>[2]>;

/**
 * Attaches `data` as pdf-lib's `attach` does (the same file specification, name tree entry and
 * `/AF` entry), but as a DeflatedFileStream: pdf-lib embeds an empty placeholder, whose stream
 * object is then replaced, under the same reference, by one stating `data`'s size and
 * deflated length. Call it last: it flushes the document (embeds its fonts).
 */
export async function attachDeflated(doc: PDFDocument, data: Uint8Array, name: string, options: AttachOptions): Promise<void> {
  await doc.attach(new Uint8Array(0), name, options);
  await doc.flush();
  const names = doc.catalog.lookup(PDFName.of('Names'), PDFDict).lookup(PDFName.of('EmbeddedFiles'), PDFDict).lookup(PDFName.of('Names'), PDFArray);
  const spec = names.lookup(names.size() - 1, PDFDict);
  const ref = spec.lookup(PDFName.of('EF'), PDFDict).get(PDFName.of('F'));
  if (!(ref instanceof PDFRef)) throw new Error('pdf-lib attached the file without a stream reference');
  const placeholder = doc.context.lookup(ref, PDFStream);
  placeholder.dict.lookup(PDFName.of('Params'), PDFDict).set(PDFName.of('Size'), PDFNumber.of(data.byteLength));
  doc.context.assign(ref, new DeflatedFileStream(placeholder.dict, data, await deflatedLength(data)));
}
