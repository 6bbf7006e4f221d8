import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Base64urlError, ProtocolError, b64uDecode, b64uEncode, isB64u } from '../../src/index.js';
import { utf8 } from '../vectors.js';

describe('base64url', () => {
  // RFC 4648 §10 test vectors (unpadded; these contain no 62/63 digits).
  const rfc4648: [string, string][] = [
    ['', ''],
    ['f', 'Zg'],
    ['fo', 'Zm8'],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy'],
  ];
  for (const [plain, encoded] of rfc4648) {
    it(`RFC 4648 §10 "${plain}" <-> "${encoded}"`, () => {
      expect(b64uEncode(utf8(plain))).toBe(encoded);
      expect(b64uDecode(encoded)).toEqual(utf8(plain));
    });
  }

  it('uses the URL-safe alphabet', () => {
    expect(b64uEncode(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    expect(b64uDecode('-_8')).toEqual(new Uint8Array([0xfb, 0xff]));
  });

  it('encodes a view honouring its offset', () => {
    const backing = new Uint8Array([1, 2, 3, 4, 5]);
    expect(b64uEncode(backing.subarray(1, 3))).toBe(b64uEncode(new Uint8Array([2, 3])));
  });

  it('decodes to a plain, unshared Uint8Array', () => {
    const out = b64uDecode('AAAA');
    expect(out).toBeInstanceOf(Uint8Array);
    expect(out.buffer.byteLength).toBe(3);
  });

  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const text = b64uEncode(bytes);
        expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(b64uDecode(text)).toEqual(bytes);
        expect(isB64u(text, bytes.length)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  const rejected: [string, string][] = [
    ['padding', 'Zg=='],
    ['single padding', 'Zm8='],
    ['plus', 'a+bc'],
    ['slash', 'a/bc'],
    ['space', 'Zm 9v'],
    ['leading whitespace', ' Zm9v'],
    ['trailing newline', 'Zm9v\n'],
    ['tab', 'Zm\t9v'],
    ['non-ASCII', 'Zm9é'],
    ['dot', 'Zm9.'],
    ['length 1 mod 4', 'Zm9vY'],
    ['length 1', 'A'],
    ['non-canonical trailing bits (2 chars)', 'Zh'],
    ['non-canonical trailing bits (3 chars)', 'Zm9'],
    ['non-canonical trailing bits of a 32-byte value', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB'],
  ];
  for (const [name, text] of rejected) {
    it(`rejects ${name}: ${JSON.stringify(text)}`, () => {
      let caught: unknown;
      try {
        b64uDecode(text);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(Base64urlError);
      expect(caught).toBeInstanceOf(ProtocolError);
      expect((caught as Base64urlError).code).toBe('BASE64URL');
      expect(isB64u(text)).toBe(false);
    });
  }

  it('rejects non-string input', () => {
    expect(() => b64uDecode(42 as unknown as string)).toThrow(Base64urlError);
  });

  it('isB64u checks type and byte length', () => {
    const genesis = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect(isB64u(genesis)).toBe(true);
    expect(isB64u(genesis, 32)).toBe(true);
    expect(isB64u(genesis, 31)).toBe(false);
    expect(isB64u(genesis, 33)).toBe(false);
    expect(isB64u(genesis + 'A', 32)).toBe(false);
    expect(isB64u('', 0)).toBe(true);
    expect(isB64u('')).toBe(true);
    expect(isB64u(null)).toBe(false);
    expect(isB64u(undefined)).toBe(false);
    expect(isB64u(123)).toBe(false);
    expect(isB64u(new Uint8Array(3))).toBe(false);
    expect(isB64u('A'.repeat(86), 64)).toBe(true); // an all-zero signature-sized value
    expect(isB64u('A'.repeat(85) + 'B', 64)).toBe(false); // non-zero trailing bits
  });
});
