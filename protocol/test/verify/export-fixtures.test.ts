// The export conformance fixtures (fixtures/exports/, written by
// fixtures/record-export-fixtures.ts): this verifier reaches exactly the recorded verdict and
// failing places; the Python verifier is held to the same file (python/tests/test_conformance.py).
import { describe, expect, it } from 'vitest';
import { parseAgentKeyPins, verifyExportBundle } from '../../src/index.js';
import { fixtureJwks, fixturePins, loadExportFixtures } from '../fixtures/export-fixtures.js';

describe('export conformance fixtures', () => {
  const jwks = fixtureJwks();
  const fixtures = loadExportFixtures();

  it('has genuine and tampered cases', () => {
    expect(fixtures.filter((f) => f.expected.valid).length).toBeGreaterThanOrEqual(3);
    expect(fixtures.filter((f) => !f.expected.valid).length).toBeGreaterThanOrEqual(8);
  });

  for (const { name, bytes, expected } of fixtures) {
    it(`${name}: ${expected.why}`, () => {
      const report = verifyExportBundle(bytes, { jwks });
      expect(report.valid).toBe(expected.valid);
      expect(report.findings.filter((f) => f.status === 'failed').map((f) => ({ where: f.where, check: f.check }))).toEqual(expected.failed);
      const pinned = verifyExportBundle(bytes, { jwks, pins: parseAgentKeyPins(fixturePins()) });
      expect(pinned.valid).toBe(expected.pinned.valid);
      expect(pinned.findings.filter((f) => f.status === 'failed').map((f) => ({ where: f.where, check: f.check }))).toEqual(expected.pinned.failed);
      expect(Object.fromEntries(pinned.agents.map((a) => [a.agent_id, a.pin]))).toEqual(expected.pinned.agents);
      expect(report.unproven_keys.map((k) => `${k.agent_id} ${k.kid}`)).toEqual(expected.unproven_keys);
      const required = verifyExportBundle(bytes, { jwks, requireKeyProofs: true });
      expect(required.valid).toBe(expected.proofs_required.valid);
      expect(required.findings.filter((f) => f.status === 'failed').map((f) => ({ where: f.where, check: f.check }))).toEqual(expected.proofs_required.failed);
    });
  }
});
