/**
 * The report's page geometry and drawing primitives (report.ts puts the pages together):
 * A4 landscape pages that fill top to bottom, a heading, a labelled line, a word-wrapped
 * paragraph, a hash in full in a monospace face, and a table whose titles repeat on every
 * page it runs onto. Prose is wrapped, never cut: only table cells are cut to their column
 * (with an ellipsis; the whole value is in the embedded bundle).
 */
import { rgb, type PDFDocument, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';
import { sealPage } from './sealed-pages.js';
import type { TextFitter } from './text.js';

/** A4 landscape, in points. */
export const PAGE = { width: 841.89, height: 595.28 };
export const MARGIN = 36;
/** The width between the margins. */
export const BODY_WIDTH = PAGE.width - 2 * MARGIN;
const BODY_SIZE = 7.5;
const ROW = 11;
/** Where a labelled line's value starts, from the left margin. */
const LABEL_WIDTH = 150;
export const GREY = rgb(0.4, 0.4, 0.4);
export const RED = rgb(0.7, 0.05, 0.05);

export interface Column {
  title: string;
  width: number;
}

/** A table cell: text, or text in a colour, or a hash drawn in the monospace face. */
export type Cell = string | { text: string; color: RGB } | { mono: string };

export interface ReportFaces {
  text: TextFitter;
  bold: PDFFont;
  mono: PDFFont;
}

/** The pages drawn so far and the pen's height on the last one. */
class Pages {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  y = 0;

  constructor(
    private readonly doc: PDFDocument,
    private readonly top: number,
  ) {}

  add(): void {
    // The page before is finished: its drawing is compressed now, not kept as objects until the end.
    if (this.pages.length > 0) sealPage(this.doc, this.page);
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = this.top;
  }

  /** Room for `height` more on this page, else a new page. Returns whether a new page began. */
  need(height: number): boolean {
    if (this.y - height >= MARGIN + 14) return false;
    this.add();
    return true;
  }
}

export class ReportPen {
  private readonly sheets: Pages;

  constructor(
    doc: PDFDocument,
    readonly faces: ReportFaces,
  ) {
    this.sheets = new Pages(doc, PAGE.height - MARGIN - 22);
  }

  get pages(): readonly PDFPage[] {
    return this.sheets.pages;
  }

  newPage(): void {
    this.sheets.add();
  }

  space(height: number): void {
    this.sheets.y -= height;
  }

  title(text: string): void {
    this.sheets.page.drawText(text, { x: MARGIN, y: this.sheets.y, size: 20, font: this.faces.bold });
    this.sheets.y -= 30;
  }

  heading(title: string): void {
    this.sheets.need(40);
    this.sheets.y -= 6;
    this.sheets.page.drawText(title, { x: MARGIN, y: this.sheets.y, size: 13, font: this.faces.bold });
    this.sheets.y -= 18;
  }

  /** Lines of `text` wrapped to `width` from `x`, kept together on one page. */
  private wrapped(text: string, at: { x: number; width: number; size: number; leading: number; color?: RGB | undefined }): void {
    const lines = this.faces.text.wrap(text, at.size, at.width);
    this.sheets.need(at.leading * lines.length);
    for (const piece of lines) {
      this.faces.text.draw(this.sheets.page, piece, { x: at.x, y: this.sheets.y, size: at.size, maxWidth: at.width, ...(at.color ? { color: at.color } : {}) });
      this.sheets.y -= at.leading;
    }
  }

  /** A bold label and its value, the value wrapped beside it. */
  line(label: string, value: string, color?: RGB): void {
    const lines = this.faces.text.wrap(value, 9, BODY_WIDTH - LABEL_WIDTH);
    this.sheets.need((ROW + 3) * lines.length);
    this.sheets.page.drawText(label, { x: MARGIN, y: this.sheets.y, size: 9, font: this.faces.bold });
    this.wrapped(value, { x: MARGIN + LABEL_WIDTH, width: BODY_WIDTH - LABEL_WIDTH, size: 9, leading: ROW + 3, color });
  }

  /** A paragraph at `size`, wrapped to the body width; `indent` moves every line but the first (a hanging indent). */
  paragraph(text: string, options: { size: number; indent?: number; after?: number }): void {
    const indent = options.indent ?? 0;
    const leading = options.size + 3.5;
    const lines = this.faces.text.wrap(text, options.size, BODY_WIDTH - indent);
    this.sheets.need(leading * lines.length);
    lines.forEach((piece, i) => {
      const x = MARGIN + (i === 0 ? 0 : indent);
      this.faces.text.draw(this.sheets.page, piece, { x, y: this.sheets.y, size: options.size, maxWidth: BODY_WIDTH - (i === 0 ? 0 : indent) });
      this.sheets.y -= leading;
    });
    this.sheets.y -= options.after ?? 0;
  }

  /** A label and a hash in full, in Courier, wrapped to the width; `note` in the text face below it. */
  hashLine(label: string, value: string, note: string): void {
    const size = 9;
    const room = BODY_WIDTH - LABEL_WIDTH;
    const perLine = Math.max(8, Math.floor(room / this.faces.mono.widthOfTextAtSize('0', size)));
    const pieces: string[] = [];
    for (let at = 0; at < value.length; at += perLine) pieces.push(value.slice(at, at + perLine));
    this.sheets.need((ROW + 3) * (pieces.length + 1));
    this.sheets.page.drawText(label, { x: MARGIN, y: this.sheets.y, size, font: this.faces.bold });
    for (const piece of pieces) {
      this.sheets.page.drawText(piece, { x: MARGIN + LABEL_WIDTH, y: this.sheets.y, size, font: this.faces.mono });
      this.sheets.y -= ROW + 1;
    }
    this.wrapped(note, { x: MARGIN + LABEL_WIDTH, width: room, size: 8, leading: ROW + 2, color: GREY });
  }

  private tableTitles(columns: readonly Column[]): void {
    let x = MARGIN;
    for (const c of columns) {
      this.sheets.page.drawText(c.title, { x, y: this.sheets.y, size: BODY_SIZE, font: this.faces.bold });
      x += c.width;
    }
    this.sheets.page.drawLine({ start: { x: MARGIN, y: this.sheets.y - 3 }, end: { x: MARGIN + BODY_WIDTH, y: this.sheets.y - 3 }, thickness: 0.5, color: GREY });
    this.sheets.y -= ROW + 2;
  }

  private cell(cell: Cell, x: number, column: Column): void {
    if (typeof cell === 'object' && 'mono' in cell) {
      this.sheets.page.drawText(cell.mono, { x, y: this.sheets.y, size: BODY_SIZE, font: this.faces.mono });
      return;
    }
    const value = typeof cell === 'string' ? { text: cell } : cell;
    this.faces.text.draw(this.sheets.page, value.text, { x, y: this.sheets.y, size: BODY_SIZE, maxWidth: column.width - 6, ...('color' in value ? { color: value.color } : {}) });
  }

  /** One row a line; the column titles again at the top of each page the table runs onto. */
  table(columns: readonly Column[], rows: Iterable<Cell[]>): void {
    this.sheets.need(2 * ROW + 4);
    this.tableTitles(columns);
    for (const row of rows) {
      if (this.sheets.need(ROW)) this.tableTitles(columns);
      let x = MARGIN;
      row.forEach((cell, i) => {
        const column = columns[i] as Column;
        this.cell(cell, x, column);
        x += column.width;
      });
      this.sheets.y -= ROW;
    }
    this.sheets.y -= ROW;
  }
}
