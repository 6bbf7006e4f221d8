import { describe, expect, it } from 'vitest';
import {
  MAX_BUNDLE_DEPTH,
  MAX_CANONICAL_DEPTH,
  MAX_RECORD_DEPTH,
  NestingTooDeepError,
  assertRecordDepth,
  canonicalize,
  deepestPathOver,
  recordDepthProblem,
  verifyExportBundle,
  type ExportBundle,
} from '../../src/index.js';
import { base, materialize } from '../exportscenario.js';

/** An object `levels` levels deep counting itself: `{a:{a:...{}}}`, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** A record whose `member` value sits at level 2 and nests `levels` levels in all (record included). */
function recordWith(member: 'subject' | 'action' | 'payload', levels: number): Record<string, unknown> {
  return { op_version: '1.0', subject: {}, action: {}, payload: null, [member]: nested(levels - 1) };
}

describe('the record nesting limit (docs/PROTOCOL.md, Nesting limit)', () => {
  it('is 64 levels, the record object being level 1', () => {
    expect(MAX_RECORD_DEPTH).toBe(64);
    for (const member of ['subject', 'action', 'payload'] as const) {
      expect(recordDepthProblem(recordWith(member, 64)), member).toBeNull();
      const problem = recordDepthProblem(recordWith(member, 65));
      expect(problem, member).toContain(`record member '${member}' nests deeper than 64 levels`);
      expect(() => assertRecordDepth(recordWith(member, 65))).toThrow(NestingTooDeepError);
    }
  });

  it('counts arrays as levels too, and names the path of the first container too deep', () => {
    let value: unknown = [];
    for (let i = 2; i < 64; i++) value = [value];
    expect(recordDepthProblem({ payload: value })).toBeNull();
    expect(recordDepthProblem({ payload: [value] })).toMatch(/record member 'payload'.*record\.payload\[0\]\[0\]\[0\]…/);
  });

  it('measures hostile depths without overflowing the stack', () => {
    const hostile = JSON.parse(`{"payload":${'['.repeat(30_000)}${']'.repeat(30_000)}}`) as unknown;
    expect(recordDepthProblem(hostile)).toContain("record member 'payload'");
    expect(deepestPathOver(nested(30_000), 29_999)).not.toBeNull();
    expect(deepestPathOver(nested(30_000), 30_000)).toBeNull();
  });
});

describe('JCS without recursion', () => {
  it('canonicalizes a value nested beyond what a recursive walk survives, up to its bound', () => {
    // The recursive JCS overflowed near 2,900 levels of objects; MAX_CANONICAL_DEPTH is 10,000.
    const depth = MAX_CANONICAL_DEPTH - 2; // objects, and the array inside the last one
    const text = `${'{"a":'.repeat(depth)}[]${'}'.repeat(depth)}`;
    expect(canonicalize(JSON.parse(text))).toBe(text);
    expect(() => canonicalize(JSON.parse(`[${text}]`))).not.toThrow();
    expect(() => canonicalize(JSON.parse(`[[${text}]]`))).toThrow(/nested deeper than 10000 levels/);
  });

  it('still refuses cycles, holes and non-plain objects at any depth', () => {
    const cyclic: Record<string, unknown> = { a: { b: [] } };
    ((cyclic.a as Record<string, unknown>).b as unknown[]).push(cyclic);
    expect(() => canonicalize(cyclic)).toThrow(/cycle/);
    const shared = { x: 1 };
    expect(canonicalize({ a: shared, b: [shared, shared] })).toBe('{"a":{"x":1},"b":[{"x":1},{"x":1}]}');
    // eslint-disable-next-line no-sparse-arrays
    expect(() => canonicalize({ a: [[1, , 2]] })).toThrow(/undefined/);
    expect(() => canonicalize({ a: [{ d: new Date(0) }] })).toThrow(/non-plain object/);
  });
});

describe('the export verifier and input it cannot process', () => {
  const deepBundle = (): ExportBundle => {
    const bundle = structuredClone(materialize(base));
    (bundle.body.operations[0]!.record as { subject: unknown }).subject = nested(3_000);
    return bundle;
  };

  it('says it cannot process a bundle nested deeper than the protocol allows, rather than "tampered"', () => {
    for (const input of [deepBundle(), JSON.stringify(deepBundle()), new TextEncoder().encode(JSON.stringify(deepBundle()))]) {
      const report = verifyExportBundle(input);
      expect(report.valid).toBe(false);
      expect(report.cannot_process).toMatch(new RegExp(`^cannot process: nesting deeper than ${MAX_BUNDLE_DEPTH} levels \\(at \\$\\.body\\.operations\\[0\\]\\.record…\\)`));
      expect(report.findings).toEqual([]);
      expect(report.totals).toEqual({ passed: 0, failed: 0, not_covered: 0 });
    }
  });

  it('processes a bundle whose records are within the limit, and a changed payload there is a failed check', () => {
    const bundle = structuredClone(materialize(base));
    expect(verifyExportBundle(bundle).cannot_process).toBeNull();
    // payload sits at bundle level 5 (record level 2): 64 record levels are 68 bundle levels.
    bundle.body.operations[0]!.payload = nested(MAX_RECORD_DEPTH - 1);
    const report = verifyExportBundle(bundle);
    expect(report.cannot_process).toBeNull();
    const failed = report.findings.filter((f) => f.status === 'failed');
    expect(failed.map((f) => f.check)).toEqual(['manifest_digest', 'payload']);
  });
});
