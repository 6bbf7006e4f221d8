import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EXPORT_CHECKPOINT_VERSION,
  ExportBundleWriter,
  ProtocolError,
  b64uEncode,
  canonicalBytes,
  sha256,
  sign,
  verifyExportBundle,
  type ExportOperation,
  type ExportWriterCheckpoint,
} from '../../src/index.js';
import { E, T0, base, exportOf, materialize, writeBundle, type Scenario, scenarioLog } from '../exportscenario.js';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

const scenarios: [string, Scenario][] = [
  ['the whole range', base],
  ['one agent', exportOf({ agent_id: 'agent-alpha' })],
  ['one operation type', exportOf({ operation_type: 'shell.exec' })],
  ['the middle window only', exportOf({ start_time: T0 + E, end_time: T0 + 2 * E })],
  ['payloads left out', exportOf({}, { include_payloads: false })],
  ['a PDF export', exportOf({ agent_id: 'agent-beta' }, { format: 'pdf' })],
  ['no matching operation', exportOf({ agent_id: 'agent-nobody' })],
];

function expectWriterError(fn: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ProtocolError);
  expect((caught as ProtocolError).code).toBe('EXPORT_WRITER');
  expect((caught as ProtocolError).message).toMatch(message);
}

/** A writer that has written every operation of `s`. */
async function afterOperations(s: Scenario): Promise<ExportBundleWriter> {
  const w = await ExportBundleWriter.create(s.header);
  w.open();
  for (const item of s.items) w.addOperation(item.operation, item.epoch);
  return w;
}

describe('ExportBundleWriter writes exactly JCS(bundle)', () => {
  for (const [name, s] of scenarios) {
    it(`${name}: one pass equals canonicalBytes of the materialised bundle, and it verifies`, async () => {
      const { bytes } = await writeBundle(s);
      expect(text(bytes)).toBe(text(canonicalBytes(materialize(s))));
      const report = verifyExportBundle(bytes);
      expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
      expect(report.valid).toBe(true);
      expect(report.counts.operations).toBe(s.items.length);
    });

    it(`${name}: paused and resumed after every single call, through JSON, gives the same bytes`, async () => {
      const once = await writeBundle(s);
      const pieces = await writeBundle(s, () => true);
      expect(pieces.checkpoints.length).toBeGreaterThan(2);
      expect(text(pieces.bytes)).toBe(text(once.bytes));
    });
  }

  it('any pattern of pauses gives the same bytes (fast-check)', async () => {
    const once = text((await writeBundle(base)).bytes);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 12 }), async (pauses) => {
        const { bytes } = await writeBundle(base, (step) => pauses.includes(step));
        expect(text(bytes)).toBe(once);
      }),
      { numRuns: 25 },
    );
  });

  it('the file is {"body":<JCS(body)>,"manifest":...}, and bodyDigest is SHA-256 of those body bytes', async () => {
    const bundle = materialize(base);
    const file = text((await writeBundle(base)).bytes);
    const body = text(canonicalBytes(bundle.body));
    expect(file.startsWith(`{"body":${body},"manifest":{"body_sha256":"`)).toBe(true);
    expect(file.endsWith('"}}')).toBe(true);
    expect(bundle.manifest.body_sha256).toBe(b64uEncode(sha256(canonicalBytes(bundle.body))));
    const w = await afterOperations(base);
    w.endOperations(base.orgKeys);
    for (const e of base.orgEpochs) w.offerEpoch(e);
    w.endEpochs(base.jwks, scenarioLog(base));
    expect(b64uEncode(w.bodyDigest())).toBe(bundle.manifest.body_sha256);
  });

  it('keeps progress, byte count and the query position for the worker', async () => {
    const w = await ExportBundleWriter.create(base.header);
    const head = w.open();
    expect(w.bytesWritten).toBe(head.byteLength);
    expect(w.lastOperation).toBeNull();
    const first = base.items[0]!;
    const chunk = w.addOperation(first.operation, first.epoch);
    expect(w.operationsWritten).toBe(1);
    expect(w.bytesWritten).toBe(head.byteLength + chunk.byteLength);
    expect(w.lastOperation).toEqual({ created_at: first.operation.row.created_at, operation_id: first.operation.row.operation_id });
    const resumed = await ExportBundleWriter.resume(JSON.parse(JSON.stringify(w.checkpoint())));
    expect([resumed.phase, resumed.operationsWritten, resumed.bytesWritten]).toEqual(['operations', 1, w.bytesWritten]);
  });

  it('drops bookkeeping members of store items (table keys, op_version on the row, receipt ids)', async () => {
    const s: Scenario = {
      ...base,
      items: base.items.map(({ operation, epoch }) => ({
        operation: {
          ...operation,
          row: { ...operation.row, pk: 'ORG#x', op_version: '1.0', receipt_id: 'r', agent_public_key: 'k' },
          receipt: { ...operation.receipt, store_receipt_key: 'x' },
        } as ExportOperation,
        ...(epoch ? { epoch: { ...epoch, sk: 'EPOCH#1' } } : {}),
      })),
      orgEpochs: base.orgEpochs.map((e) => ({ ...e, epoch: { ...e.epoch, gsi1pk: 'x' } })),
    };
    expect(text((await writeBundle(s)).bytes)).toBe(text((await writeBundle(base)).bytes));
  });
});

describe('the checkpoint stays small and resumable', () => {
  it('is plain JSON of about 1 KB for this export, whatever the number of operations written', async () => {
    const { checkpoints } = await writeBundle(base, () => true);
    for (const c of checkpoints) expect(c.length).toBeLessThan(2_000);
    const phases = checkpoints.map((c) => (JSON.parse(c) as ExportWriterCheckpoint).phase);
    expect(new Set(phases)).toEqual(new Set(['operations', 'epochs', 'signing', 'done']));
    expect((JSON.parse(checkpoints[0]!) as ExportWriterCheckpoint).checkpoint_version).toBe(EXPORT_CHECKPOINT_VERSION);
  });

  it('resuming refuses what is not a checkpoint', async () => {
    const good = (await ExportBundleWriter.create(base.header)).checkpoint();
    const bad: unknown[] = [
      null,
      {},
      { ...good, checkpoint_version: 2 },
      { ...good, phase: 'writing' },
      { ...good, sha256_state: null },
      { ...good, sha256_state: 'AAAA' },
      { ...good, operations: -1 },
      { ...good, epoch_windows: 'x.1.2.3' },
      { ...good, header: { ...good.header, format: 'xml' } },
    ];
    for (const cp of bad) {
      await expect(ExportBundleWriter.resume(cp as ExportWriterCheckpoint), JSON.stringify(cp)?.slice(0, 80)).rejects.toMatchObject({
        code: expect.stringMatching(/^INVALID_(CHECKPOINT|HASH_STATE)$/),
      });
    }
  });
});

describe('ExportBundleWriter refuses input that would not verify, before writing anything', () => {
  const [a, b] = [base.items[0]!, base.items[1]!];

  it('calls out of order', async () => {
    const w = await ExportBundleWriter.create(base.header);
    expectWriterError(() => w.addOperation(a.operation, a.epoch), /not allowed in phase 'new'/);
    w.open();
    expectWriterError(() => w.open(), /open\(\) is not allowed/);
    expectWriterError(() => w.endEpochs(base.jwks), /not allowed in phase 'operations'/);
    expectWriterError(() => w.bodyDigest(), /not available/);
  });

  it('operations out of (created_at, operation_id) order, or the same one twice', async () => {
    const w = await ExportBundleWriter.create(base.header);
    w.open();
    w.addOperation(b.operation, b.epoch);
    expectWriterError(() => w.addOperation(a.operation, a.epoch), /does not come after/);
    expectWriterError(() => w.addOperation(b.operation, b.epoch), /does not come after/);
    // The two operations sharing one created_at: ordered by operation_id.
    const tie = base.items.filter((i) => i.operation.row.created_at === base.items[11]!.operation.row.created_at);
    expect(tie).toHaveLength(2);
  });

  it('operations outside the query or the organization', async () => {
    const s = exportOf({ agent_id: 'agent-beta', start_time: T0 + E });
    const w = await ExportBundleWriter.create(s.header);
    w.open();
    const alpha = base.items.find((i) => i.operation.row.agent_id === 'agent-alpha' && i.operation.row.created_at >= T0 + E)!;
    expectWriterError(() => w.addOperation(alpha.operation, alpha.epoch), /is not of agent agent-beta/);
    const early = base.items.find((i) => i.operation.row.agent_id === 'agent-beta')!;
    expectWriterError(() => w.addOperation(early.operation, early.epoch), /outside the export's time range/);
    const foreign = { ...a.operation, row: { ...a.operation.row, org_id: 'org_other' } };
    expectWriterError(() => w.addOperation(foreign, a.epoch), /another organization/);
    const typed = await ExportBundleWriter.create(exportOf({ operation_type: 'http.request' }).header);
    typed.open();
    expectWriterError(() => typed.addOperation(a.operation, a.epoch), /is not of type http.request/);
  });

  it('a payload in an export without payloads', async () => {
    const w = await ExportBundleWriter.create(exportOf({}, { include_payloads: false }).header);
    w.open();
    expectWriterError(() => w.addOperation(a.operation, a.epoch), /leaves payloads out/);
  });

  it('a proof without its epoch, an epoch without a proof, a proof naming another epoch, or an epoch that ended before the operation', async () => {
    const w = await ExportBundleWriter.create(base.header);
    w.open();
    expectWriterError(() => w.addOperation(a.operation), /no epoch was given/);
    const unsealed = base.items[base.items.length - 1]!;
    expect(unsealed.epoch).toBeUndefined();
    const other = base.orgEpochs[1]!.epoch;
    expectWriterError(() => w.addOperation(a.operation, other), /does not name epoch/);
    const { proof: _p, ...bare } = a.operation;
    expectWriterError(() => w.addOperation(bare, a.epoch), /an epoch but no proof/);
    const early = { ...a.epoch!, end_time: a.operation.row.created_at };
    const proof = { ...a.operation.proof! };
    expectWriterError(() => w.addOperation({ ...a.operation, proof }, early), /created after the window/);
    // Nothing was written by the refused calls: the writer goes on as if they never happened.
    for (const item of base.items) w.addOperation(item.operation, item.epoch);
    expect(w.operationsWritten).toBe(base.items.length);
  });

  it('two different epochs for one window', async () => {
    const w = await ExportBundleWriter.create(base.header);
    w.open();
    w.addOperation(a.operation, a.epoch);
    const twin = { ...a.epoch!, epoch_id: 'another-epoch-id' };
    expectWriterError(() => w.addOperation({ ...b.operation, proof: { ...b.operation.proof!, epoch_id: twin.epoch_id } }, twin), /two different epochs/);
  });

  it('a value that is not JSON', async () => {
    const w = await ExportBundleWriter.create(base.header);
    w.open();
    const op = { ...a.operation, payload: { n: Number.NaN } };
    expect(() => w.addOperation(op, a.epoch)).toThrow(expect.objectContaining({ code: 'CANONICALIZATION' }));
    expect(w.operationsWritten).toBe(0);
  });

  it('a key that signed a record is missing at the end', async () => {
    const w = await afterOperations(base);
    expect(w.referencedAgentKeys()).toEqual([
      { agent_id: 'agent-alpha', kid: 'alpha-2024' },
      { agent_id: 'agent-alpha', kid: 'alpha-2025' },
      { agent_id: 'agent-beta', kid: 'beta-1' },
      { agent_id: 'agent-gamma', kid: 'gamma-1' },
    ]);
    expectWriterError(() => w.endOperations(base.orgKeys.filter((k) => k.kid !== 'beta-1')), /agent keys missing for agent-beta\/beta-1/);
    const bent = base.orgKeys.map((k) => (k.kid === 'beta-1' ? { ...k, public_key: 'short' } : k));
    expectWriterError(() => w.endOperations(bent), /not a 32-byte base64url Ed25519 key/);
  });

  it('an epoch query that missed an epoch, offered one twice, or went backwards', async () => {
    const w = await afterOperations(base);
    w.endOperations(base.orgKeys);
    expect(w.epochRange()).toEqual({ from: T0, to: T0 + 3 * E });
    w.offerEpoch(base.orgEpochs[0]!);
    expect(w.epochRange()).toEqual({ from: T0 + 1, to: T0 + 3 * E });
    expectWriterError(() => w.offerEpoch(base.orgEpochs[0]!), /offer epochs once each, ascending/);
    w.offerEpoch(base.orgEpochs[2]!); // skips epoch 1
    expectWriterError(() => w.endEpochs(base.jwks), /point to 3 epochs but 2 matching ones were offered/);
  });

  it('an epoch whose root differs from what the proofs named', async () => {
    const w = await afterOperations(base);
    w.endOperations(base.orgKeys);
    const bent = { ...base.orgEpochs[0]!, epoch: { ...base.orgEpochs[0]!.epoch, root_hash: base.orgEpochs[1]!.epoch.root_hash } };
    expectWriterError(() => w.offerEpoch(bent), /not the epoch the proofs point to/);
    // After a resume the cross-check is gone, and the sum over all epochs catches it at the end.
    const resumed = await ExportBundleWriter.resume(JSON.parse(JSON.stringify(w.checkpoint())));
    resumed.offerEpoch(bent);
    resumed.offerEpoch(base.orgEpochs[1]!);
    resumed.offerEpoch(base.orgEpochs[2]!);
    expectWriterError(() => resumed.endEpochs(base.jwks), /matching ones were offered/);
  });

  it('a JWKS without a receipt key, or a manifest signed by the wrong key', async () => {
    const w = await afterOperations(base);
    w.endOperations(base.orgKeys);
    for (const e of base.orgEpochs) w.offerEpoch(e);
    expectWriterError(() => w.endEpochs({ keys: [base.jwks.keys[0]!] }), /lacks receipt key/);
    const mislabelled = { ...base.jwks.keys[1]!, kid: base.jwks.keys[0]!.kid };
    expectWriterError(() => w.endEpochs({ keys: [mislabelled] }), /kid is its RFC 7638 thumbprint/);
    w.endEpochs(base.jwks);
    const retiredKid = base.jwks.keys[1]!.kid;
    expectWriterError(() => w.finish({ service_kid: retiredKid, signature: sign(base.serviceKey, w.bodyDigest()) }), /does not verify/);
    expectWriterError(() => w.finish({ service_kid: 'nope', signature: sign(base.serviceKey, w.bodyDigest()) }), /not in the bundle's service JWKS/);
    const tail = w.finish({ service_kid: base.serviceKid, signature: b64uEncode(sign(base.serviceKey, w.bodyDigest())) });
    expect(text(tail)).toMatch(/^,"manifest":\{"body_sha256":"[A-Za-z0-9_-]{43}","service_kid":"[A-Za-z0-9_-]{43}","signature":"[A-Za-z0-9_-]{86}"\}\}$/);
    expect(w.phase).toBe('done');
  });

  it('a header that is not a body.export', async () => {
    const bad = [
      { ...base.header, format: 'csv' },
      { ...base.header, query: { ...base.header.query, end_time: base.header.query.start_time } },
      { ...base.header, include_payloads: 'yes' },
      { ...base.header, query: null },
    ];
    for (const h of bad) await expect(ExportBundleWriter.create(h as never)).rejects.toMatchObject({ code: 'EXPORT_WRITER' });
  });
});
