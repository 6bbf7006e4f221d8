/**
 * An erased payload in an export bundle (docs/EXPORT.md `payload_erased`): the operation
 * without its payload and with the erasure mark verifies, reported as erased (not covered),
 * with signature, chain, receipt and inclusion still passing; a mark next to a payload fails.
 * A payload neither in the bundle nor marked erased (its stored copy destroyed behind the
 * service) fails in bundles 1.1 and later, and stays not covered in a 1.0 bundle, which marked
 * no erasure, and for a row that names no stored copy.
 */
import { describe, expect, it } from 'vitest';
import { b64uEncode, canonicalBytes, sha256, sign, verifyExportBundle, type ExportBundle } from '../../src/index.js';
import { base, materialize } from '../exportscenario.js';

function resign(bundle: ExportBundle): ExportBundle {
  const digest = sha256(canonicalBytes(bundle.body));
  bundle.manifest = { body_sha256: b64uEncode(digest), service_kid: base.serviceKid, signature: b64uEncode(sign(base.serviceKey, digest)) };
  return bundle;
}

describe('an erased payload in a bundle', () => {
  it('verifies, and says the payload was erased, by whom, when and why', () => {
    const bundle = materialize(base);
    const i = bundle.body.operations.findIndex((op) => Object.hasOwn(op, 'payload') && op.proof !== undefined);
    const op = bundle.body.operations[i]!;
    delete op.payload;
    op.payload_erased = { by: 'user-owner', at: 1_750_000_500_000, reason: 'personal data under a deletion request' };
    bundle.body.summary.payloads -= 1;
    const report = verifyExportBundle(resign(bundle), { jwks: base.jwks });
    expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.findings).toContainEqual({ where: `operations[${i}].payload`, check: 'payload', status: 'not_covered', reason: expect.stringMatching(/^payload erased by user-owner at 2025-.*: personal data under a deletion request$/) });
    expect(report.checks.signature.failed + report.checks.chain_hash.failed + report.checks.receipt.failed + report.checks.inclusion.failed).toBe(0);
  });

  it('fails when an operation marked erased still carries a payload, or the mark is malformed', () => {
    const bundle = materialize(base);
    const i = bundle.body.operations.findIndex((op) => Object.hasOwn(op, 'payload'));
    bundle.body.operations[i]!.payload_erased = { by: 'u', at: 1, reason: 'r' };
    const report = verifyExportBundle(resign(bundle), { jwks: base.jwks });
    expect(report.findings).toContainEqual(expect.objectContaining({ where: `operations[${i}].payload`, status: 'failed' }));
    const malformed = materialize(base);
    (malformed.body.operations[i] as unknown as Record<string, unknown>).payload_erased = { by: 'u' };
    expect(verifyExportBundle(resign(malformed), { jwks: base.jwks }).valid).toBe(false);
  });

  it('fails a payload neither in the bundle nor marked erased (1.1 and later); a 1.0 bundle, or a row naming no copy, leaves it not covered', () => {
    const destroyed = (version: string, storeKey?: null) => {
      const bundle = materialize(base);
      bundle.body.bundle_version = version;
      if (version === '1.0') delete bundle.body.verification_material.log;
      const i = bundle.body.operations.findIndex((op) => Object.hasOwn(op, 'payload'));
      const op = bundle.body.operations[i]!;
      delete op.payload;
      if (storeKey === null) op.row.store_payload_key = null;
      bundle.body.summary.payloads -= 1;
      const report = verifyExportBundle(resign(bundle), { jwks: base.jwks });
      return { report, finding: report.findings.find((f) => f.where === `operations[${i}].payload`), key: bundle.body.operations[i]!.row.store_payload_key };
    };
    for (const version of ['1.1', '1.2']) {
      const { report, finding, key } = destroyed(version);
      expect(finding, version).toEqual({ where: expect.any(String), check: 'payload', status: 'failed', reason: `the payload is neither in the bundle nor marked erased: its stored copy (${key}) was destroyed` });
      expect(report.valid).toBe(false);
    }
    for (const { report, finding } of [destroyed('1.0'), destroyed('1.2', null)]) {
      expect(finding).toEqual({ where: expect.any(String), check: 'payload', status: 'not_covered', reason: 'the payload is not in the bundle (erased, or never stored)' });
      expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    }
  });
});
