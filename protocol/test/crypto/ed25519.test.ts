import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ProtocolError,
  b64uEncode,
  generateKeyPair,
  privateKeyFromSeed,
  publicKeyFromRaw,
  rawPublicKey,
  sign,
  verify,
} from '../../src/index.js';
import { hex, toHex, utf8 } from '../vectors.js';

// RFC 8032 §7.1 TEST 1 and TEST 2.
const rfc8032 = [
  {
    name: 'TEST 1',
    sk: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    pk: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    msg: '',
    sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2',
    sk: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    pk: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    msg: '72',
    sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[bit >> 3] = (out[bit >> 3] as number) ^ (1 << (bit & 7));
  return out;
}

describe('RFC 8032 §7.1', () => {
  for (const t of rfc8032) {
    describe(t.name, () => {
      const sk = privateKeyFromSeed(hex(t.sk));
      const msg = hex(t.msg);
      const sig = hex(t.sig);
      const pk = hex(t.pk);

      it('derives the public key from the seed', () => {
        expect(toHex(rawPublicKey(sk))).toBe(t.pk);
        expect(toHex(rawPublicKey(publicKeyFromRaw(pk)))).toBe(t.pk);
      });
      it('sign reproduces the signature', () => {
        expect(toHex(sign(sk, msg))).toBe(t.sig);
      });
      it('verify accepts it with every key and signature form', () => {
        expect(verify(pk, msg, sig)).toBe(true);
        expect(verify(b64uEncode(pk), msg, b64uEncode(sig))).toBe(true);
        expect(verify(publicKeyFromRaw(pk), msg, sig)).toBe(true);
      });
      it('flipping a bit of the signature, message or key rejects', () => {
        for (const bit of [0, 7, 100, 255, 256, 511]) {
          expect(verify(pk, msg, flipBit(sig, bit))).toBe(false);
        }
        const longer = new Uint8Array([...msg, 0]);
        expect(verify(pk, longer, sig)).toBe(false);
        if (msg.length > 0) expect(verify(pk, flipBit(msg, 0), sig)).toBe(false);
        for (const bit of [0, 100, 254]) {
          expect(verify(flipBit(pk, bit), msg, sig)).toBe(false);
        }
      });
    });
  }
});

describe('keys', () => {
  it('generateKeyPair returns a usable pair whose seed re-imports', () => {
    const { publicKey, privateKeySeed, privateKey } = generateKeyPair();
    expect(publicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(privateKeySeed.byteLength).toBe(32);
    const msg = utf8('hello');
    const sig = sign(privateKey, msg);
    expect(sig.byteLength).toBe(64);
    expect(verify(publicKey, msg, sig)).toBe(true);
    expect(b64uEncode(rawPublicKey(privateKeyFromSeed(privateKeySeed)))).toBe(publicKey);
    expect(toHex(sign(privateKeyFromSeed(privateKeySeed), msg))).toBe(toHex(sig));
  });

  it('publicKeyFromRaw caches parsed keys', () => {
    const raw = hex(rfc8032[0]!.pk);
    const a = publicKeyFromRaw(raw);
    expect(publicKeyFromRaw(b64uEncode(raw))).toBe(a);
    expect(publicKeyFromRaw(raw)).toBe(a);
  });

  it('the cache is bounded (oldest entries are evicted)', () => {
    const first = generateKeyPair().publicKey;
    const firstKey = publicKeyFromRaw(first);
    // Real keys: arbitrary bytes are mostly not curve points, which publicKeyFromRaw refuses.
    for (let i = 0; i < 10_001; i++) publicKeyFromRaw(generateKeyPair().publicKey);
    const again = publicKeyFromRaw(first);
    expect(again).not.toBe(firstKey);
    expect(b64uEncode(rawPublicKey(again))).toBe(first);
  });

  const badPublicKeys: [string, unknown][] = [
    ['31 bytes', new Uint8Array(31)],
    ['33 bytes', new Uint8Array(33)],
    ['empty', new Uint8Array(0)],
    ['padded b64u', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['42-char b64u', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['standard alphabet', '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo'],
    ['not a string or bytes', 42],
  ];
  for (const [name, value] of badPublicKeys) {
    it(`publicKeyFromRaw rejects ${name} with INVALID_PUBLIC_KEY`, () => {
      let caught: unknown;
      try {
        publicKeyFromRaw(value as string);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ProtocolError);
      expect((caught as ProtocolError).code).toBe('INVALID_PUBLIC_KEY');
    });
  }

  it('privateKeyFromSeed rejects wrong lengths with INVALID_PRIVATE_KEY', () => {
    for (const len of [0, 31, 33, 64]) {
      expect(() => privateKeyFromSeed(new Uint8Array(len))).toThrow(
        expect.objectContaining({ code: 'INVALID_PRIVATE_KEY' }) as Error,
      );
    }
  });

  it('rawPublicKey rejects non-Ed25519 keys', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => rawPublicKey(publicKey)).toThrow(ProtocolError);
  });
});

describe('verify never throws', () => {
  const t = rfc8032[1]!;
  const msg = hex(t.msg);
  const sig = hex(t.sig);
  const pk = hex(t.pk);
  const ecKey: KeyObject = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  const cases: [string, () => boolean][] = [
    ['63-byte signature', () => verify(pk, msg, sig.subarray(0, 63))],
    ['65-byte signature', () => verify(pk, msg, new Uint8Array([...sig, 0]))],
    ['empty signature', () => verify(pk, msg, new Uint8Array(0))],
    ['garbage signature text', () => verify(pk, msg, 'not base64url!')],
    ['padded signature text', () => verify(pk, msg, b64uEncode(sig) + '==')],
    ['short signature text', () => verify(pk, msg, b64uEncode(sig.subarray(0, 32)))],
    ['31-byte key', () => verify(pk.subarray(0, 31), msg, sig)],
    ['garbage key text', () => verify('%%%', msg, sig)],
    ['P-256 KeyObject', () => verify(ecKey, msg, sig)],
    ['null signature', () => verify(pk, msg, null as unknown as string)],
    ['null key', () => verify(null as unknown as string, msg, sig)],
    ['non-bytes message', () => verify(pk, 'x' as unknown as Uint8Array, sig)],
    ['all-zero signature', () => verify(pk, msg, new Uint8Array(64))],
    ['all-0xff key', () => verify(new Uint8Array(32).fill(0xff), msg, sig)],
  ];
  for (const [name, run] of cases) {
    it(`returns false for ${name}`, () => {
      expect(run).not.toThrow();
      expect(run()).toBe(false);
    });
  }
  it('accepts a private KeyObject as the verification key', () => {
    expect(verify(privateKeyFromSeed(hex(t.sk)), msg, sig)).toBe(true);
  });
});
