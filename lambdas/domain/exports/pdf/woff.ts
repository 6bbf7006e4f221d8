/**
 * WOFF 1.0 to the plain TrueType/OpenType font it wraps (W3C WOFF File Format 1.0, §4-§6):
 * each table inflated when its stored length is below its original length, then laid out
 * again behind an sfnt offset table. fontkit reads WOFF itself, but it inflates tables on
 * every glyph access: embedding a 65,000-glyph fallback font took ten seconds per report
 * instead of milliseconds. No maintained package does only this conversion; it is 40 lines.
 */
import { inflateSync } from 'node:zlib';

const WOFF_SIGNATURE = 0x774f4646; // 'wOFF'

export function isWoff(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 44 && Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32BE(0) === WOFF_SIGNATURE;
}

export function woffToSfnt(woff: Uint8Array): Uint8Array {
  const input = Buffer.from(woff.buffer, woff.byteOffset, woff.byteLength);
  const flavor = input.readUInt32BE(4);
  const numTables = input.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + i * 20;
    const offset = input.readUInt32BE(at + 4);
    const compLength = input.readUInt32BE(at + 8);
    const origLength = input.readUInt32BE(at + 12);
    const stored = input.subarray(offset, offset + compLength);
    const data = compLength < origLength ? inflateSync(stored) : stored;
    if (data.byteLength !== origLength) throw new Error('WOFF table does not inflate to its original length');
    return { tag: input.readUInt32BE(at), checksum: input.readUInt32BE(at + 16), data };
  });
  const headerBytes = 12 + 16 * numTables;
  const size = tables.reduce((sum, t) => sum + ((t.data.byteLength + 3) & ~3), headerBytes);
  const out = Buffer.alloc(size);
  // Offset table (OpenType spec): searchRange etc. from the largest power of two <= numTables.
  const entrySelector = Math.floor(Math.log2(numTables));
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(numTables, 4);
  out.writeUInt16BE(16 * 2 ** entrySelector, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(16 * numTables - 16 * 2 ** entrySelector, 10);
  let offset = headerBytes;
  tables.forEach((table, i) => {
    const at = 12 + 16 * i;
    out.writeUInt32BE(table.tag, at);
    out.writeUInt32BE(table.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(table.data.byteLength, at + 12);
    table.data.copy(out, offset);
    offset += (table.data.byteLength + 3) & ~3;
  });
  return out;
}
