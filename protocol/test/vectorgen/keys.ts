/**
 * ed25519.json (RFC 8032 §7.1 signatures reproduced), ed25519-invalid.json (signatures a
 * verifier refuses), keys-invalid.json (public keys the key rules of docs/PROTOCOL.md
 * "Notation" refuse) and jwk.json (RFC 7638 thumbprints).
 */
import { createPublicKey } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  ED25519_L,
  ProtocolError,
  assertValidPublicKey,
  b64uEncode,
  canonicalize,
  ed25519Jwk,
  jwkThumbprint,
  privateKeyFromSeed,
  rawPublicKey,
  sha256B64u,
  sign,
  verify,
} from '../../src/index.js';
import { agree, hexBytes, toHex } from './agree.js';
import { RFC7638_RSA, RFC8032_ED25519, RFC8037_OKP } from './rfc.js';

export type Ed25519Vector = { name: string; seed_hex: string; public_key_hex: string; public_key: string; message_hex: string; signature_hex: string };
export type Ed25519InvalidVector = { name: string; public_key_hex: string; message_hex: string; signature_hex: string; error: string; why: string };
export type KeyInvalidVector = { name: string; public_key: string; error: string; why: string };
export type JwkVector = { name: string; jwk: Record<string, string>; canonical: string; thumbprint: string };

export function ed25519Vectors(): Ed25519Vector[] {
  return RFC8032_ED25519.map((rfc) => {
    const key = privateKeyFromSeed(hexBytes(rfc.seed));
    const pub = rawPublicKey(key);
    const signature = sign(key, hexBytes(rfc.message));
    agree(`${rfc.name} public key`, toHex(pub), rfc.publicKey);
    agree(`${rfc.name} signature`, toHex(signature), rfc.signature);
    agree(`${rfc.name} verifies`, verify(pub, hexBytes(rfc.message), signature), true);
    return {
      name: rfc.name,
      seed_hex: rfc.seed,
      public_key_hex: toHex(pub),
      public_key: b64uEncode(pub),
      message_hex: rfc.message,
      signature_hex: toHex(signature),
    };
  });
}

/** A 32-byte little-endian integer, as Ed25519 encodes field elements and scalars. */
function le32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}

function fromLe(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] as number);
  return n;
}

const P = 2n ** 255n - 19n;

/** The eight points of order dividing 8, from a generator of the torsion subgroup. */
function smallOrderPoints(): { k: number; order: number; bytes: Uint8Array }[] {
  // An order-8 point (the torsion subgroup is cyclic of order 8); its multiples are all eight.
  const t = ed25519.Point.fromHex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a');
  const out: { k: number; order: number; bytes: Uint8Array }[] = [];
  let q = ed25519.Point.ZERO;
  for (let k = 0; k < 8; k++) {
    let order = 1;
    for (let r = q; !r.is0(); r = r.add(q)) order++;
    out.push({ k, order, bytes: q.toBytes() });
    q = q.add(t);
  }
  agree('the torsion generator has order 8', out[1]?.order, 8);
  return out;
}

/** The first y (from 2) that is below p yet has no x on the curve. */
function notOnCurve(): Uint8Array {
  for (let y = 2n; ; y++) {
    const bytes = le32(y);
    try {
      ed25519.Point.fromBytes(bytes, false);
    } catch {
      return bytes;
    }
  }
}

/** True when assertValidPublicKey refuses the b64u key with INVALID_PUBLIC_KEY. */
export function keyRefused(publicKey: string): boolean {
  try {
    assertValidPublicKey(publicKey);
    return false;
  } catch (err) {
    return err instanceof ProtocolError && err.code === 'INVALID_PUBLIC_KEY';
  }
}

export function keyInvalidVectors(): KeyInvalidVector[] {
  const out: KeyInvalidVector[] = [];
  for (const { k, order, bytes } of smallOrderPoints()) {
    out.push({
      name: order === 1 ? 'identity point (small order 1)' : `small-order point ${k}T of order ${order} (T = c7176a70…)`,
      public_key: b64uEncode(bytes),
      error: 'small_order',
      why: 'a small-order key lets anyone forge signatures (R = identity, S = 0 verifies every message)',
    });
  }
  const withSign = (y: bigint): Uint8Array => {
    const b = le32(y);
    b[31] = (b[31] as number) | 0x80;
    return b;
  };
  const nonCanonical: [string, Uint8Array][] = [
    ['y = p (non-canonical encoding of y = 0)', le32(P)],
    ['y = p + 1 (non-canonical encoding of the identity)', le32(P + 1n)],
    ['y = 2^255 - 1 (largest non-canonical y)', le32(2n ** 255n - 1n)],
    ['y = p + 1 with the sign bit set', withSign(P + 1n)],
    ['x = 0 with the sign bit set (y = 1)', withSign(1n)],
  ];
  for (const [name, bytes] of nonCanonical) {
    out.push({ name, public_key: b64uEncode(bytes), error: 'non_canonical', why: 'RFC 8032 §5.1.3 decoding refuses y >= p and x = 0 with the sign bit set' });
  }
  out.push({ name: 'y with no point on the curve', public_key: b64uEncode(notOnCurve()), error: 'not_on_curve', why: 'RFC 8032 §5.1.3: x^2 has no square root' });
  const valid = hexBytes(RFC8032_ED25519[0].publicKey);
  out.push({ name: '31 bytes', public_key: b64uEncode(valid.subarray(0, 31)), error: 'length', why: 'a public key is 32 bytes' });
  out.push({ name: '33 bytes', public_key: b64uEncode(new Uint8Array([...valid, 0])), error: 'length', why: 'a public key is 32 bytes' });
  out.push({ name: 'padded base64url', public_key: `${b64uEncode(valid)}=`, error: 'base64url', why: 'b64u is unpadded (docs/PROTOCOL.md "Notation")' });
  out.push({ name: 'standard base64 alphabet', public_key: Buffer.from(hexBytes(RFC8032_ED25519[1].publicKey)).toString('base64').replace(/=+$/, ''), error: 'base64url', why: 'b64u uses - and _, not + and /' });
  for (const v of out) agree(`keys-invalid "${v.name}" is refused`, keyRefused(v.public_key), true);
  return out;
}

export function ed25519InvalidVectors(): Ed25519InvalidVector[] {
  const [t1, t2, t3] = RFC8032_ED25519;
  const flip = (hex: string, byte: number, bit = 0): string => {
    const b = hexBytes(hex);
    b[byte] = (b[byte] as number) ^ (1 << bit);
    return toHex(b);
  };
  const sig2 = hexBytes(t2.signature);
  const sPlusL = toHex(new Uint8Array([...sig2.subarray(0, 32), ...le32(fromLe(sig2.subarray(32)) + ED25519_L)]));
  const identity = toHex(le32(1n));
  const out: Ed25519InvalidVector[] = [
    { name: 'bit flipped in R', public_key_hex: t2.publicKey, message_hex: t2.message, signature_hex: flip(t2.signature, 0), error: 'signature', why: 'the signature does not verify' },
    { name: 'bit flipped in S', public_key_hex: t2.publicKey, message_hex: t2.message, signature_hex: flip(t2.signature, 40, 3), error: 'signature', why: 'the signature does not verify' },
    { name: 'bit flipped in the message', public_key_hex: t2.publicKey, message_hex: flip(t2.message, 0), signature_hex: t2.signature, error: 'signature', why: 'the signature does not verify' },
    { name: 'signature of another key', public_key_hex: t3.publicKey, message_hex: t2.message, signature_hex: t2.signature, error: 'signature', why: 'the signature does not verify' },
    { name: 'S + L (malleated scalar)', public_key_hex: t2.publicKey, message_hex: t2.message, signature_hex: sPlusL, error: 'signature_scalar', why: 'S must be below L (RFC 8032 §5.1.7), or one signature has many spellings' },
    { name: 'R = identity, S = 0 under the identity key', public_key_hex: identity, message_hex: t1.message, signature_hex: identity + '00'.repeat(32), error: 'small_order_key', why: 'verifies for every message under a small-order key; the key is refused' },
    { name: '63-byte signature', public_key_hex: t2.publicKey, message_hex: t2.message, signature_hex: t2.signature.slice(0, 126), error: 'signature_length', why: 'an Ed25519 signature is 64 bytes' },
  ];
  for (const v of out) agree(`ed25519-invalid "${v.name}" is refused`, verify(hexBytes(v.public_key_hex), hexBytes(v.message_hex), hexBytes(v.signature_hex)), false);
  return out;
}

export function jwkVectors(serviceSeedHex: string): JwkVector[] {
  const rsaCanonical = canonicalize({ e: RFC7638_RSA.jwk.e, kty: RFC7638_RSA.jwk.kty, n: RFC7638_RSA.jwk.n });
  const rsaThumbprint = sha256B64u(new TextEncoder().encode(rsaCanonical));
  agree('RFC 7638 §3.1 thumbprint', rsaThumbprint, RFC7638_RSA.thumbprint);
  const okp = (name: string, x: string): JwkVector => {
    const jwk = ed25519Jwk(x);
    // Cross-check the key with an independent reader (node:crypto, i.e. OpenSSL).
    const viaNode = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }).export({ format: 'jwk' });
    agree(`${name}: OpenSSL reads the same x`, viaNode.x, x);
    agree(`${name}: kid is the thumbprint`, jwk.kid, jwkThumbprint(jwk));
    return { name, jwk: { ...jwk }, canonical: canonicalize({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }), thumbprint: jwk.kid };
  };
  const rfc8037 = okp('RFC 8037 Appendix A.3 (RFC 8032 TEST 1 key)', RFC8037_OKP.jwk.x);
  agree('RFC 8037 Appendix A.3 thumbprint', rfc8037.thumbprint, RFC8037_OKP.thumbprint);
  const service = okp('receipt.json service key (RFC 8032 TEST 2 seed)', b64uEncode(rawPublicKey(privateKeyFromSeed(hexBytes(serviceSeedHex)))));
  return [{ name: 'RFC 7638 §3.1 RSA example (canonical form only)', jwk: { ...RFC7638_RSA.jwk }, canonical: rsaCanonical, thumbprint: rsaThumbprint }, rfc8037, service];
}
