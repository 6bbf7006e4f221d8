/**
 * The PDF export (docs/API.md §4.8 format pdf): a report for people over the same evidence as the
 * JSON bundle, which it embeds as a file attachment (`export-<id>.json`, the very bytes of
 * docs/EXPORT.md), so the PDF alone is verifiable: `agent-ledger verify export-<id>.pdf`
 * extracts and checks it (client/src/verify/pdf-attachment.ts).
 *
 * Pages (A4 landscape): a cover (organization, range, filters, counts, generation time, the
 * bundle's SHA-256 and how to verify it), a summary per agent (operations, first and last
 * seq_no, whether its chain is intact), the operations (time, agent, seq_no, type, verb and
 * target, short chain hash, epoch) and the epochs (window, root, leaves, anchor). Every page
 * has the running header and "page i of n".
 *
 * The chain column of the summary is the offline verifier's own verdict
 * (verifyExportBundle), run on the embedded bytes while the report is made.
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { b64uDecode, verifyExportBundle, type ExportBundle, type ExportVerificationReport } from '@agent-ledger/protocol';
import { createHash } from 'node:crypto';
import { fontBytes } from './fonts.js';
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

/** "verb target" of an operation, from its action and subject (docs/API.md §2.1 objects of the agent's choosing). */
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
  const target = pick(subject, ['target', 'path', 'resource', 'file', 'url', 'command', 'id', 'name']) ?? subject;
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

export async function renderExportPdf(bundleBytes: Uint8Array, context: ReportContext): Promise<{ pdf: Uint8Array; operations: number }> {
  const bundle = JSON.parse(Buffer.from(bundleBytes).toString('utf8')) as ExportBundle;
  const report = verifyExportBundle(bundleBytes);
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
  const table = (columns: Column[], rows: Iterable<(string | { text: string; color: ReturnType<typeof rgb> })[]>) => {
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
  line('Bundle body SHA-256', `${Buffer.from(b64uDecode(bundle.manifest.body_sha256)).toString('hex')} (manifest body_sha256, signed by service key ${bundle.manifest.service_kid})`);
  line('Attached file', `${attachmentName}, ${bundleBytes.byteLength} bytes, SHA-256 ${fileSha256}`);
  line(
    'Checked when made',
    report.valid
      ? `the embedded bundle verified: ${report.totals.passed} checks passed, ${report.totals.not_covered} not covered (against the bundled JWKS)`
      : report.cannot_process !== null
        ? `the embedded bundle could NOT be checked (${report.cannot_process})`
        : `the embedded bundle did NOT verify: ${report.totals.failed} checks failed`,
    report.valid ? undefined : RED,
  );
  pages.y -= 10;
  heading('How to verify this export');
  const steps = [
    `This PDF embeds the export bundle as the file attachment ${attachmentName}: the evidence, not this report, is what proves the records.`,
    `With the agent-ledger CLI: agent-ledger verify this.pdf --jwks jwks.json, where jwks.json is the service's JWKS fetched yourself`,
    '  from GET /.well-known/service/jwks.json of the deployment (without --jwks the bundle is only shown to be self-consistent).',
    'By hand: save the attachment (any PDF reader, or pdfdetach -saveall), check its SHA-256 against the one above, then follow',
    '  docs/EXPORT.md "Verifying by hand": the manifest signature, each record signature, chain links, receipts, Merkle proofs, RFC 3161 anchors.',
  ];
  for (const step of steps) {
    pages.need(ROW);
    text.draw(pages.page, step, { x: MARGIN, y: pages.y, size: 9, maxWidth: width });
    pages.y -= ROW + 2;
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
      ? { text: `BROKEN: ${a.broken} failed check${a.broken === 1 ? '' : 's'} (see agent-ledger verify)`, color: RED }
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

  // Operations.
  heading('Operations (oldest first)');
  table(
    [
      { title: 'Time (UTC)', width: 118 },
      { title: 'Agent', width: 112 },
      { title: 'seq_no', width: 42 },
      { title: 'Type', width: 110 },
      { title: 'Verb and target', width: 238 },
      { title: 'Chain hash', width: 74 },
      { title: 'Epoch', width: width - 694 },
    ],
    (function* () {
      for (const op of operations) {
        yield [
          iso(op.row.created_at),
          op.row.agent_id,
          String(op.row.seq_no),
          op.row.operation_type,
          verbAndTarget(op.row.action, op.row.subject),
          `${op.row.chain_hash.slice(0, 10)}…`,
          op.proof ? `${op.proof.epoch_id.slice(0, 8)} #${op.proof.leaf_index}` : { text: 'not sealed yet', color: GREY },
        ];
      }
    })(),
  );

  // Epochs.
  heading('Epochs');
  table(
    [
      { title: 'Epoch', width: 215 },
      { title: 'Window (UTC)', width: 230 },
      { title: 'Leaves', width: 45 },
      { title: 'Root hash', width: 200 },
      { title: 'Anchored (RFC 3161)', width: width - 690 },
    ],
    material.epochs.map(({ epoch, anchor }) => [
      epoch.epoch_id,
      `${iso(epoch.start_time)} to ${iso(epoch.end_time)}`,
      String(epoch.leaf_count),
      epoch.root_hash,
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

  await doc.attach(bundleBytes, attachmentName, {
    mimeType: 'application/json',
    description: 'agent-ledger export bundle (docs/EXPORT.md): the evidence this report summarizes',
    creationDate: generated,
    modificationDate: generated,
  });
  return { pdf: await doc.save(), operations: operations.length };
}
