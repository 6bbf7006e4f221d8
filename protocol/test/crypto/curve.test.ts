/**
 * docs/PROTOCOL.md, Notation: small-order and non-canonical public keys, and signatures with
 * S >= L, are refused, by key validation and by every verification.
 */
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ED25519_L,
  ProtocolError,
  assertValidPublicKey,
  b64uEncode,
  generateKeyPair,
  publicKeyFromRaw,
  publicKeyProblem,
  sign,
  signatureScalarInRange,
  verify,
  verifyRecordSignature,
  type OperationRecord,
} from '../../src/index.js';
import { hex, utf8 } from '../vectors.js';

/** The eight points of small order on edwards25519, canonically encoded (y < p). */
const SMALL_ORDER_POINTS: [string, string][] = [
  ['identity (order 1)', '0100000000000000000000000000000000000000000000000000000000000000'],
  ['y = p - 1 (order 2)', 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ['y = 0, x even (order 4)', '0000000000000000000000000000000000000000000000000000000000000000'],
  ['y = 0, x odd (order 4)', '0000000000000000000000000000000000000000000000000000000000000080'],
  ['order 8, a', '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05'],
  ['order 8, b', '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85'],
  ['order 8, c', 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'],
  ['order 8, d', 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa'],
];

const P = 2n ** 255n - 19n;

function littleEndian(value: bigint, length = 32): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return out;
}

/** Every encoding with y >= p (19 values of y), with the x sign bit clear and set. */
const NON_CANONICAL: [string, Uint8Array][] = [];
for (let y = P; y < 2n ** 255n; y++) {
  NON_CANONICAL.push([`y = p + ${y - P}`, littleEndian(y)]);
  NON_CANONICAL.push([`y = p + ${y - P}, sign bit set`, littleEndian(y | (1n << 255n))]);
}
// x = 0 with the sign bit set (RFC 8032 §5.1.3 step 4): the identity and the order-2 point.
NON_CANONICAL.push(['identity with the sign bit', hex('0100000000000000000000000000000000000000000000000000000000000080')]);
NON_CANONICAL.push(['y = p - 1 with the sign bit', hex('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff')]);

/** The forgery a small-order key allows: R = identity, S = 0. */
const FORGED_SIGNATURE = hex('01'.padEnd(128, '0'));
const MESSAGE = utf8('any record at all');

function expectInvalidKey(run: () => unknown): void {
  expect(run).toThrow(ProtocolError);
  expect(run).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }) as Error);
}

describe('small-order public keys', () => {
  it('the identity key is the one the forgery works with: node alone accepts R = identity, S = 0', () => {
    // Why the protocol checks keys itself: node:crypto verifies this forged signature.
    const nodeKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, format: 'jwk' });
    expect(nodeVerify(null, MESSAGE, nodeKey, FORGED_SIGNATURE)).toBe(true);
    expect(verify(nodeKey, MESSAGE, FORGED_SIGNATURE)).toBe(false);
  });

  for (const [name, encoding] of SMALL_ORDER_POINTS) {
    it(`refuses ${name}: validation, parsing and verification`, () => {
      const raw = hex(encoding);
      expect(publicKeyProblem(raw)).toMatch(/small-order/);
      expectInvalidKey(() => assertValidPublicKey(raw));
      expectInvalidKey(() => assertValidPublicKey(b64uEncode(raw)));
      expectInvalidKey(() => publicKeyFromRaw(b64uEncode(raw)));
      expectInvalidKey(() => publicKeyFromRaw(raw));
      expect(verify(raw, MESSAGE, FORGED_SIGNATURE)).toBe(false);
      expect(verify(b64uEncode(raw), MESSAGE, new Uint8Array(64))).toBe(false);
    });
  }

  it('refuses a record "signed" with R = identity, S = 0 under the identity key', () => {
    const record = { signature: b64uEncode(FORGED_SIGNATURE) } as unknown as OperationRecord;
    expect(verifyRecordSignature(record, 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
  });
});

describe('non-canonical encodings', () => {
  for (const [name, raw] of NON_CANONICAL) {
    it(`refuses ${name}`, () => {
      expect(publicKeyProblem(raw)).toBeDefined();
      expectInvalidKey(() => assertValidPublicKey(raw));
      expectInvalidKey(() => publicKeyFromRaw(b64uEncode(raw)));
      expect(verify(raw, MESSAGE, FORGED_SIGNATURE)).toBe(false);
    });
  }

  it('refuses a y with no point on the curve', () => {
    // The smallest y >= 2 for which (y² - 1) / (d·y² + 1) has no square root.
    let offCurve: Uint8Array | undefined;
    for (let y = 2n; offCurve === undefined; y++) {
      const problem = publicKeyProblem(littleEndian(y));
      if (problem?.includes('canonical encoding of an Ed25519 point')) offCurve = littleEndian(y);
    }
    expectInvalidKey(() => assertValidPublicKey(offCurve));
  });

  it('accepts ordinary keys', () => {
    for (let i = 0; i < 20; i++) {
      const { publicKey } = generateKeyPair();
      expect(publicKeyProblem(assertValidPublicKey(publicKey))).toBeUndefined();
    }
    // RFC 8032 §7.1 TEST 1
    expect(() => assertValidPublicKey(hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'))).not.toThrow();
  });
});

describe('signatures with S >= L (RFC 8032 §5.1.7)', () => {
  const { publicKey, privateKey } = generateKeyPair();
  const good = sign(privateKey, MESSAGE);
  const withS = (s: bigint) => new Uint8Array([...good.subarray(0, 32), ...littleEndian(s)]);
  const sOf = (signature: Uint8Array) => signature.subarray(32).reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n);

  it('L is the order of the base point', () => {
    expect(ED25519_L).toBe(2n ** 252n + 27742317777372353535851937790883648493n);
  });

  it('a good signature has S < L and verifies', () => {
    expect(signatureScalarInRange(good)).toBe(true);
    expect(verify(publicKey, MESSAGE, good)).toBe(true);
  });

  it('S + L (the same signature to a lax verifier) is refused', () => {
    const malleated = withS(sOf(good) + ED25519_L);
    expect(signatureScalarInRange(malleated)).toBe(false);
    expect(verify(publicKey, MESSAGE, malleated)).toBe(false);
    expect(verify(publicKey, MESSAGE, b64uEncode(malleated))).toBe(false);
  });

  it('the boundary: L - 1 is in range, L and everything above are not', () => {
    expect(signatureScalarInRange(withS(ED25519_L - 1n))).toBe(true);
    expect(signatureScalarInRange(withS(2n ** 252n))).toBe(true);
    expect(signatureScalarInRange(withS(ED25519_L))).toBe(false);
    expect(signatureScalarInRange(withS(ED25519_L + 1n))).toBe(false);
    expect(signatureScalarInRange(withS(2n ** 253n))).toBe(false);
    expect(signatureScalarInRange(withS(2n ** 256n - 1n))).toBe(false);
    expect(signatureScalarInRange(new Uint8Array(63))).toBe(false);
  });
});
