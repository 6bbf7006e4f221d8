import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assembleCheckpoint,
  checkpointText,
  parseCheckpoint,
  EXPORT_CHECKS,
  b64Decode,
  b64Encode,
  b64uDecode,
  b64uEncode,
  canonicalBytes,
  canonicalize,
  ed25519Jwk,
  finishReceipt,
  generateKeyPair,
  rawPublicKey,
  receiptHash,
  receiptSigningInput,
  sha256,
  sign,
  verifyAndReadExportBundle,
  verifyExportBundle,
  type ExportBundle,
  type ExportVerificationReport,
} from '../../src/index.js';
import { E, T0, base, exportOf, materialize, writeBundle } from '../exportscenario.js';

const fresh = (): ExportBundle => structuredClone(materialize(base));
const ops = (b: ExportBundle) => b.body.operations;

/** What an insider with the service key could do: make the manifest fit a changed body. */
function resign(b: ExportBundle): ExportBundle {
  const digest = sha256(canonicalBytes(b.body));
  b.manifest.body_sha256 = b64uEncode(digest);
  b.manifest.signature = b64uEncode(sign(base.serviceKey, digest));
  return b;
}

/** Change one character of a base64url value to another, so that its bytes change. */
function flip(text: string, at = 10): string {
  const c = text[at] === 'A' ? 'B' : 'A';
  return text.slice(0, at) + c + text.slice(at + 1);
}

const failed = (r: ExportVerificationReport): string[] => r.findings.filter((f) => f.status === 'failed').map((f) => f.where);
const notCovered = (r: ExportVerificationReport): string[] => r.findings.filter((f) => f.status === 'not_covered').map((f) => f.where);

describe('a valid bundle verifies', () => {
  const report = verifyExportBundle(materialize(base));

  it('every check passes or is not covered, and the counts are right', () => {
    expect(failed(report)).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.trust).toBe('bundled_jwks');
    expect(report.bundle_version).toBe('1.2');
    expect(report.export).toEqual(base.header);
    expect(report.counts).toEqual({ operations: 24, agents: 3, agent_keys: 4, epochs: 3, anchored_epochs: 2 });
    for (const check of ['signature', 'chain_hash', 'chain_link', 'receipt', 'receipt_row', 'row', 'scope', 'order'] as const) {
      expect(report.checks[check].passed, check).toBe(24);
    }
    expect(report.checks.manifest_digest.passed + report.checks.manifest_signature.passed).toBe(2);
    expect(report.checks.anchor).toEqual({ passed: 2, failed: 0, not_covered: 1 });
    expect(report.checks.inclusion).toEqual({ passed: 20, failed: 0, not_covered: 4 });
    expect(Object.keys(report.checks)).toEqual([...EXPORT_CHECKS]);
    const sum = Object.values(report.checks).reduce((n, t) => n + t.passed + t.failed + t.not_covered, 0);
    expect(report.totals.passed + report.totals.failed + report.totals.not_covered).toBe(sum);
  });

  it('what it cannot check is named: the unanchored epoch, the anchors\' signatures (no TSA certificate given), the erased payload, the operations not yet sealed', () => {
    expect(notCovered(report)).toEqual([
      'epochs[2].anchor',
      'epochs',
      'operations[5].payload',
      'operations[20].inclusion',
      'operations[21].inclusion',
      'operations[22].inclusion',
      'operations[23].inclusion',
      // docs/EXPORT.md "Pinned agent keys": without pins every agent's keys are the bundle's word.
      'agents.agent-alpha',
      'agents.agent-beta',
      'agents.agent-gamma',
    ]);
    expect(report.agents.map((a) => [a.agent_id, a.pin])).toEqual([['agent-alpha', 'unpinned'], ['agent-beta', 'unpinned'], ['agent-gamma', 'unpinned']]);
  });

  it('from the file bytes too, which must then be exactly canonical', async () => {
    const { bytes } = await writeBundle(base);
    const fromBytes = verifyExportBundle(bytes);
    expect(fromBytes.valid).toBe(true);
    expect(fromBytes.checks.canonical).toEqual({ passed: 1, failed: 0, not_covered: 0 });
    expect(verifyExportBundle(new TextDecoder().decode(bytes)).valid).toBe(true);
    const pretty = verifyExportBundle(JSON.stringify(materialize(base), null, 2));
    expect(failed(pretty)).toEqual(['bundle']);
    expect(pretty.findings[0]!.check).toBe('canonical');
    // I-JSON (RFC 7493 §2.3): a repeated member would let two parsers read two bundles.
    const text = new TextDecoder().decode(bytes);
    const repeated = text.replace('{"body":{"bundle_version":"1.2",', '{"body":{"bundle_version":"1.2","bundle_version":"1.2",');
    expect(failed(verifyExportBundle(repeated))).toEqual(['bundle']);
    const shortened = text.replace('"bundle_version":"1.2"', '"bundle_version":"2.0"');
    expect(verifyExportBundle(shortened).findings.map((f) => [f.where, f.check])).toEqual([['bundle', 'bundle']]);
  });

  it('verifyAndReadExportBundle: the same report, and the bundle as parsed; null when it is no bundle it reads', async () => {
    const { bytes } = await writeBundle(base);
    const { report, bundle } = verifyAndReadExportBundle(bytes);
    expect(report).toEqual(verifyExportBundle(bytes));
    expect(bundle).toEqual(JSON.parse(new TextDecoder().decode(bytes)));
    const text = new TextDecoder().decode(bytes);
    const unreadable = verifyAndReadExportBundle(new TextEncoder().encode(text.replace('"bundle_version":"1.2"', '"bundle_version":"2.0"')));
    expect(unreadable.bundle).toBeNull();
    expect(unreadable.report.valid).toBe(false);
    expect(verifyAndReadExportBundle(new TextEncoder().encode('{"not":"a bundle"}')).bundle).toBeNull();
  });

  it('against a trusted JWKS', () => {
    const trusted = verifyExportBundle(materialize(base), { jwks: base.jwks });
    expect(trusted.valid).toBe(true);
    expect(trusted.trust).toBe('trusted_jwks');
    expect(trusted.checks.service_key).toEqual({ passed: 2, failed: 0, not_covered: 0 });
  });
});

describe('filtered exports: gaps are not covered, never failed', () => {
  it('one agent: its chain is whole inside the range, every link checks', () => {
    const r = verifyExportBundle(materialize(exportOf({ agent_id: 'agent-alpha' })));
    expect(r.valid).toBe(true);
    expect(r.counts.agents).toBe(1);
    expect(r.checks.chain_link.not_covered).toBe(0);
    expect(r.checks.chain_link.passed).toBe(r.counts.operations);
  });

  it('one operation type: seq_no gaps inside each chain', () => {
    const r = verifyExportBundle(materialize(exportOf({ operation_type: 'file.write' })));
    expect(failed(r)).toEqual([]);
    expect(r.checks.chain_link.not_covered).toBeGreaterThan(0);
    for (const f of r.findings.filter((x) => x.check === 'chain_link')) {
      expect(f.status).toBe('not_covered');
      expect(f.reason).toMatch(/^seq_no \d+ of agent agent-\w+ is not in the bundle$/);
    }
  });

  it('a time window: the first link of each agent is not covered (unless seq_no 1), the rest check', () => {
    const r = verifyExportBundle(materialize(exportOf({ start_time: T0 + E, end_time: T0 + 2 * E })));
    expect(failed(r)).toEqual([]);
    expect(r.findings.filter((f) => f.check === 'chain_link').map((f) => f.reason)).toEqual([
      'seq_no 3 of agent agent-alpha is not in the bundle',
      'seq_no 1 of agent agent-gamma is not in the bundle',
      'seq_no 3 of agent agent-beta is not in the bundle',
    ]);
    expect(r.counts.epochs).toBe(2); // the carried operation points to the window after the range
  });

  it('payloads left out: counted not covered per operation, reported once', () => {
    const r = verifyExportBundle(materialize(exportOf({}, { include_payloads: false })));
    expect(r.valid).toBe(true);
    expect(r.checks.payload).toEqual({ passed: 0, failed: 0, not_covered: 24 });
    const payloadFindings = r.findings.filter((f) => f.check === 'payload');
    expect(payloadFindings).toEqual([
      { where: 'export.include_payloads', check: 'payload', status: 'not_covered', reason: 'payloads were left out of the export (24 operations)' },
    ]);
  });
});

describe('a changed byte is detected, and the place named', () => {
  /** `alsoFails`: other places the same change legitimately breaks. */
  type Tamper = { name: string; change: (b: ExportBundle) => void; where: string; alsoFails?: RegExp };
  const tampers: Tamper[] = [
    { name: 'a record signature', change: (b) => void (ops(b)[3]!.record.signature = flip(ops(b)[3]!.record.signature)), where: 'operations[3].signature' },
    // A new object: materialize() shares one payload object between several operations.
    { name: 'a payload', change: (b) => void (ops(b)[0]!.payload = { ...(ops(b)[0]!.payload as object), bytes: 1205 }), where: 'operations[0].payload' },
    { name: 'a string payload', change: (b) => void (ops(b)[1]!.payload = `${ops(b)[1]!.payload as string} `), where: 'operations[1].payload' },
    { name: 'an inclusion proof', change: (b) => void (ops(b)[2]!.proof!.audit_path[0] = flip(ops(b)[2]!.proof!.audit_path[0]!)), where: 'operations[2].inclusion' },
    // The leaf claimed twice leaves leaf 2 of epoch 0 unclaimed: the epoch is incomplete too.
    { name: 'a leaf index', change: (b) => void (ops(b)[2]!.proof!.leaf_index = 1), where: 'operations[2].inclusion', alsoFails: /^epochs\[0\]$/ },
    { name: 'a receipt signature', change: (b) => void (ops(b)[4]!.receipt.service_signature = flip(ops(b)[4]!.receipt.service_signature)), where: 'operations[4].receipt' },
    { name: 'a hashed receipt member', change: (b) => void (ops(b)[4]!.receipt.queue_message_id = 'msg-x'), where: 'operations[4].receipt' },
    { name: "a receipt's seq_no", change: (b) => void (ops(b)[6]!.receipt.seq_no += 1), where: 'operations[6].receipt_row' },
    { name: 'a row member the record also has', change: (b) => void (ops(b)[8]!.row.nonce = 'nonce-x'), where: 'operations[8].row' },
    { name: 'a row subject', change: (b) => void (ops(b)[8]!.row.subject = '{"type":"other"}'), where: 'operations[8].row' },
    { name: 'a row chain hash', change: (b) => void (ops(b)[9]!.row.chain_hash = flip(ops(b)[9]!.row.chain_hash)), where: 'operations[9].chain_hash' },
    { name: 'a prev link', change: (b) => void (ops(b)[9]!.record.prev_chain_hash = flip(ops(b)[9]!.record.prev_chain_hash)), where: 'operations[9].chain_link' },
    { name: "an epoch's root", change: (b) => void (b.body.verification_material.epochs[1]!.epoch.root_hash = flip(b.body.verification_material.epochs[1]!.epoch.root_hash)), where: 'epochs[1].anchor' },
    {
      name: "a token's message imprint",
      change: (b) => {
        const anchor = b.body.verification_material.epochs[0]!.anchor!;
        const der = b64Decode(anchor.tsa_token);
        const root = b64uDecode(b.body.verification_material.epochs[0]!.epoch.root_hash);
        const at = Buffer.from(der).indexOf(Buffer.from(root));
        expect(at).toBeGreaterThan(0);
        der[at + 5]! ^= 0x01;
        anchor.tsa_token = b64Encode(der);
      },
      where: 'epochs[0].anchor',
    },
    { name: "an anchor's time", change: (b) => void (b.body.verification_material.epochs[0]!.anchor!.anchored_at += 1), where: 'epochs[0].anchor' },
    { name: 'the summary', change: (b) => void (b.body.summary.proofs += 1), where: 'summary' },
    { name: 'an agent key', change: (b) => void (b.body.verification_material.agent_keys[2]!.public_key = b64uEncode(rawPublicKey(generateKeyPair().privateKey))), where: 'operations[1].signature', alsoFails: /^operations\[\d+\]\.(signature|record\.agent_pubkey_kid)$/ },
  ];

  for (const t of tampers) {
    it(`${t.name}: fails at ${t.where}, and the manifest digest fails`, () => {
      const b = fresh();
      t.change(b);
      const r = verifyExportBundle(b);
      expect(r.valid).toBe(false);
      expect(failed(r)).toContain(t.where);
      expect(failed(r)).toContain('manifest.body_sha256');
      expect(failed(r)).not.toContain('manifest.signature');
    });

    it(`${t.name}: still fails at ${t.where} when the manifest is signed again`, () => {
      const b = fresh();
      t.change(b);
      const r = verifyExportBundle(resign(b));
      expect(failed(r)).toContain(t.where);
      const prefix = t.where.replace(/\.[a-z_]+$/, '');
      // A changed root fails the proofs of its epoch; a changed chain hash the next link.
      const knockOn = /^operations\[\d+\]\.(inclusion|chain_link)$/;
      const unrelated = failed(r).filter((w) => !w.startsWith(prefix) && !knockOn.test(w) && !(t.alsoFails?.test(w) ?? false));
      expect(unrelated).toEqual([]);
    });
  }

  it('the manifest signature: only manifest.signature fails', () => {
    const b = fresh();
    b.manifest.signature = flip(b.manifest.signature, 40);
    expect(failed(verifyExportBundle(b))).toEqual(['manifest.signature']);
  });

  it('the manifest digest: digest and signature fail (the signature was over the old digest)', () => {
    const b = fresh();
    b.manifest.body_sha256 = flip(b.manifest.body_sha256);
    expect(failed(verifyExportBundle(b))).toEqual(['manifest.body_sha256', 'manifest.signature']);
  });

  it('one byte of the file, inside a record signature', async () => {
    const { bytes } = await writeBundle(base);
    const file = Buffer.from(bytes);
    const signature = ops(materialize(base))[3]!.record.signature;
    const at = file.indexOf(`"signature":"${signature}"`) + 20;
    file[at] = file[at] === 0x41 ? 0x42 : 0x41;
    const r = verifyExportBundle(new Uint8Array(file));
    expect(failed(r)).toEqual(expect.arrayContaining(['manifest.body_sha256', 'operations[3].signature']));
  });

  it('any single byte of the file, anywhere (fast-check)', async () => {
    const { bytes } = await writeBundle(exportOf({ agent_id: 'agent-gamma' }));
    fc.assert(
      fc.property(fc.nat({ max: bytes.byteLength - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const copy = bytes.slice();
        copy[at]! ^= xor;
        const r = verifyExportBundle(copy);
        expect(r.valid).toBe(false);
      }),
      { numRuns: 80 },
    );
  });
});

describe('attacks on the evidence', () => {
  it('a bundle forged with another service key verifies only against its own JWKS, never against the trusted one', () => {
    const impostor = generateKeyPair();
    const jwk = ed25519Jwk(impostor.publicKey);
    const b = fresh();
    for (const op of ops(b)) {
      op.receipt = finishReceipt(op.receipt, jwk.kid, sign(impostor.privateKey, receiptSigningInput(receiptHash(op.receipt))));
    }
    b.body.verification_material.service_jwks = { keys: [jwk] };
    // The impostor signs the epoch log's checkpoint too (docs/CHECKPOINTS.md).
    const log = b.body.verification_material.log!;
    const cp = parseCheckpoint(log.checkpoint!).checkpoint;
    log.checkpoint = assembleCheckpoint(cp, jwk.x, sign(impostor.privateKey, new TextEncoder().encode(checkpointText(cp))));
    const digest = sha256(canonicalBytes(b.body));
    b.manifest = { body_sha256: b64uEncode(digest), service_kid: jwk.kid, signature: b64uEncode(sign(impostor.privateKey, digest)) };
    expect(verifyExportBundle(b).valid).toBe(true); // self-consistent: which is why trust matters
    const r = verifyExportBundle(b, { jwks: base.jwks });
    expect(r.valid).toBe(false);
    expect(failed(r)).toEqual(['manifest.signature', ...ops(b).map((_, i) => `operations[${i}].receipt`), 'verification_material.log.checkpoint']);
    expect(notCovered(r)).toContain('service_jwks.keys[0]');
  });

  it('a trusted JWKS that is not one trusts nothing (no fallback to the bundled keys)', () => {
    for (const jwks of [{ keys: [] }, { keys: 'x' }, null] as unknown as { keys: [] }[]) {
      const r = verifyExportBundle(materialize(base), { jwks });
      expect(r.trust).toBe('trusted_jwks');
      expect(failed(r)).toEqual(expect.arrayContaining(['options.jwks', 'manifest.signature', 'operations[0].receipt']));
    }
  });

  it('a trusted JWKS naming the same kid with another key marks the bundled key failed', () => {
    const other = ed25519Jwk(generateKeyPair().publicKey);
    const r = verifyExportBundle(materialize(base), { jwks: { keys: [{ ...other, kid: base.serviceKid }, base.jwks.keys[1]!] } });
    expect(failed(r)).toContain('service_jwks.keys[0]');
    expect(failed(r)).toContain('manifest.signature');
  });

  it('a fork: the same seq_no twice for one agent fails the chain link', () => {
    const b = fresh();
    const twin = structuredClone(ops(b)[7]!);
    twin.row.operation_id = twin.record.operation_id = twin.receipt.operation_id = '01977a00-0000-7000-8000-ffffffffffff';
    twin.row.created_at = T0 + 4 * E - 1;
    delete twin.proof;
    ops(b).push(twin);
    const r = verifyExportBundle(resign(b));
    const fork = r.findings.find((f) => f.where === 'operations[24].chain_link');
    expect(fork).toMatchObject({ status: 'failed', reason: expect.stringMatching(/has seq_no \d+ twice .* a fork/) });
  });

  it('a record attributed to a key of another agent', () => {
    const b = fresh();
    ops(b)[0]!.record.agent_pubkey_kid = ops(b)[0]!.row.agent_pubkey_kid = 'beta-1';
    const r = verifyExportBundle(resign(b));
    expect(r.findings.find((f) => f.where === 'operations[0].signature')?.reason).toBe('agent agent-alpha key beta-1 is not in verification_material.agent_keys');
  });

  it('an epoch left out: the proofs pointing to it fail', () => {
    const b = fresh();
    b.body.verification_material.epochs.splice(1, 1);
    b.body.summary.epochs -= 1;
    const r = verifyExportBundle(resign(b));
    const inclusion = r.findings.filter((f) => f.check === 'inclusion' && f.status === 'failed');
    expect(inclusion.length).toBe(6);
    expect(inclusion[0]!.reason).toMatch(/is not in verification_material.epochs/);
  });

  it('an unused key or epoch slipped in fails as not belonging to the bundle', () => {
    const b = fresh();
    const spare = base.orgKeys.find((k) => k.kid === 'gamma-unused')!;
    b.body.verification_material.agent_keys.push(spare);
    b.body.verification_material.epochs.push(base.orgEpochs[3]!);
    const r = verifyExportBundle(resign(b));
    expect(failed(r)).toEqual(['agent_keys[4]', 'epochs[3]', 'summary']);
  });

  it('a narrower filter claimed for a wider set of operations fails the scope', () => {
    const b = fresh();
    b.body.export.query.agent_id = 'agent-alpha';
    const r = verifyExportBundle(resign(b));
    expect(r.checks.scope.failed).toBe(24 - 11);
  });

  it('operations reordered, or receipts swapped between operations', () => {
    const b = fresh();
    [ops(b)[3], ops(b)[4]] = [ops(b)[4]!, ops(b)[3]!];
    expect(failed(verifyExportBundle(resign(b)))).toEqual(['operations[4].order']);
    const c = fresh();
    [ops(c)[3]!.receipt, ops(c)[4]!.receipt] = [ops(c)[4]!.receipt, ops(c)[3]!.receipt];
    expect(failed(verifyExportBundle(resign(c)))).toEqual(['operations[3].receipt_row', 'operations[4].receipt_row']);
  });

  it('a payload in a bundle that says payloads were left out', () => {
    const s = exportOf({}, { include_payloads: false });
    const b = materialize(s);
    ops(b)[0]!.payload = base.items[0]!.operation.payload!;
    expect(failed(verifyExportBundle(resign(b)))).toEqual(['operations[0].payload', 'summary']);
  });
});

describe('bad input is reported, never thrown', () => {
  const cases: [string, unknown][] = [
    ['not JSON', 'not json'],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d])],
    ['null', null],
    ['an array', []],
    ['an empty object', {}],
    ['a future version', { ...fresh(), body: { ...fresh().body, bundle_version: '2.0' } }],
    ['material missing', { ...fresh(), body: { ...fresh().body, verification_material: { agent_keys: [] } } }],
  ];
  for (const [name, input] of cases) {
    it(name, () => {
      const r = verifyExportBundle(input);
      expect(r.valid).toBe(false);
      expect(r.findings[0]!.check).toBe('bundle');
    });
  }

  it('any JSON value in place of any member of an operation, key, epoch, anchor or the header (fast-check)', () => {
    const b = materialize(exportOf({ agent_id: 'agent-beta' }));
    // Each target replaces one member of the copy it is given.
    type Target = (copy: ExportBundle, value: unknown) => void;
    const set = (obj: object, member: string, value: unknown): void => void ((obj as Record<string, unknown>)[member] = value);
    const material = (copy: ExportBundle) => copy.body.verification_material;
    const targets: Target[] = [
      ...ops(b).flatMap((op, i) =>
        (['row', 'record', 'receipt', 'proof'] as const).flatMap((part) =>
          Object.keys(op[part] ?? {}).map((m): Target => (copy, v) => set(ops(copy)[i]![part] ?? {}, m, v)),
        ),
      ),
      ...ops(b).map((_, i): Target => (copy, v) => set(ops(copy)[i]!, 'payload', v)),
      ...Object.keys(material(b).agent_keys[0]!).map((m): Target => (copy, v) => set(material(copy).agent_keys[0]!, m, v)),
      ...Object.keys(material(b).epochs[0]!.epoch).map((m): Target => (copy, v) => set(material(copy).epochs[0]!.epoch, m, v)),
      ...Object.keys(material(b).epochs[0]!.anchor ?? {}).map((m): Target => (copy, v) => set(material(copy).epochs[0]!.anchor!, m, v)),
      ...Object.keys(b.body.export).map((m): Target => (copy, v) => set(copy.body.export, m, v)),
      (copy, v) => set(copy.body, 'operations', v),
      (copy, v) => set(copy, 'manifest', v),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...targets), fc.jsonValue(), (target, value) => {
        const copy = structuredClone(b);
        target(copy, value);
        const r = verifyExportBundle(copy);
        if (canonicalize(copy) !== canonicalize(b)) expect(r.valid).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});
