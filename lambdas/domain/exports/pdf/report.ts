/**
 * The PDF export (docs/API.md §4.8 format pdf): a report for people over the same evidence as the
 * JSON bundle, which it embeds as a file attachment (`export-<id>.json`, the very bytes of
 * docs/EXPORT.md), so the PDF alone is verifiable: `agent-ledger verify export-<id>.pdf`
 * extracts and checks it (client/src/verify/pdf-attachment.ts).
 *
 * Pages (A4 landscape): a cover (organization, range, filters, counts, generation time, the
 * bundle's full SHA-256 in a monospace face that tells `l` from `I`, and how to verify it), a
 * page in plain words on what was verified and how to re-check it, a summary per agent
 * (operations, first and last seq_no, whether its chain is intact and complete), the keys that
 * signed (window, and whether their possession was proven, from the verifier), the
 * operations (time, agent, seq_no, type, verb and target from `action`, short chain hash,
 * epoch by index and start) and the epochs (index, window, root, leaves, full anchor time).
 * Every page has the running header and "page i of n". The service signs the finished bytes
 * (pdf-job.ts), so these pages are checked by `agent-ledger verify` too.
 *
 * The chain column of the summary is the offline verifier's own verdict
 * (verifyAndReadExportBundle), run on the embedded bytes while the report is made.
 *
 * This file puts the pages together; prose.ts holds their words, evidence-tables.ts their
 * tables, layout.ts the drawing.
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { verifyAndReadExportBundle, type ExportBundle, type ExportVerificationReport } from '@agent-ledger/protocol';
import { createHash } from 'node:crypto';
import { attachDeflated } from './deflated-file.js';
import { agentsTable, epochsTable, keysTable, operationsTable } from './evidence-tables.js';
import { fontBytes } from './fonts.js';
import { BODY_WIDTH, GREY, MARGIN, PAGE, RED, ReportPen, type ReportFaces } from './layout.js';
import { coverFacts, howToVerify, iso, whatItProves } from './prose.js';
import { TextFitter } from './text.js';

interface ReportContext {
  organizationName: string | null;
}

/** Helvetica and the embedded Unicode font for text (text.ts), Helvetica Bold, and Courier. */
async function embedFaces(doc: PDFDocument): Promise<ReportFaces> {
  doc.registerFontkit(fontkit);
  const bytes = await fontBytes('unicode');
  const coverage = fontkit.create(bytes);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const winAnsi = new Set(helvetica.getCharacterSet());
  const text = new TextFitter({
    text: { pdf: helvetica, has: (cp) => winAnsi.has(cp) },
    unicode: { pdf: await doc.embedFont(bytes, { subset: true }), has: (cp) => coverage.hasGlyphForCodePoint(cp) },
  });
  // Courier: a standard PDF font (no embedding), monospace, with serifs that tell l, I and 1 apart in hashes.
  return { text, bold: await doc.embedFont(StandardFonts.HelveticaBold), mono: await doc.embedFont(StandardFonts.Courier) };
}

function describe(doc: PDFDocument, bundle: ExportBundle): void {
  const { export: header } = bundle.body;
  const generated = new Date(header.generated_at);
  doc.setTitle(`agent-ledger export ${header.export_id}`);
  doc.setSubject(`Operations of organization ${header.org_id}, ${iso(header.query.start_time)} to ${iso(header.query.end_time)}`);
  doc.setCreator('agent-ledger');
  doc.setProducer('agent-ledger (pdf-lib)');
  doc.setCreationDate(generated);
  doc.setModificationDate(generated);
}

/** The cover: what was exported, the hashes to compare, the verdict when made, how to verify. */
function drawCover(pen: ReportPen, input: Parameters<typeof coverFacts>[0]): void {
  const facts = coverFacts(input);
  pen.newPage();
  pen.title('Agent operations export');
  for (const { label, value } of facts.lines) pen.line(label, value);
  for (const { label, value, note } of facts.hashes) pen.hashLine(label, value, note);
  pen.line(facts.verdict.label, facts.verdict.value, facts.verdict.valid ? undefined : RED);
  pen.space(10);
  pen.heading('How to verify this export');
  for (const step of howToVerify(input.attachmentName)) pen.paragraph(step, { size: 9, indent: 10, after: 3 });
}

/** What was verified, in plain words. */
function drawProofs(pen: ReportPen, bundle: ExportBundle, report: ExportVerificationReport): void {
  pen.newPage();
  pen.heading('What this export proves, and how to re-check it');
  for (const paragraph of whatItProves(bundle, report)) pen.paragraph(paragraph, { size: 10, after: 8 });
}

function drawTables(pen: ReportPen, bundle: ExportBundle, report: ExportVerificationReport): void {
  pen.newPage();
  pen.heading('Agents');
  const agents = agentsTable(bundle, report);
  pen.table(agents.columns, agents.rows);
  pen.heading('Agent keys');
  const keys = keysTable(bundle, report);
  pen.table(keys.columns, keys.rows);
  pen.heading('Operations (oldest first)');
  const operations = operationsTable(bundle, report);
  pen.table(operations.columns, operations.rows);
  pen.heading('Epochs');
  const epochs = epochsTable(bundle);
  pen.table(epochs.columns, epochs.rows);
}

/** The running header and "page i of n" on every page, once the number of pages is known. */
function drawRunningHeaders(pen: ReportPen, bundle: ExportBundle, organizationName: string | null): void {
  const { export: header } = bundle.body;
  const runningHeader = `agent-ledger export ${header.export_id} · ${organizationName ?? header.org_id} · ${iso(header.query.start_time)} to ${iso(header.query.end_time)}`;
  const { text, bold } = pen.faces;
  pen.pages.forEach((page, i) => {
    text.draw(page, runningHeader, { x: MARGIN, y: PAGE.height - MARGIN + 8, size: 7, maxWidth: BODY_WIDTH - 80, color: GREY });
    const label = `page ${i + 1} of ${pen.pages.length}`;
    page.drawText(label, { x: PAGE.width - MARGIN - bold.widthOfTextAtSize(label, 7), y: MARGIN - 14, size: 7, font: bold, color: GREY });
  });
}

/**
 * The report as a pdf-lib document ready to be written (pdf/piecewise-writer.ts): its pages
 * compressed as they filled, the bundle attached as a stream deflated while it is written.
 */
export async function renderExportPdf(bundleBytes: Uint8Array, context: ReportContext): Promise<{ doc: PDFDocument; operations: number }> {
  // The verifier's parse is the one the report reads: a second parse of the same bytes doubled
  // the worker's peak (docs/EXPORT.md "Memory"). The bundle was written by this service, so it
  // parses; one that did not would be a fault of the exports worker, not of a record.
  const { report, bundle } = verifyAndReadExportBundle(bundleBytes);
  if (bundle === null) throw new Error(`the export bundle could not be read back: ${report.cannot_process ?? report.findings[0]?.reason ?? 'not a bundle'}`);
  const doc = await PDFDocument.create();
  describe(doc, bundle);
  const pen = new ReportPen(doc, await embedFaces(doc));
  const attachmentName = `export-${bundle.body.export.export_id}.json`;
  const fileSha256 = createHash('sha256').update(bundleBytes).digest('hex');
  drawCover(pen, { bundle, report, organizationName: context.organizationName, fileSha256, fileBytes: bundleBytes.byteLength, attachmentName });
  drawProofs(pen, bundle, report);
  drawTables(pen, bundle, report);
  drawRunningHeaders(pen, bundle, context.organizationName);
  const generated = new Date(bundle.body.export.generated_at);
  await attachDeflated(doc, bundleBytes, attachmentName, {
    mimeType: 'application/json',
    description: 'agent-ledger export bundle (docs/EXPORT.md): the evidence this report summarizes',
    creationDate: generated,
    modificationDate: generated,
  });
  return { doc, operations: bundle.body.operations.length };
}
