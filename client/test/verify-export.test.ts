/**
 * `agent-ledger verify` on export bundles (docs/EXPORT.md) and PDF exports that embed one:
 * exit 0 when everything verifies against the JWKS given, 1 with the failing check named
 * when one byte is changed, 3 when nothing failed but the keys were only the file's own. The bundle is written by the protocol's ExportBundleWriter from
 * the export scenario of the protocol tests (the code the export worker runs); a test on
 * exports made by the running service waits for the export routes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, pdfSignatureLine, pdfSigningDigest, sign } from '@agent-ledger/protocol';
import { base, exportOf, writeBundle } from '../../protocol/test/exportscenario.js';
import { runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-verify-'));
const jwksFile = join(dir, 'jwks.json');
let bundle: Uint8Array;
const verify = (file: string, ...args: string[]) => runCli(['verify', file, ...args], { env: { AGENT_LEDGER_HOME: join(dir, 'ledger') } });

/** The bundle with one byte changed: a digit of the first operation's seq_no. */
function oneByteChanged(bytes: Uint8Array): Uint8Array {
  const text = Buffer.from(bytes).toString('utf8');
  const at = text.indexOf('"seq_no":') + '"seq_no":'.length;
  const changed = Buffer.from(bytes);
  changed[at] = changed[at] === 0x31 ? 0x32 : 0x31;
  return changed;
}

/** The service's signature line over a rendered PDF (docs/EXPORT.md "The PDF's pages"), as the exports worker appends it. */
function signed(pdf: Uint8Array): Uint8Array {
  const line = pdfSignatureLine({ service_kid: base.serviceKid, signature: b64uEncode(sign(base.serviceKey, pdfSigningDigest(pdf))) });
  return Buffer.concat([pdf, line]);
}

async function pdfWith(attachment: Uint8Array, options: { sign?: boolean } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.addPage().drawText('agent-ledger export');
  await pdf.attach(attachment, 'export-exp-1.json', { mimeType: 'application/json', description: 'export bundle 1.0' });
  const bytes = await pdf.save();
  return options.sign === false ? bytes : signed(bytes);
}

beforeAll(async () => {
  bundle = (await writeBundle(exportOf({}))).bytes;
  writeFileSync(jwksFile, JSON.stringify(base.jwks));
});

describe('verify an export bundle', () => {
  it('verifies against the JWKS given and lists every check', async () => {
    const file = join(dir, 'export.json');
    writeFileSync(file, bundle);
    const run = await verify(file, '--jwks', jwksFile);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\d+ operations of 3 agents/);
    expect(run.stdout).toMatch(/ok +manifest_signature +1 passed/);
    expect(run.stdout).toMatch(/trust: signatures checked against the JWKS you gave/);
    expect(run.stdout).toMatch(/export bundle verified\n$/);
    const json = JSON.parse((await verify(file, '--jwks', jwksFile, '--json')).stdout);
    expect(json).toMatchObject({ kind: 'export bundle', valid: true, trust: 'trusted_jwks' });
  });

  it('rejects the bundle with one byte changed, naming what failed', async () => {
    const file = join(dir, 'tampered.json');
    writeFileSync(file, oneByteChanged(bundle));
    const run = await verify(file, '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL +manifest_digest/);
    expect(run.stdout).toMatch(/failed: operations\[0\]\./);
    expect(run.stdout).toMatch(/NOT verified/);
  });

  // The trust-anchor rule (docs/EXPORT.md "Exit codes"): without --jwks nothing is "verified", and the exit code says so.
  it('without --jwks, says that only self-consistency was checked, and exits 3', async () => {
    const file = join(dir, 'export-untrusted.json');
    writeFileSync(file, bundle);
    const run = await verify(file);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/trust: signatures consistent with the keys inside the file; not verified against a trusted JWKS/);
    expect(run.stdout).toMatch(/export bundle NOT verified against your trust anchors \(no check failed; no --jwks given\)\n$/);
  });
});

describe('verify a PDF export', () => {
  it('verifies the bundle the PDF embeds, and the service signature over its pages', async () => {
    const file = join(dir, 'export.pdf');
    writeFileSync(file, await pdfWith(bundle));
    const run = await verify(file, '--jwks', jwksFile);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ok +pages +the PDF's bytes \(pages and attachment\) are signed by service key/);
    expect(run.stdout).toMatch(/PDF export verified\n$/);
  });

  it('rejects a PDF whose embedded bundle has one byte changed, and a PDF without a bundle', async () => {
    const tampered = join(dir, 'tampered.pdf');
    writeFileSync(tampered, await pdfWith(oneByteChanged(bundle)));
    const run = await verify(tampered, '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/PDF export NOT verified/);

    const empty = await PDFDocument.create();
    empty.addPage();
    const bare = join(dir, 'bare.pdf');
    writeFileSync(bare, await empty.save());
    const none = await verify(bare, '--jwks', jwksFile);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/the PDF embeds no JSON files \(attachments: none\); a PDF export embeds exactly its bundle/);
  });

  it('rejects a PDF with one byte of its embedded file stream changed', async () => {
    const pdf = Buffer.from(await pdfWith(bundle));
    // The embedded file is the largest stream; flip a byte in its middle.
    const streams = [...pdf.toString('latin1').matchAll(/stream\r?\n/g)].map((m) => m.index! + m[0].length);
    const ends = streams.map((start) => pdf.indexOf('endstream', start));
    const [start, end] = streams.map((s, i) => [s, ends[i]!] as const).sort((a, b) => b[1] - b[0] - (a[1] - a[0]))[0]!;
    const middle = Math.floor((start + end) / 2);
    pdf[middle] = pdf[middle]! ^ 0x01;
    const file = join(dir, 'flipped.pdf');
    writeFileSync(file, pdf);
    const run = await verify(file, '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  });
});
