/**
 * Text of any origin (agent ids, operation types, subjects and actions written by agents)
 * made safe to draw: nothing an agent writes can crash the report or hide in it.
 *
 * - Control characters (C0, DEL, C1), bidirectional controls (U+202A-U+202E, U+2066-U+2069,
 *   ...) and invisible characters are replaced by a visible `<U+XXXX>`: a right-to-left
 *   override in a target must show, not reorder what the auditor reads (the "Trojan Source"
 *   trick, CVE-2021-42574). Lone surrogates likewise.
 * - Every other code point is drawn with Helvetica when it can encode it, else with the
 *   embedded Unicode font (shared/pdf-fonts.ts) when it has a glyph, else replaced by `<U+XXXX>`.
 * - pdf-lib lays out left to right without shaping, so a run of right-to-left letters is
 *   reversed into visual order (Hebrew reads right; Arabic shows unjoined letter forms).
 */
import type { PDFFont, PDFPage, RGB } from 'pdf-lib';
import { wrapWords } from './wrap.js';

/** Helvetica for what it can encode (WinAnsi), the embedded Unicode font for the rest. */
type PdfFontRole = 'text' | 'unicode';

/** A font embedded in the document, with its coverage. */
interface ReportFont {
  pdf: PDFFont;
  has(codePoint: number): boolean;
}

type ReportFonts = Record<PdfFontRole, ReportFont>;

interface Run {
  role: PdfFontRole;
  text: string;
}

const ELLIPSIS = '\u2026';

/** Drawn visibly instead of the character itself. */
function isHidden(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0xad ||
    cp === 0x61c ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    cp === 0xfeff ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    (cp >= 0xd800 && cp <= 0xdfff) ||
    (cp >= 0xe0000 && cp <= 0xe007f)
  );
}

/** Emoji presentation selectors: they carry no glyph of their own and are dropped. */
const isVariationSelector = (cp: number) => cp === 0xfe0e || cp === 0xfe0f;

function isRtl(cp: number): boolean {
  return (cp >= 0x590 && cp <= 0x8ff) || (cp >= 0xfb1d && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfefe);
}

const codeLabel = (cp: number) => `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`;

/** Code points in visual order: maximal runs of right-to-left letters (with the spaces between them) reversed. */
function visualOrder(cps: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < cps.length; ) {
    if (!isRtl(cps[i] as number)) {
      out.push(cps[i++] as number);
      continue;
    }
    let end = i;
    for (let j = i; j < cps.length && (isRtl(cps[j] as number) || cps[j] === 0x20); j++) if (isRtl(cps[j] as number)) end = j + 1;
    out.push(...cps.slice(i, end).reverse());
    i = end;
  }
  return out;
}

/** Code points of a JS string, lone surrogates included as themselves. */
function codePoints(text: string): number[] {
  const cps: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i) as number;
    cps.push(cp);
    if (cp > 0xffff) i++;
  }
  return cps;
}

export class TextFitter {
  private readonly widths = new Map<string, number>();

  constructor(readonly fonts: ReportFonts) {}

  /** The runs of `text`: each code point with the font that draws it, hidden ones spelled out. */
  runs(text: string): Run[] {
    const runs: Run[] = [];
    const push = (role: PdfFontRole, piece: string) => {
      const last = runs.at(-1);
      if (last && last.role === role) last.text += piece;
      else runs.push({ role, text: piece });
    };
    for (const cp of visualOrder(codePoints(text))) {
      if (isVariationSelector(cp)) continue;
      if (isHidden(cp)) {
        push('text', codeLabel(cp));
        continue;
      }
      const role = (['text', 'unicode'] as const).find((r) => this.fonts[r].has(cp));
      if (role === undefined) push('text', codeLabel(cp));
      else push(role, String.fromCodePoint(cp));
    }
    return runs;
  }

  private width(role: PdfFontRole, piece: string): number {
    let total = 0;
    for (const ch of piece) {
      const key = `${role}:${ch}`;
      let w = this.widths.get(key);
      if (w === undefined) {
        w = this.fonts[role].pdf.widthOfTextAtSize(ch, 1);
        this.widths.set(key, w);
      }
      total += w;
    }
    return total;
  }

  /** How wide `text` is drawn at `size`, in points, each run in the font that draws it. */
  measure(text: string, size: number): number {
    return this.runs(text).reduce((sum, run) => sum + this.width(run.role, run.text), 0) * size;
  }

  /** `text` in lines of at most `maxWidth` at `size` (wrap.ts): nothing cut, nothing repeated. */
  wrap(text: string, size: number, maxWidth: number): string[] {
    return wrapWords(text, (piece) => this.measure(piece, size) <= maxWidth);
  }

  /** The runs of `text` cut to `maxWidth` at `size` (an ellipsis marks a cut). */
  fit(text: string, size: number, maxWidth: number): Run[] {
    const runs = this.runs(text);
    const budget = maxWidth / size;
    let used = 0;
    const out: Run[] = [];
    for (const run of runs) {
      const w = this.width(run.role, run.text);
      if (used + w <= budget) {
        out.push(run);
        used += w;
        continue;
      }
      const room = budget - used - this.width('text', ELLIPSIS);
      let piece = '';
      for (const ch of run.text) {
        const cw = this.width(run.role, ch);
        if (cw > room - this.width(run.role, piece)) break;
        piece += ch;
      }
      if (piece) out.push({ role: run.role, text: piece });
      out.push({ role: 'text', text: ELLIPSIS });
      return out;
    }
    return out;
  }

  /** Draws `text` at (x, y), cut to `maxWidth`. */
  draw(page: PDFPage, text: string, at: { x: number; y: number; size: number; maxWidth: number; color?: RGB }): void {
    let x = at.x;
    for (const run of this.fit(text, at.size, at.maxWidth)) {
      const font = this.fonts[run.role].pdf;
      page.drawText(run.text, { x, y: at.y, size: at.size, font, ...(at.color ? { color: at.color } : {}) });
      x += this.width(run.role, run.text) * at.size;
    }
  }
}
