import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256, sha256B64u } from '../../src/index.js';
import { toHex, utf8 } from '../vectors.js';
import { createHash } from 'node:crypto';

describe('sha256', () => {
  it('FIPS 180-2 "abc"', () => {
    expect(toHex(sha256(utf8('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  it('empty input, with and without parts', () => {
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(toHex(sha256())).toBe(empty);
    expect(toHex(sha256(new Uint8Array(0)))).toBe(empty);
    expect(toHex(sha256(new Uint8Array(0), new Uint8Array(0)))).toBe(empty);
  });
  it('sha256B64u is the b64u of the digest', () => {
    expect(sha256B64u(utf8('null'))).toBe('dCNOmK_nSY-12vHzasLXiswzlGT5UHA7jAGYkvmCuQs');
  });
  it('hashing parts equals hashing their concatenation (small and large parts)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 5 }), (parts) => {
        const joined = Buffer.concat(parts);
        const expected = createHash('sha256').update(joined).digest('hex');
        expect(toHex(sha256(...parts))).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });
  it('returns a 32-byte Uint8Array that owns its memory', () => {
    const d = sha256(utf8('x'), utf8('y'));
    expect(d).toBeInstanceOf(Uint8Array);
    expect(d.byteLength).toBe(32);
  });
});
