/**
 * The PDF export (docs/API.md §4.8 format pdf): a report for people over the same evidence as the
 * JSON bundle, which it embeds as a file attachment (`export-<id>.json`, the very bytes of
 * docs/EXPORT.md), so the PDF alone is verifiable: `agent-ledger verify export-<id>.pdf`
 * extracts and checks it (client/src/verify/pdf-attachment.ts).
 *
 * Pages (A4 landscape): a cover (organization, range, filters, counts, generation time, the
 * bundle's full SHA-256 in a monospace face that tells `l` from `I`, and how to verify it), a
 * page in plain words on what was verified and how to re-check it, a summary per agent
 * (operations, first and last seq_no, whether its chain is intact and complete), the
 * operations (time, agent, seq_no, type, verb and target from `action`, short chain hash,
 * epoch by index and start) and the epochs (index, window, root, leaves, full anchor time).
 * Every page has the running header and "page i of n". The service signs the finished bytes
 * (pdf-job.ts), so these pages are checked by `agent-ledger verify` too.
 *
 * The chain column of the summary is the offline verifier's own verdict
 * (verifyAndReadExportBundle), run on the embedded bytes while the report is made.
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { b64uDecode, verifyAndReadExportBundle, type ExportBundle, type ExportVerificationReport } from '@agent-ledger/protocol';
import { createHash } from 'node:crypto';
import { attachDeflated } from './deflated-file.js';
import { fontBytes } from './fonts.js';
import { sealPage } from './sealed-pages.js';
import { TextFitter, type ReportFonts } from './text.js';

/** A4 landscape, in points. */
const PAGE = { width: 841.89, height: 595.28 };
const MARGIN = 36;
const BODY_SIZE = 7.5;
const ROW = 11;
const GREY = rgb(0.4, 0.4, 0.4);
const RED = rgb(0.7, 0.05, 0.05);

interface Column {
  title: string;
  width: number;
}

interface ReportContext {
  organizationName: string | null;
}

async function embedFonts(doc: PDFDocument): Promise<ReportFonts> {
  doc.registerFontkit(fontkit);
  const bytes = await fontBytes('unicode');
  const coverage = fontkit.create(bytes);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const winAnsi = new Set(helvetica.getCharacterSet());
  return {
    text: { pdf: helvetica, has: (cp) => winAnsi.has(cp) },
    unicode: { pdf: await doc.embedFont(bytes, { subset: true }), has: (cp) => coverage.hasGlyphForCodePoint(cp) },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** 64 hex digits as eight groups of eight, so that a person can compare them group by group. */
const grouped = (hex: string) => hex.replace(/(.{8})(?=.)/g, '$1 ');

/**
 * "verb target" of an operation: the command or target the agent acted on is `action.target`
 * (docs/API.md §2.1, as `agent-ledger submit --verb V --target X` and the hooks write it);
 * `subject` is where it acted (a workspace), used only when the action names no target.
 */
function verbAndTarget(action: string, subject: string): string {
  const pick = (json: string, names: string[]): string | undefined => {
    try {
      const value = JSON.parse(json) as Record<string, unknown>;
      for (const name of names) if (typeof value[name] === 'string' || typeof value[name] === 'number') return String(value[name]);
    } catch {
      // a row's JSON always parses; the report never fails on it regardless
    }
    return undefined;
  };
  const verb = pick(action, ['verb', 'name', 'type', 'tool', 'method']) ?? action;
  const target = pick(action, ['target', 'command', 'path', 'url']) ?? pick(subject, ['target', 'path', 'resource', 'file', 'url', 'command', 'id', 'name']) ?? subject;
  return `${verb} ${target}`;
}

/** Per agent: how many operations, which seq_no, and what the verifier says of its chain. */
function agentSummaries(bundle: ExportBundle, report: ExportVerificationReport) {
  const agents = new Map<string, { operations: number; first: number; last: number; broken: number; gaps: number }>();
  const agentOf = bundle.body.operations.map((op) => op.row.agent_id);
  for (const op of bundle.body.operations) {
    const a = agents.get(op.row.agent_id) ?? { operations: 0, first: op.row.seq_no, last: op.row.seq_no, broken: 0, gaps: 0 };
    a.operations += 1;
    a.first = Math.min(a.first, op.row.seq_no);
    a.last = Math.max(a.last, op.row.seq_no);
    agents.set(op.row.agent_id, a);
  }
  for (const finding of report.findings) {
    const index = /^operations\[(\d+)\]/.exec(finding.where)?.[1];
    const agent = index === undefined ? undefined : agents.get(agentOf[Number(index)] as string);
    if (!agent) continue;
    if (finding.status === 'failed' && ['chain_hash', 'chain_link', 'signature', 'row', 'order'].includes(finding.check)) agent.broken += 1;
    if (finding.status === 'not_covered' && finding.check === 'chain_link') agent.gaps += 1;
  }
  // chain_complete findings name the agent: chains["<agent_id>"] (protocol/src/verify/completeness.ts).
  for (const finding of report.findings) {
    const named = /^chains\[(".*")\]$/.exec(finding.where)?.[1];
    const agent = named === undefined ? undefined : agents.get(JSON.parse(named) as string);
    if (agent && finding.status === 'failed') agent.broken += 1;
  }
  return [...agents.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

class Pages {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  y = 0;

  constructor(
    private readonly doc: PDFDocument,
    private readonly top: number,
  ) {}

  add(): PDFPage {
    // The page before is finished: its drawing is compressed now, not kept as objects until the end.
    if (this.pages.length > 0) sealPage(this.doc, this.page);
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = this.top;
    return this.page;
  }

  /** Room for `height` more on this page, else a new page. Returns whether a new page began. */
  need(height: number): boolean {
    if (this.y - height >= MARGIN + 14) return false;
    this.add();
    return true;
  }
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
  const { export: header, operations, summary, verification_material: material } = bundle.body;
  const doc = await PDFDocument.create();
  const generated = new Date(header.generated_at);
  doc.setTitle(`agent-ledger export ${header.export_id}`);
  doc.setSubject(`Operations of organization ${header.org_id}, ${iso(header.query.start_time)} to ${iso(header.query.end_time)}`);
  doc.setCreator('agent-ledger');
  doc.setProducer('agent-ledger (pdf-lib)');
  doc.setCreationDate(generated);
  doc.setModificationDate(generated);
  const fonts = await embedFonts(doc);
  const bold: PDFFont = await doc.embedFont(StandardFonts.HelveticaBold);
  // Courier: a standard PDF font (no embedding), monospace, with serifs that tell l, I and 1 apart in hashes.
  const mono: PDFFont = await doc.embedFont(StandardFonts.Courier);
  const text = new TextFitter(fonts);
  const width = PAGE.width - 2 * MARGIN;
  const pages = new Pages(doc, PAGE.height - MARGIN - 22);
  const fileSha256 = createHash('sha256').update(bundleBytes).digest('hex');
  const attachmentName = `export-${header.export_id}.json`;

  const heading = (title: string) => {
    pages.need(40);
    pages.y -= 6;
    pages.page.drawText(title, { x: MARGIN, y: pages.y, size: 13, font: bold });
    pages.y -= 18;
  };
  const line = (label: string, value: string, color?: ReturnType<typeof rgb>) => {
    pages.need(ROW + 2);
    pages.page.drawText(label, { x: MARGIN, y: pages.y, size: 9, font: bold });
    text.draw(pages.page, value, { x: MARGIN + 150, y: pages.y, size: 9, maxWidth: width - 150, ...(color ? { color } : {}) });
    pages.y -= ROW + 3;
  };
  /** A cell: text, or text in a colour, or a hash drawn in the monospace face. */
  type Cell = string | { text: string; color: ReturnType<typeof rgb> } | { mono: string };
  const table = (columns: Column[], rows: Iterable<Cell[]>) => {
    const titles = () => {
      let x = MARGIN;
      for (const c of columns) {
        pages.page.drawText(c.title, { x, y: pages.y, size: BODY_SIZE, font: bold });
        x += c.width;
      }
      pages.page.drawLine({ start: { x: MARGIN, y: pages.y - 3 }, end: { x: MARGIN + width, y: pages.y - 3 }, thickness: 0.5, color: GREY });
      pages.y -= ROW + 2;
    };
    pages.need(2 * ROW + 4);
    titles();
    for (const row of rows) {
      if (pages.need(ROW)) titles();
      let x = MARGIN;
      row.forEach((cell, i) => {
        const column = columns[i] as Column;
        if (typeof cell === 'object' && 'mono' in cell) {
          pages.page.drawText(cell.mono, { x, y: pages.y, size: BODY_SIZE, font: mono });
          x += column.width;
          return;
        }
        const value = typeof cell === 'string' ? { text: cell } : cell;
        text.draw(pages.page, value.text, { x, y: pages.y, size: BODY_SIZE, maxWidth: column.width - 6, ...('color' in value ? { color: value.color } : {}) });
        x += column.width;
      });
      pages.y -= ROW;
    }
    pages.y -= ROW;
  };

  // Cover.
  pages.add();
  pages.page.drawText('Agent operations export', { x: MARGIN, y: pages.y, size: 20, font: bold });
  pages.y -= 30;
  line('Organization', context.organizationName === null ? header.org_id : `${context.organizationName} (${header.org_id})`);
  line('Export', `${header.export_id} (requested as ${header.format}; payloads ${header.include_payloads ? 'included' : 'left out'})`);
  line('Range (created_at)', `${iso(header.query.start_time)} (inclusive) to ${iso(header.query.end_time)} (exclusive)`);
  line('Filters', `agent_id: ${header.query.agent_id ?? 'any'}; operation_type: ${header.query.operation_type ?? 'any'}`);
  line('Counts', `${summary.operations} operations of ${summary.agents} agents; ${summary.agent_keys} agent keys; ${summary.epochs} epochs (${report.counts.anchored_epochs} anchored); ${summary.proofs} inclusion proofs; ${summary.payloads} payloads`);
  line('Generated', iso(header.generated_at));
  /** A label and a hash in full, in Courier, wrapped to the width; `note` in the text face below it. */
  const hashLine = (label: string, value: string, note: string) => {
    const size = 9;
    const room = width - 150;
    const perLine = Math.max(8, Math.floor(room / mono.widthOfTextAtSize('0', size)));
    const pieces: string[] = [];
    for (let at = 0; at < value.length; at += perLine) pieces.push(value.slice(at, at + perLine));
    pages.need((ROW + 3) * (pieces.length + 1));
    pages.page.drawText(label, { x: MARGIN, y: pages.y, size, font: bold });
    for (const piece of pieces) {
      pages.page.drawText(piece, { x: MARGIN + 150, y: pages.y, size, font: mono });
      pages.y -= ROW + 1;
    }
    text.draw(pages.page, note, { x: MARGIN + 150, y: pages.y, size: 8, maxWidth: room, color: GREY });
    pages.y -= ROW + 3;
  };
  hashLine('Bundle body SHA-256', grouped(Buffer.from(b64uDecode(bundle.manifest.body_sha256)).toString('hex')), `manifest body_sha256, signed by service key ${bundle.manifest.service_kid}`);
  hashLine('Attached file SHA-256', grouped(fileSha256), `of ${attachmentName}, ${bundleBytes.byteLength} bytes: compare it with sha256sum of the saved attachment`);
  line(
    'Checked when made',
    report.valid
      ? `the embedded bundle was self-consistent: ${report.totals.passed} checks passed, ${report.totals.not_covered} not covered (against the bundled JWKS: re-check it with yours, next page)`
      : report.cannot_process !== null
        ? `the embedded bundle could NOT be checked (${report.cannot_process})`
        : `the embedded bundle did NOT verify: ${report.totals.failed} checks failed`,
    report.valid ? undefined : RED,
  );
  pages.y -= 10;
  heading('How to verify this export');
  const steps = [
    `This PDF embeds the export bundle as the file attachment ${attachmentName}: the evidence, not this report, is what proves the records.`,
    `With the agent-ledger CLI: agent-ledger verify this.pdf --jwks jwks.json --tsa-ca tsa-ca.pem, where jwks.json is the service's JWKS fetched yourself`,
    '  from GET /.well-known/service/jwks.json of the deployment, and tsa-ca.pem the certificate the time-stamping authority publishes.',
    '  It checks the bundle and these pages (the service signed this file). Exit 0: verified; 1: a check failed; 3: not checked against your keys.',
    'By hand: save the attachment (any PDF reader, or pdfdetach -saveall), check its SHA-256 against the one above, then follow',
    '  docs/EXPORT.md "Verifying by hand": the manifest signature, each record signature, chain links, receipts, Merkle proofs, RFC 3161 anchors.',
  ];
  for (const step of steps) {
    pages.need(ROW);
    text.draw(pages.page, step, { x: MARGIN, y: pages.y, size: 9, maxWidth: width });
    pages.y -= ROW + 2;
  }

  // What was verified, in plain words.
  pages.add();
  heading('What this export proves, and how to re-check it');
  const filtered = header.query.operation_type !== null || header.query.agent_id !== null;
  const anchored = report.counts.anchored_epochs;
  const paragraphs = [
    `Each of the ${summary.operations} operations was signed by its agent's own key; the signature, the agent's hash chain (each record names the hash of the one before), the service's signed receipt and, once sealed, the Merkle proof into its epoch were checked when this file was made.`,
    filtered
      ? `This export was filtered (agent_id: ${header.query.agent_id ?? 'any'}; operation_type: ${header.query.operation_type ?? 'any'}). ${header.query.operation_type !== null ? 'Gaps in each chain are expected, so chains were not checked for completeness. ' : 'Each agent chain was checked for gaps. '}Epochs were not checked for completeness (their other leaves belong to operations the filter leaves out).`
      : 'No filter applies: each agent chain was checked to have no gap between its first and last operation in the range, and every epoch inside the range to have all of its leaves here (its leaf count is fixed by its signed root), so nothing between them was left out.',
    `${summary.epochs} epochs hold the proofs; ${anchored} of them ${anchored === 1 ? 'is' : 'are'} time-stamped by an RFC 3161 authority, which fixes when their root existed. A time-stamp more than 24 hours after its window ended is reported as late.`,
    'What this file alone cannot prove: that the service keys are the service\'s (check them against the JWKS you fetch yourself), and that the time-stamping authority is one you trust (check its certificate). agent-ledger verify does both with --jwks and --tsa-ca.',
    'These pages are signed too: the service signs the bytes of this whole PDF, pages and attachment, and agent-ledger verify checks that signature, so a page painted over or a row removed fails at "pages".',
  ];
  for (const paragraph of paragraphs) {
    // Word-wrapped: a paragraph in lines that fit the width at 10 pt.
    const words = paragraph.split(' ');
    let current = '';
    const flush = () => {
      pages.need(ROW + 3);
      text.draw(pages.page, current, { x: MARGIN, y: pages.y, size: 10, maxWidth: width });
      pages.y -= ROW + 3;
      current = '';
    };
    for (const word of words) {
      const next = current === '' ? word : `${current} ${word}`;
      if (current !== '' && fonts.text.pdf.widthOfTextAtSize(next, 10) > width - 24) flush(); // a margin for the fitter's own rounding
      current = next;
    }
    if (current !== '') flush();
    pages.y -= 8;
  }

  // Agents.
  pages.add();
  heading('Agents');
  const agentRows = agentSummaries(bundle, report).map(([agentId, a]) => [
    agentId,
    String(a.operations),
    String(a.first),
    String(a.last),
    a.broken > 0
      ? { text: `BROKEN or INCOMPLETE: ${a.broken} failed check${a.broken === 1 ? '' : 's'} (see agent-ledger verify)`, color: RED }
      : a.gaps > 0
        ? `intact where covered; ${a.gaps} link${a.gaps === 1 ? '' : 's'} to operations outside this export`
        : 'intact',
  ]);
  table(
    [
      { title: 'Agent', width: 260 },
      { title: 'Operations', width: 70 },
      { title: 'First seq_no', width: 70 },
      { title: 'Last seq_no', width: 70 },
      { title: 'Chain', width: width - 470 },
    ],
    agentRows,
  );

  // Epochs are told apart by their index in this export and their window's start (their UUIDv7 ids share a prefix).
  const epochLabel = new Map(material.epochs.map(({ epoch }, k) => [epoch.epoch_id, `#${k} ${iso(epoch.start_time).slice(11, 19)}`]));

  // Operations.
  heading('Operations (oldest first)');
  table(
    [
      { title: 'Time (UTC)', width: 118 },
      { title: 'Agent', width: 107 },
      { title: 'seq_no', width: 42 },
      { title: 'Type', width: 100 },
      { title: 'Verb and target', width: 218 },
      { title: 'Chain hash', width: 74 },
      { title: 'Epoch, leaf', width: width - 659 },
    ],
    (function* () {
      for (const op of operations) {
        yield [
          iso(op.row.created_at),
          op.row.agent_id,
          String(op.row.seq_no),
          op.row.operation_type,
          verbAndTarget(op.row.action, op.row.subject),
          { mono: `${op.row.chain_hash.slice(0, 10)}...` },
          op.proof ? `${epochLabel.get(op.proof.epoch_id) ?? op.proof.epoch_id}, leaf ${op.proof.leaf_index}` : { text: 'not sealed yet', color: GREY },
        ];
      }
    })(),
  );

  // Epochs.
  heading('Epochs');
  table(
    [
      { title: 'Epoch', width: 185 },
      { title: 'Window (UTC)', width: 200 },
      { title: 'Leaves', width: 35 },
      { title: 'Root hash', width: 215 },
      { title: 'Anchored (RFC 3161 genTime)', width: width - 635 },
    ],
    material.epochs.map(({ epoch, anchor }, k) => [
      `#${k} ${epoch.epoch_id}`,
      // The end's date only when it differs from the start's.
      `${iso(epoch.start_time)} to ${iso(epoch.end_time).slice(iso(epoch.end_time).slice(0, 10) === iso(epoch.start_time).slice(0, 10) ? 11 : 0)}`,
      String(epoch.leaf_count),
      { mono: epoch.root_hash },
      anchor ? iso(anchor.anchored_at) : { text: 'not anchored', color: GREY },
    ]),
  );

  // Running header and page numbers, once the number of pages is known.
  const runningHeader = `agent-ledger export ${header.export_id} · ${context.organizationName ?? header.org_id} · ${iso(header.query.start_time)} to ${iso(header.query.end_time)}`;
  pages.pages.forEach((page, i) => {
    text.draw(page, runningHeader, { x: MARGIN, y: PAGE.height - MARGIN + 8, size: 7, maxWidth: width - 80, color: GREY });
    const label = `page ${i + 1} of ${pages.pages.length}`;
    page.drawText(label, { x: PAGE.width - MARGIN - bold.widthOfTextAtSize(label, 7), y: MARGIN - 14, size: 7, font: bold, color: GREY });
  });

  await attachDeflated(doc, bundleBytes, attachmentName, {
    mimeType: 'application/json',
    description: 'agent-ledger export bundle (docs/EXPORT.md): the evidence this report summarizes',
    creationDate: generated,
    modificationDate: generated,
  });
  return { doc, operations: operations.length };
}
