/**
 * Loads the PDF export's fonts (shared/pdf-fonts.ts): in the Lambda bundle from the `fonts/`
 * folder next to the code (copied there at bundling, lib/function.ts), elsewhere (the local
 * stack, tests) from the npm packages themselves. Read once per process.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDF_FONT_DIR, PDF_FONT_FILES, type PdfFontFile } from '../../../shared/pdf-fonts.js';
import { isWoff, woffToSfnt } from './woff.js';

const cache = new Map<PdfFontFile, Promise<Uint8Array>>();

async function read(packagePath: string): Promise<Uint8Array> {
  const bundled = fileURLToPath(new URL(`./${PDF_FONT_DIR}/${basename(packagePath)}`, import.meta.url));
  try {
    return await readFile(bundled);
  } catch {
    return readFile(createRequire(import.meta.url).resolve(packagePath));
  }
}

/** The font as a plain sfnt (a WOFF file is unwrapped once, woff.ts says why). */
async function load(role: PdfFontFile): Promise<Uint8Array> {
  const bytes = await read(PDF_FONT_FILES[role]);
  return isWoff(bytes) ? woffToSfnt(bytes) : bytes;
}

export function fontBytes(role: PdfFontFile): Promise<Uint8Array> {
  let bytes = cache.get(role);
  if (!bytes) {
    bytes = load(role);
    cache.set(role, bytes);
    bytes.catch(() => cache.delete(role));
  }
  return bytes;
}
