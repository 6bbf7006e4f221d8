/**
 * Pure Ed25519 (RFC 8032 §5.1), docs/PROTOCOL.md `Sign(sk, m)`, on Node through node:crypto:
 * package.json `imports` maps `#platform/ed25519` here under the `default` condition
 * (ed25519browser.ts under `browser`).
 *
 * Keys travel as raw 32-byte values in b64u. Parsing one into a KeyObject costs far more
 * than a verification, and the server verifies with the same few agent keys all day, so
 * parsed public keys are cached.
 */
import { Buffer } from 'node:buffer';
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
  type KeyObject,
} from 'node:crypto';
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { plainBytes } from '../encoding/bytes.js';
import { assertValidPublicKey, publicKeyProblem, signatureScalarInRange } from './curve.js';
import { ProtocolError } from '../errors/protocolerror.js';

/** Raw Ed25519 public key, private seed: 32 bytes; signature: 64 bytes (RFC 8032 §5.1.5-6). */
const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

/** Upper bound of the KeyObject cache; the oldest entry is evicted first. */
const CACHE_MAX = 10_000;
const publicKeyCache = new Map<string, KeyObject>();
/**
 * Whether a KeyObject handed to {@link verify} directly (not made by publicKeyFromRaw) is an
 * acceptable key (curve.ts), decided once per object.
 */
const keyObjectVerdicts = new WeakMap<KeyObject, boolean>();

// RFC 8410 §7 PKCS#8 wrapping of an Ed25519 seed: SEQUENCE { INTEGER 0, AlgorithmIdentifier
// { id-Ed25519 }, OCTET STRING { OCTET STRING seed } }. Used instead of a JWK because a
// JWK import insists on an `x` member we cannot know before we have the key.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Parse a raw Ed25519 public key (32 bytes, or their b64u) into a cached KeyObject
 * (imported as JWK `{kty:'OKP', crv:'Ed25519', x}`, RFC 8037 §2).
 * Throws ProtocolError `INVALID_PUBLIC_KEY` unless it is exactly 32 bytes, the canonical
 * encoding of a curve point, and not of small order (docs/PROTOCOL.md, Notation; curve.ts).
 *
 * @example
 * const key = publicKeyFromRaw('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo');
 */
export function publicKeyFromRaw(raw: Uint8Array | string): KeyObject {
  let x: string;
  if (typeof raw === 'string') {
    // Only strings that passed validation are ever inserted, so a hit needs no re-check.
    const hit = cacheHit(raw);
    if (hit !== undefined) return hit;
    assertValidPublicKey(raw);
    x = raw;
  } else if (raw instanceof Uint8Array && raw.byteLength === KEY_BYTES) {
    x = b64uEncode(raw);
    const hit = cacheHit(x);
    if (hit !== undefined) return hit;
    assertValidPublicKey(raw);
  } else {
    throw new ProtocolError('INVALID_PUBLIC_KEY', 'public key must be 32 bytes');
  }

  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  } catch (err) {
    throw new ProtocolError('INVALID_PUBLIC_KEY', 'public key is not a parseable Ed25519 key', { cause: err });
  }
  if (publicKeyCache.size >= CACHE_MAX) {
    const oldest = publicKeyCache.keys().next();
    if (oldest.done !== true) publicKeyCache.delete(oldest.value);
  }
  publicKeyCache.set(x, key);
  keyObjectVerdicts.set(key, true);
  return key;
}

/** Whether a KeyObject is an Ed25519 public (or private) key acceptable under curve.ts. */
function acceptableKeyObject(key: KeyObject): boolean {
  let verdict = keyObjectVerdicts.get(key);
  if (verdict === undefined) {
    verdict = key.asymmetricKeyType === 'ed25519' && publicKeyProblem(rawPublicKey(key)) === undefined;
    keyObjectVerdicts.set(key, verdict);
  }
  return verdict;
}

function cacheHit(x: string): KeyObject | undefined {
  const cached = publicKeyCache.get(x);
  if (cached !== undefined) {
    // Re-insert so that Map order approximates recency (LRU-ish eviction on insert).
    publicKeyCache.delete(x);
    publicKeyCache.set(x, cached);
  }
  return cached;
}

/**
 * Build an Ed25519 private KeyObject from its 32-byte seed (RFC 8032 §5.1.5 "secret key").
 * Throws ProtocolError `INVALID_PRIVATE_KEY` for any other length.
 *
 * @example
 * const sk = privateKeyFromSeed(Buffer.from('9d61b19d...7f60', 'hex')); // RFC 8032 TEST 1
 */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (!(seed instanceof Uint8Array) || seed.byteLength !== KEY_BYTES) {
    throw new ProtocolError('INVALID_PRIVATE_KEY', 'Ed25519 seed must be 32 bytes');
  }
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, seed]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch (err) {
    throw new ProtocolError('INVALID_PRIVATE_KEY', 'Ed25519 seed could not be imported', { cause: err });
  } finally {
    der.fill(0); // do not leave the seed lying around in a second buffer
  }
}

/**
 * Generate a fresh Ed25519 key pair. The seed is returned so that it can be stored
 * (e.g. by the SDK's key file) and re-imported with {@link privateKeyFromSeed}.
 *
 * @example
 * const { publicKey, privateKey } = generateKeyPair();
 * verify(publicKey, msg, sign(privateKey, msg)); // true
 */
export function generateKeyPair(): { publicKey: string; privateKeySeed: Uint8Array; privateKey: KeyObject } {
  // The generation encodes both halves itself, and the KeyObject is imported from them: on
  // Node 20, exporting a KeyObject that generateKeyPairSync returned can deadlock (the export
  // holds the key's lock while it allocates; a garbage collection then may finalize the
  // generation job, which takes the same lock on the same thread). The import is from the
  // JWK, whose `x` the SPKI gives: about ten times faster than privateKeyFromSeed's PKCS #8.
  const { privateKey: pkcs8, publicKey: spki } = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { format: 'der', type: 'pkcs8' },
    publicKeyEncoding: { format: 'der', type: 'spki' },
  });
  try {
    if (pkcs8.length !== PKCS8_ED25519_PREFIX.length + KEY_BYTES || !pkcs8.subarray(0, PKCS8_ED25519_PREFIX.length).equals(PKCS8_ED25519_PREFIX)) {
      throw new ProtocolError('INVALID_PRIVATE_KEY', 'generated key is not an Ed25519 PKCS #8 key');
    }
    const privateKeySeed = new Uint8Array(pkcs8.subarray(PKCS8_ED25519_PREFIX.length));
    const publicKey = b64uEncode(spki.subarray(spki.length - KEY_BYTES));
    const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64uEncode(privateKeySeed), x: publicKey }, format: 'jwk' });
    return { publicKey, privateKeySeed, privateKey };
  } finally {
    pkcs8.fill(0); // the seed is kept in privateKeySeed only
  }
}

/**
 * The raw 32-byte public key of an Ed25519 KeyObject (public or private; for a private
 * key the public half is derived).
 *
 * @example
 * b64uEncode(rawPublicKey(privateKeyFromSeed(seed))); // the `x` of its JWK
 */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== 'ed25519') {
    throw new ProtocolError('INVALID_PUBLIC_KEY', 'key is not an Ed25519 key');
  }
  const jwk = pub.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') {
    throw new ProtocolError('INVALID_PUBLIC_KEY', 'key did not export as an OKP JWK');
  }
  return b64uDecode(jwk.x);
}

/**
 * Pure Ed25519 signature (RFC 8032 §5.1.6) of `message`: 64 bytes.
 *
 * @example
 * const sig = sign(privateKey, new TextEncoder().encode('hello')); // sig.length === 64
 */
export function sign(privateKey: KeyObject, message: Uint8Array): Uint8Array {
  return plainBytes(nodeSign(null, message, privateKey));
}

/**
 * Verify a pure Ed25519 signature (RFC 8032 §5.1.7). The key may be a KeyObject, raw
 * bytes or b64u; the signature raw bytes or b64u. Never throws: malformed keys or
 * signatures (wrong length, bad base64url, unparseable point) simply return false, since
 * callers treat every such case as "signature invalid". Keys that are small-order points
 * or non-canonical encodings, and signatures with S >= L, are false too (docs/PROTOCOL.md,
 * Notation), whatever node would answer.
 *
 * @example
 * verify('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', new Uint8Array(), sigB64u); // true/false
 */
export function verify(
  publicKey: KeyObject | string | Uint8Array,
  message: Uint8Array,
  signature: Uint8Array | string,
): boolean {
  try {
    const key = typeof publicKey === 'string' || publicKey instanceof Uint8Array ? publicKeyFromRaw(publicKey) : publicKey;
    if (!acceptableKeyObject(key)) return false;
    const sig = typeof signature === 'string' ? b64uDecode(signature) : signature;
    if (!(sig instanceof Uint8Array) || sig.byteLength !== SIGNATURE_BYTES) return false;
    if (!signatureScalarInRange(sig)) return false;
    if (!(message instanceof Uint8Array)) return false;
    return nodeVerify(null, message, key, sig);
  } catch {
    return false;
  }
}
