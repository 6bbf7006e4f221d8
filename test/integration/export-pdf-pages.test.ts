/**
 * The PDF report as a reader sees it (docs/EXPORT.md "The PDF's pages"; lambdas/domain/exports/pdf/):
 * each page type rendered by poppler (pdftoppm rasterizes every page, pdftotext reads its
 * text layer) from real export bundles: an unfiltered export, a filtered one, one that does
 * not verify, and one long enough for the operations table to run over several pages. On
 * every page no line appears twice, every paragraph of prose is there whole and in order
 * (nothing cut off with an ellipsis), and every operation row appears exactly once across
 * the page breaks. PDF_PAGES_KEEP=<dir> keeps the PDFs and PNGs to look at.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyAndReadExportBundle, type ExportBundle } from '@agent-ledger/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { writePdfPieces } from '../../lambdas/domain/exports/pdf/piecewise-writer.js';
import { coverFacts, howToVerify, iso, whatItProves } from '../../lambdas/domain/exports/pdf/prose.js';
import { renderExportPdf } from '../../lambdas/domain/exports/pdf/report.js';
import { wrapWords } from '../../lambdas/domain/exports/pdf/wrap.js';

const CASES = new URL('../../protocol/test/fixtures/exports/cases/', import.meta.url);
const keep = process.env.PDF_PAGES_KEEP;
const dir = keep ?? mkdtempSync(join(tmpdir(), 'pdf-pages-'));
if (keep) mkdirSync(keep, { recursive: true });
afterAll(() => {
  if (!keep) rmSync(dir, { recursive: true, force: true });
});

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`${name}.json`, CASES)));

/** A bundle of `copies` times the fixture's operations, each at its own time: it no longer verifies, but it is long. */
function longBundle(copies: number): Uint8Array {
  const bundle = JSON.parse(Buffer.from(fixture('genuine-all')).toString('utf8')) as ExportBundle;
  const operations = bundle.body.operations;
  bundle.body.operations = Array.from({ length: copies }, (_, k) => operations.map((op) => ({ ...op, row: { ...op.row, created_at: op.row.created_at + k * 1_000_003 } }))).flat();
  return new Uint8Array(Buffer.from(JSON.stringify(bundle)));
}

interface Rendered {
  bundle: ExportBundle;
  bytes: Uint8Array;
  /** The text layer of each page (pdftotext -layout). */
  pages: string[];
  name: string;
}

async function render(name: string, bundleBytes: Uint8Array, organizationName: string | null): Promise<Rendered> {
  const { doc } = await renderExportPdf(bundleBytes, { organizationName });
  const pieces: Uint8Array[] = [];
  await writePdfPieces(doc.context, async (piece) => void pieces.push(piece));
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, Buffer.concat(pieces));
  execFileSync('pdftoppm', ['-r', '60', '-png', file, join(dir, name)]);
  const text = execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8');
  const pages = text.split('\f').filter((page) => page.trim() !== '');
  const bundle = verifyAndReadExportBundle(bundleBytes).bundle as ExportBundle;
  return { bundle, bytes: bundleBytes, pages, name };
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
const lines = (page: string) => page.split('\n').map((line) => line.trim()).filter((line) => line !== '');

function expectNoRepeatedLine(page: string, where: string): void {
  const seen = new Map<string, number>();
  for (const line of lines(page)) seen.set(line, (seen.get(line) ?? 0) + 1);
  const repeated = [...seen].filter(([, count]) => count > 1);
  expect(repeated, `${where}: lines drawn more than once`).toEqual([]);
}

function expectPagesRasterized(r: Rendered): void {
  const pngs = readdirSync(dir).filter((name) => name.startsWith(`${r.name}-`) && name.endsWith('.png'));
  expect(pngs).toHaveLength(r.pages.length);
  for (const png of pngs) expect(statSync(join(dir, png)).size, png).toBeGreaterThan(5_000);
}

/** Every page well formed; the cover and the proofs page hold their prose whole. */
function expectReadable(r: Rendered, organizationName: string | null): void {
  expectPagesRasterized(r);
  r.pages.forEach((page, i) => {
    expectNoRepeatedLine(page, `${r.name} page ${i + 1}`);
    expect(page).toContain(`page ${i + 1} of ${r.pages.length}`);
  });
  // The running header (each page's first line) is cut to its width on purpose; the prose below it never is.
  const [cover = '', proofs = ''] = r.pages.map((page) => lines(page).slice(1).join('\n'));
  const { report } = verifyAndReadExportBundle(r.bytes);
  const attachmentName = `export-${r.bundle.body.export.export_id}.json`;
  const facts = coverFacts({ bundle: r.bundle, report, organizationName, fileSha256: '', fileBytes: r.bytes.byteLength, attachmentName });
  expect(cover).toContain('How to verify this export');
  for (const { value } of [...facts.lines, facts.verdict]) expect(flat(cover), 'a cover line lost words').toContain(flat(value));
  for (const step of howToVerify(attachmentName)) expect(flat(cover), 'a step lost words').toContain(flat(step));
  expect(proofs).toContain('What this export proves, and how to re-check it');
  for (const paragraph of whatItProves(r.bundle, report)) expect(flat(proofs), 'a paragraph lost words').toContain(flat(paragraph));
  // Prose is wrapped, never cut: the ellipsis marks only table cells cut to their column.
  expect(cover + proofs).not.toContain('…');
}

/** Each operation's row on exactly one line of the report, whatever page it fell on. */
function expectEveryRowOnce(r: Rendered): void {
  const all = r.pages.flatMap(lines);
  for (const op of r.bundle.body.operations) {
    const row = new RegExp(`^${iso(op.row.created_at).replaceAll('.', '\\.')}\\s+${op.row.agent_id}\\s+${op.row.seq_no}\\s`);
    expect(all.filter((line) => row.test(line)), `the row of ${op.row.agent_id} ${op.row.seq_no}`).toHaveLength(1);
  }
}

describe('the PDF report, rendered', () => {
  it('an unfiltered export: cover, what it proves, agents, operations and epochs, every paragraph whole', async () => {
    const r = await render('unfiltered', fixture('genuine-all'), 'Acme');
    expectReadable(r, 'Acme');
    expect(r.pages).toHaveLength(4);
    expect(r.pages[1]).toContain('No filter applies');
    const tables = r.pages.slice(2).join('\n');
    for (const title of ['Agents', 'Agent keys', 'Proof of possession', 'Operations (oldest first)', 'Epochs', 'Chain hash', 'Anchored (RFC 3161 genTime)']) expect(tables).toContain(title);
    expect(tables).toMatch(/agent-alpha\s+11\s+1\s+11\s+intact/);
    expectEveryRowOnce(r);
  });

  it('the agent keys table: every signing key with its window, an unproven one marked NOT PROVEN with why', async () => {
    const r = await render('key-unproven', fixture('key-unproven'), 'Acme');
    expectReadable(r, 'Acme');
    const all = r.pages.flatMap(lines);
    expect(all).toContainEqual(expect.stringMatching(/^Agent\s+Key \(kid\)\s+Status\s+Registered \(UTC\)\s+Retired \(UTC\)\s+Proof of possession$/));
    const { report } = verifyAndReadExportBundle(r.bytes);
    expect(report.unproven_keys.map((k) => `${k.agent_id} ${k.kid}`)).toEqual(['agent-beta beta-1']);
    for (const key of r.bundle.body.verification_material.agent_keys) {
      const row = all.filter((line) => new RegExp(`^${key.agent_id}\\s+${key.kid}\\s+${key.status}\\s`).test(line));
      expect(row, `${key.agent_id} ${key.kid}`).toHaveLength(1);
      expect(row[0]).toMatch(key.kid === 'beta-1' ? /NOT PROVEN: registered without a proof$/ : /\sproven$/);
      if (key.created_at !== null) expect(row[0]).toContain(iso(key.created_at));
    }
  });

  it('the Payload column: the verifier\'s word on each payload, a destroyed one MISSING and an edited one ALTERED', async () => {
    const rowOf = (r: Rendered, i: number) => {
      const op = r.bundle.body.operations[i]!;
      const row = new RegExp(`^${iso(op.row.created_at).replaceAll('.', '\\.')}\\s+${op.row.agent_id}\\s+${op.row.seq_no}\\s`);
      return r.pages.flatMap(lines).find((line) => row.test(line)) ?? '';
    };
    const words = async (name: string) => {
      const r = await render(`payload-${name}`, fixture(name), 'Acme');
      expectReadable(r, 'Acme');
      return r.bundle.body.operations.map((_, i) => /\s(present|erased|left out|absent|MISSING|ALTERED|FAILED)\s/.exec(rowOf(r, i))?.[1]);
    };
    const genuine = await words('genuine-all');
    // The scenario's operations[5] is a row of an earlier version: its payload gone, store_payload_key null, no mark.
    expect(genuine).toEqual(genuine.map((_, i) => (i === 5 ? 'absent' : 'present')));
    expect(new Set(await words('genuine-no-payloads'))).toEqual(new Set(['left out']));
    // Each fixture changed the first operation that carried a payload, operations[0].
    for (const [name, first] of [['payload-erased', 'erased'], ['payload-destroyed', 'MISSING'], ['payload-changed-resigned', 'ALTERED']] as const) {
      expect(await words(name), name).toEqual([first, ...genuine.slice(1)]);
    }
  });

  it('a filtered export says what was not checked; a long organization name in any script wraps on the cover', async () => {
    const name = 'Ünïcode Holdings 設計 株式会社 and Partners of the Long Name, Research and Development Department, Zürich — Tōkyō — São Paulo, Internal Audit and Compliance';
    const r = await render('filtered', fixture('genuine-agent-filter'), name);
    expectReadable(r, name);
    expect(flat(r.pages[1] ?? '')).toContain('This export was filtered (agent_id: agent-alpha');
    expectEveryRowOnce(r);
  });

  it('a bundle that does not verify: the verdict in full on the cover, the broken chains named', async () => {
    const r = await render('broken', fixture('record-signature-resigned'), null);
    expectReadable(r, null);
    expect(flat(r.pages[0] ?? '')).toMatch(/the embedded bundle did NOT verify: \d+ checks failed/);
    expect(r.pages[2]).toContain('BROKEN or INCOMPLETE');
  });

  it('a long export: the operations table runs over pages, its titles on each, every row once', async () => {
    const r = await render('long', longBundle(12), 'Acme');
    expect(r.bundle.body.operations).toHaveLength(288);
    expectReadable(r, 'Acme');
    expect(r.pages.length).toBeGreaterThanOrEqual(8);
    const tablePages = r.pages.slice(2);
    const operationRow = /^\d{4}-\d\d-\d\dT\S+\s+agent-/;
    const continued = tablePages.slice(1).filter((page) => lines(page).some((line) => operationRow.test(line)));
    expect(continued.length).toBeGreaterThanOrEqual(5);
    for (const page of continued) expect(lines(page)[1], 'a continued table starts with its titles').toMatch(/^Time \(UTC\)\s+Agent\s+seq_no/);
    expect(tablePages.at(-1)).toContain('Epochs');
    expectEveryRowOnce(r);
  });
});

describe('wrapWords', () => {
  const fitsIn = (n: number) => (line: string) => [...line].length <= n;

  it('keeps every word once and in order, each line within the width', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve';
    const wrapped = wrapWords(text, fitsIn(14));
    expect(wrapped.join(' ')).toBe(text);
    for (const line of wrapped) expect([...line].length).toBeLessThanOrEqual(14);
    expect(new Set(wrapped).size).toBe(wrapped.length);
  });

  it('breaks a word wider than a line between characters, and never drops a character', () => {
    expect(wrapWords('see 0123456789abcdef end', fitsIn(6))).toEqual(['see', '012345', '6789ab', 'cdef', 'end']);
    expect(wrapWords('設計設計設計', fitsIn(2))).toEqual(['設計', '設計', '設計']);
    expect(wrapWords('x', fitsIn(0))).toEqual(['x']);
    expect(wrapWords('  spaced   out  ', fitsIn(80))).toEqual(['spaced out']);
  });
});
