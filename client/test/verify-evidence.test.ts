/**
 * `agent-ledger verify` as an auditor uses it against a dishonest operator (docs/EXPORT.md
 * "Completeness", "Time-stamps", "The PDF's pages", "Exit codes"): bundles changed and
 * re-signed with the service's own key fail with the place named; time-stamps are checked
 * against the TSA certificate the auditor gives (a real `openssl ts -reply` authority, and a
 * forged token from another CA); a PDF with a page painted over fails at "pages".
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, rgb } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  b64Encode,
  b64uDecode,
  b64uEncode,
  canonicalBytes,
  ed25519Jwk,
  generateKeyPair,
  pdfSignatureLine,
  pdfSigningDigest,
  readTimeStampToken,
  sha256,
  sign,
  type ExportBundle,
} from '@agent-ledger/protocol';
import * as asn1js from 'asn1js';
import { startOpensslTsa, type OpensslTsa } from '../../test/support/openssl-tsa.js';
import { base, exportOf, materialize } from '../../protocol/test/exportscenario.js';
import { runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-evidence-'));
const jwksFile = join(dir, 'jwks.json');
const tsaCaFile = join(dir, 'tsa-ca.pem');
const verify = (file: string, ...args: string[]) => runCli(['verify', file, ...args], { env: { AGENT_LEDGER_HOME: join(dir, 'ledger') } });
let forger: OpensslTsa;

/** The operator with the service key: recount the summary and sign the manifest again. */
function resign(b: ExportBundle): Uint8Array {
  const list = b.body.operations;
  b.body.summary = {
    ...b.body.summary,
    operations: list.length,
    agents: new Set(list.map((o) => o.row.agent_id)).size,
    proofs: list.filter((o) => o.proof !== undefined).length,
    payloads: list.filter((o) => Object.hasOwn(o, 'payload')).length,
  };
  const digest = sha256(canonicalBytes(b.body));
  b.manifest = { body_sha256: b64uEncode(digest), service_kid: base.serviceKid, signature: b64uEncode(sign(base.serviceKey, digest)) };
  return canonicalBytes(b);
}

function write(name: string, bytes: Uint8Array | string): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

/** A report page with one row, the bundle attached, signed by the service as the exports worker does. */
async function signedReport(bundle: Uint8Array): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([600, 400]);
  page.drawText('2026-11-26T05:00:00.000Z  agent-alpha  shell.exec  exec rm -rf /prod', { x: 40, y: 300, size: 10 });
  await pdf.attach(bundle, 'export-exp-1.json', { mimeType: 'application/json' });
  const bytes = await pdf.save();
  return Buffer.concat([bytes, pdfSignatureLine({ service_kid: base.serviceKid, signature: b64uEncode(sign(base.serviceKey, pdfSigningDigest(bytes))) })]);
}

beforeAll(async () => {
  writeFileSync(jwksFile, JSON.stringify(base.jwks));
  const fixture = JSON.parse(readFileSync(new URL('../../protocol/test/fixtures/tsa-tokens.json', import.meta.url), 'utf8')) as { tsa_ca_pem: string };
  writeFileSync(tsaCaFile, fixture.tsa_ca_pem);
  forger = await startOpensslTsa();
});
afterAll(async () => {
  await forger?.stop();
});

describe('exit codes and trust anchors', () => {
  it('--help documents the exit codes', async () => {
    const run = await runCli(['verify', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Exit codes:\n {2}0 {2}verified.*\n {2}1 {2}NOT verified.*\n(.*\n)? {2}2 {2}wrong usage\n {2}3 {2}no check failed, but not verified against your trust anchors/);
  });

  it('genuine, unfiltered and filtered: 0 with --jwks and --tsa-ca, every time-stamp signed by the TSA given', async () => {
    for (const [name, s] of [['unfiltered', base], ['filtered', exportOf({ operation_type: 'shell.exec' })]] as const) {
      const file = write(`genuine-${name}.json`, canonicalBytes(materialize(s)));
      const run = await verify(file, '--jwks', jwksFile, '--tsa-ca', tsaCaFile);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/time-stamps: every time-stamp is signed by the TSA certificate you gave/);
      expect(run.stdout).toMatch(/export bundle verified\n$/);
    }
  });

  it('without --tsa-ca the report says the time-stamps were not checked (and still verifies)', async () => {
    const file = write('genuine-no-tsa.json', canonicalBytes(materialize(base)));
    const run = await verify(file, '--jwks', jwksFile);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/time-stamps: the time-stamps' signatures were not checked/);
  });

  it('a swapped JWKS: exit 1, the manifest named as signed by an untrusted key, not a bad signature', async () => {
    const other = write('other-jwks.json', JSON.stringify({ keys: [ed25519Jwk(generateKeyPair().publicKey)] }));
    const file = write('swapped.json', canonicalBytes(materialize(base)));
    const run = await verify(file, '--jwks', other, '--json');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { findings: { where: string; reason: string }[] };
    expect(report.findings.find((f) => f.where === 'manifest.signature')!.reason).toMatch(/^untrusted key: service key/);
  });
});

describe('tampered with the service key, each fails with the place named', () => {
  it('an operation left out of a chain', async () => {
    const b = structuredClone(materialize(base));
    b.body.operations.splice(20, 1);
    const run = await verify(write('omission.json', resign(b)), '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL +chain_complete/);
    expect(run.stdout).toMatch(/failed: chains\["agent-alpha"\]: agent agent-alpha: seq_no \d+ missing between/);
  });

  it('an epoch with a missing leaf', async () => {
    const b = structuredClone(materialize(base));
    const epoch = b.body.verification_material.epochs[1]!.epoch;
    const op = b.body.operations.find((o) => o.proof?.epoch_id === epoch.epoch_id && o.proof.leaf_index === 1)!;
    delete op.proof;
    const run = await verify(write('missing-leaf.json', resign(b)), '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`failed: epochs[1]: epoch ${epoch.epoch_id} has leaf_count ${epoch.leaf_count} but the bundle holds ${epoch.leaf_count - 1} of its leaves (missing leaf_index 1)`);
  });

  it('a small-order agent key', async () => {
    const b = structuredClone(materialize(base));
    b.body.verification_material.agent_keys[0]!.public_key = b64uEncode(Uint8Array.of(1, ...new Array<number>(31).fill(0)));
    const run = await verify(write('small-order.json', resign(b)), '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/failed: agent_keys\[0\]: public_key is a small-order point/);
  });

  it('a forged time-stamp (a genuine token of another CA): the anchor fails against --tsa-ca; without it, "not checked"', async () => {
    const b = structuredClone(materialize(base));
    const entry = b.body.verification_material.epochs[0]!;
    const root = Buffer.from(b64uDecode(entry.epoch.root_hash)).toString('hex');
    const query = write('forged.tsq', '');
    const { execFileSync } = await import('node:child_process');
    execFileSync('openssl', ['ts', '-query', '-digest', root, '-sha256', '-cert', '-out', query]);
    const reply = new Uint8Array(await (await fetch(forger.url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: readFileSync(query) })).arrayBuffer());
    const token = new Uint8Array((asn1js.fromBER(reply).result as asn1js.Sequence).valueBlock.value[1]!.valueBeforeDecodeView);
    entry.anchor = { tsa_url: forger.url, tsa_token: b64Encode(token), anchored_at: readTimeStampToken(token).gen_time };
    const file = write('forged-tsa.json', resign(b));
    const run = await verify(file, '--jwks', jwksFile, '--tsa-ca', tsaCaFile, '--json');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { findings: { where: string; check: string; status: string; reason: string }[] };
    expect(report.findings).toContainEqual({
      where: 'epochs[0].anchor',
      check: 'anchor_signature',
      status: 'failed',
      reason: 'the signer certificate does not chain to the TSA certificate you gave (--tsa-ca), at genTime',
    });
    const unchecked = await verify(file, '--jwks', jwksFile);
    expect(unchecked.stdout).toMatch(/time-stamps: the time-stamps' signatures were not checked/);
  });
});

describe('the pages of a PDF export', () => {
  it('a signed report verifies, pages included', async () => {
    const file = write('report.pdf', await signedReport(canonicalBytes(materialize(base))));
    const run = await verify(file, '--jwks', jwksFile);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ok +pages +the PDF's bytes \(pages and attachment\) are signed by service key/);
  });

  it('a page painted over fails, naming "pages", though the attachment is untouched', async () => {
    const genuine = await signedReport(canonicalBytes(materialize(base)));
    const text = Buffer.from(genuine).toString('latin1');
    const line = genuine.subarray(text.lastIndexOf('%agent-ledger-pdf-signature '));
    const pdf = await PDFDocument.load(genuine.subarray(0, genuine.byteLength - line.byteLength));
    pdf.getPage(0).drawRectangle({ x: 300, y: 295, width: 200, height: 16, color: rgb(1, 1, 1) });
    const painted = write('painted.pdf', Buffer.concat([await pdf.save(), line]));
    const run = await verify(painted, '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL +pages +the PDF's bytes were changed after the service signed them/);
    expect(run.stdout).toMatch(/PDF export NOT verified/);
  });

  it('a PDF without the signature says the pages were not verified, and exits 3', async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage().drawText('agent-ledger export');
    await pdf.attach(canonicalBytes(materialize(base)), 'export-exp-1.json', { mimeType: 'application/json' });
    const run = await verify(write('unsigned.pdf', await pdf.save()), '--jwks', jwksFile);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/skip +pages +the pages were not verified: the PDF carries no service signature/);
  });

  it('a PDF signed by a key the auditor does not trust is "untrusted key"', async () => {
    const genuine = await signedReport(canonicalBytes(materialize(base)));
    const text = Buffer.from(genuine).toString('latin1');
    const bytes = genuine.subarray(0, text.lastIndexOf('%agent-ledger-pdf-signature '));
    const impostor = generateKeyPair();
    const kid = ed25519Jwk(impostor.publicKey).kid;
    const forged = Buffer.concat([bytes, pdfSignatureLine({ service_kid: kid, signature: b64uEncode(sign(impostor.privateKey, pdfSigningDigest(bytes))) })]);
    const run = await verify(write('impostor.pdf', forged), '--jwks', jwksFile);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL +pages +untrusted key: the PDF is signed by service key \S+, which the JWKS you gave does not list/);
  });
});
