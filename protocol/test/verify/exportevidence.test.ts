/**
 * What an export proves against the service itself (docs/EXPORT.md "Completeness", "Trust",
 * "Time-stamps"): bundles tampered with by someone holding the service's own key (an
 * omission re-signed, an epoch with a leaf left out, a late or badly signed time-stamp, a
 * small-order agent key, a swapped JWKS) each fail with the place named; genuine filtered and
 * unfiltered exports verify.
 */
import { describe, expect, it } from 'vitest';
import {
  ANCHOR_LATE_BOUND_MS,
  b64uEncode,
  canonicalBytes,
  ed25519Jwk,
  generateKeyPair,
  sha256,
  sign,
  verifyExportBundle,
  type ExportBundle,
  type ExportVerificationReport,
} from '../../src/index.js';
import { E, T0, base, exportOf, materialize } from '../exportscenario.js';

const fresh = (): ExportBundle => structuredClone(materialize(base));
const ops = (b: ExportBundle) => b.body.operations;
const failed = (r: ExportVerificationReport) => r.findings.filter((f) => f.status === 'failed');
const failedAt = (r: ExportVerificationReport) => failed(r).map((f) => f.where);

/** The dishonest operator: recount the summary, drop keys no record uses, and sign the manifest with the genuine service key. */
function resign(b: ExportBundle): ExportBundle {
  const list = ops(b);
  const used = new Set(list.map((o) => `${o.record.agent_id}\u0000${o.record.agent_pubkey_kid}`));
  const material = b.body.verification_material;
  material.agent_keys = material.agent_keys.filter((k) => used.has(`${k.agent_id}\u0000${k.kid}`));
  const pointed = new Set(list.flatMap((o) => (o.proof ? [o.proof.epoch_id] : [])));
  material.epochs = material.epochs.filter((e) => pointed.has(e.epoch.epoch_id));
  b.body.summary = {
    operations: list.length,
    agents: new Set(list.map((o) => o.row.agent_id)).size,
    agent_keys: material.agent_keys.length,
    epochs: material.epochs.length,
    proofs: list.filter((o) => o.proof !== undefined).length,
    payloads: list.filter((o) => Object.hasOwn(o, 'payload')).length,
  };
  const digest = sha256(canonicalBytes(b.body));
  b.manifest = { body_sha256: b64uEncode(digest), service_kid: base.serviceKid, signature: b64uEncode(sign(base.serviceKey, digest)) };
  return b;
}

describe('completeness: genuine exports verify', () => {
  it('unfiltered: every chain and every epoch inside the range is complete', () => {
    const r = verifyExportBundle(materialize(base), { jwks: base.jwks });
    expect(failed(r)).toEqual([]);
    expect(r.checks.chain_complete).toEqual({ passed: 3, failed: 0, not_covered: 0 });
    expect(r.checks.epoch_complete).toEqual({ passed: 3, failed: 0, not_covered: 0 });
  });

  it('a time window: chains start mid-way and the carried operation points outside, still complete', () => {
    const r = verifyExportBundle(materialize(exportOf({ start_time: T0 + E, end_time: T0 + 2 * E })));
    expect(failed(r)).toEqual([]);
    expect(r.checks.chain_complete.passed).toBe(3);
    expect(r.checks.epoch_complete).toEqual({ passed: 1, failed: 0, not_covered: 0 }); // epoch 1; epoch 2 ends after the range
  });

  it('an operation_type filter turns both checks off, and says so at the filter', () => {
    const r = verifyExportBundle(materialize(exportOf({ operation_type: 'shell.exec' })));
    expect(failed(r)).toEqual([]);
    const off = r.findings.filter((f) => f.check === 'chain_complete' || f.check === 'epoch_complete');
    expect(off.map((f) => [f.where, f.check, f.status])).toEqual([
      ['export.query.operation_type', 'chain_complete', 'not_covered'],
      ['export.query.operation_type', 'epoch_complete', 'not_covered'],
    ]);
    expect(off[0]!.reason).toMatch(/operation_type filter \(shell\.exec\).*not checked for completeness/);
  });

  it('an agent_id filter keeps the chain check and turns the epoch check off', () => {
    const r = verifyExportBundle(materialize(exportOf({ agent_id: 'agent-beta' })));
    expect(failed(r)).toEqual([]);
    expect(r.checks.chain_complete).toEqual({ passed: 1, failed: 0, not_covered: 0 });
    expect(r.findings.filter((f) => f.check === 'epoch_complete').map((f) => f.where)).toEqual(['export.query.agent_id']);
  });
});

describe('completeness: omissions re-signed with the service key fail, naming the place', () => {
  it('an operation left out of the middle of a chain names the agent and the missing seq_no', () => {
    const b = fresh();
    // operations[20] is agent-alpha's, not yet sealed, with alpha's operations[23] after it.
    const dropped = ops(b)[20]!;
    expect(dropped.proof).toBeUndefined();
    ops(b).splice(20, 1);
    const r = verifyExportBundle(resign(b), { jwks: base.jwks });
    expect(r.valid).toBe(false);
    expect(failedAt(r)).toEqual(['chains["agent-alpha"]']);
    const seq = dropped.row.seq_no;
    expect(failed(r)[0]!.reason).toBe(`agent agent-alpha: seq_no ${seq} missing between seq_no ${seq - 1} (operations[18]) and seq_no ${seq + 1} (operations[22])`);
  });

  it('a sealed operation left out: its chain and its epoch both say so (leaf_count as the witness)', () => {
    const b = fresh();
    const i = ops(b).findIndex((o) => o.row.agent_id === 'agent-beta' && o.proof?.epoch_id === b.body.verification_material.epochs[1]!.epoch.epoch_id);
    const dropped = ops(b)[i]!;
    ops(b).splice(i, 1);
    const r = verifyExportBundle(resign(b), { jwks: base.jwks });
    expect(failedAt(r)).toEqual(['chains["agent-beta"]', 'epochs[1]']);
    const epoch = b.body.verification_material.epochs[1]!.epoch;
    expect(failed(r)[1]!.reason).toBe(
      `epoch ${epoch.epoch_id} has leaf_count ${epoch.leaf_count} but the bundle holds ${epoch.leaf_count - 1} of its leaves (missing leaf_index ${dropped.proof!.leaf_index})`,
    );
  });

  it("an operation's proof left out (the operation made to look unsealed) fails its epoch", () => {
    const b = fresh();
    const i = ops(b).findIndex((o) => o.proof?.epoch_id === b.body.verification_material.epochs[2]!.epoch.epoch_id && o.proof.leaf_index > 0);
    delete ops(b)[i]!.proof;
    const r = verifyExportBundle(resign(b), { jwks: base.jwks });
    expect(failedAt(r)).toEqual(['epochs[2]']);
  });

  it('the epoch at the range start may lack only its first leaves (carried from before the range): not covered, not failed', () => {
    const b = fresh();
    const first = ops(b).findIndex((o) => o.proof?.leaf_index === 0 && o.proof.epoch_id === b.body.verification_material.epochs[0]!.epoch.epoch_id);
    delete ops(b)[first]!.proof;
    const r = verifyExportBundle(resign(b), { jwks: base.jwks });
    expect(failed(r)).toEqual([]);
    expect(r.findings.find((f) => f.check === 'epoch_complete')).toMatchObject({ where: 'epochs[0]', status: 'not_covered' });
    // A leaf in the middle of that epoch is not carried: it fails.
    const c = fresh();
    const middle = ops(c).findIndex((o) => o.proof?.leaf_index === 1 && o.proof.epoch_id === c.body.verification_material.epochs[0]!.epoch.epoch_id);
    delete ops(c)[middle]!.proof;
    expect(failedAt(verifyExportBundle(resign(c), { jwks: base.jwks }))).toEqual(['epochs[0]']);
  });
});

describe('agent keys: small-order and non-canonical keys fail agent_key', () => {
  const cases: [string, string][] = [
    ['the identity (small order)', b64uEncode(Uint8Array.of(1, ...new Array<number>(31).fill(0)))],
    ['y >= p (non-canonical)', b64uEncode(Uint8Array.of(0xee, ...new Array<number>(30).fill(0xff), 0x7f))],
  ];
  for (const [name, key] of cases) {
    it(name, () => {
      const b = fresh();
      b.body.verification_material.agent_keys[0]!.public_key = key;
      const r = verifyExportBundle(resign(b), { jwks: base.jwks });
      const at = r.findings.find((f) => f.where === 'agent_keys[0]');
      expect(at).toMatchObject({ check: 'agent_key', status: 'failed' });
      expect(at!.reason).toMatch(/small-order|canonical encoding/);
    });
  }
});

describe('trust: keys the auditor did not give are untrusted, not bad signatures', () => {
  it('a swapped JWKS: the manifest and receipts name an untrusted key', () => {
    const other = generateKeyPair();
    const r = verifyExportBundle(materialize(base), { jwks: { keys: [ed25519Jwk(other.publicKey)] } });
    expect(r.valid).toBe(false);
    const manifest = r.findings.find((f) => f.where === 'manifest.signature')!;
    expect(manifest.reason).toMatch(/^untrusted key: service key \S+ is not in the JWKS you gave/);
    expect(r.findings.find((f) => f.where === 'operations[0].receipt')!.reason).toMatch(/^untrusted key/);
    expect(r.findings.some((f) => /does not verify/.test(f.reason))).toBe(false);
  });

  it('a bundled JWKS that no longer lists a receipt kid is flagged (and, without a trusted JWKS, the kid is unknown)', () => {
    const b = fresh();
    const retired = b.body.verification_material.service_jwks.keys[1]!.kid;
    b.body.verification_material.service_jwks.keys.splice(1, 1);
    const trusted = verifyExportBundle(resign(b), { jwks: base.jwks });
    expect(failedAt(trusted)).toEqual(['service_jwks']);
    expect(failed(trusted)[0]!.reason).toBe(`the bundled JWKS does not list service key ${retired}, which signed operations[0].receipt`);
    const bundled = verifyExportBundle(b);
    expect(bundled.findings.find((f) => f.where === 'operations[0].receipt')!.reason).toBe(`unknown kid: service key ${retired} is not in the bundled service_jwks`);
  });
});

describe('time-stamps: late anchors, and the signature verdict', () => {
  it('an anchor stamped later than its epoch end plus the bound is late', () => {
    const b = fresh();
    const entry = b.body.verification_material.epochs[0]!;
    // The token's genTime is fixed; move the window instead (a root sealed long before it was stamped).
    entry.epoch.end_time = entry.anchor!.anchored_at - ANCHOR_LATE_BOUND_MS - 60_000;
    entry.epoch.start_time = entry.epoch.end_time - E;
    const r = verifyExportBundle(resign(b));
    const late = r.findings.find((f) => f.check === 'anchor_time')!;
    expect(late).toMatchObject({ where: 'epochs[0].anchor', status: 'failed' });
    expect(late.reason).toMatch(/^late: genTime .* is 1441 minutes after the epoch's window ended, more than the 24 h bound$/);
  });

  it('the signature verdict given is reported per anchor; without one, anchors are "not checked"', () => {
    const b = materialize(base);
    const [first] = b.body.verification_material.epochs;
    const r = verifyExportBundle(b, { timestampSignature: (token) => (token === first!.anchor!.tsa_token ? null : 'not signed by the TSA you trust') });
    expect(r.checks.anchor_signature).toEqual({ passed: 1, failed: 1, not_covered: 0 });
    expect(failed(r)).toEqual([{ where: 'epochs[1].anchor', check: 'anchor_signature', status: 'failed', reason: 'not signed by the TSA you trust' }]);
    const unchecked = verifyExportBundle(b).findings.find((f) => f.check === 'anchor_signature')!;
    expect(unchecked).toMatchObject({ where: 'epochs', status: 'not_covered' });
    expect(unchecked.reason).toMatch(/^the time-stamps' signatures were not checked \(2 tokens\)/);
  });
});
