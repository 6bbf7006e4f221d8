/**
 * Pure Ed25519 (RFC 8032 §5.1) in a browser, where package.json `imports` maps
 * `#platform/ed25519` here (the `browser` condition): the functions of ed25519node.ts with the
 * same verdicts, on @noble/curves and @noble/hashes instead of node:crypto. Keys are {@link Ed25519Key}
 * objects where the Node module hands out KeyObjects; nothing outside this file looks inside
 * either.
 *
 * Verification is the cofactorless check node:crypto (OpenSSL) performs, encode([S]B − [k]A)
 * compared byte for byte with R, rather than noble's own cofactored `verify`: the two can
 * disagree on crafted signatures whose R has a small-order component, and the console must
 * reach the verdict the service and the offline verifier reach. The key and S rules of
 * docs/PROTOCOL.md (Notation) are the shared ones in curve.ts.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { assertValidPublicKey, publicKeyProblem, signatureScalarInRange } from './curve.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';

const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
const CACHE_MAX = 10_000;

type Point = InstanceType<typeof ed25519.Point>;

/**
 * An Ed25519 key: the public half always, the seed for a private key.
 *
 * @example
 * publicKeyFromRaw('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo').type; // 'public'
 */
export class Ed25519Key {
  /** Set once the point is decoded (a public key from publicKeyFromRaw, or on first verify). */
  #point: Point | undefined;
  #acceptable: boolean | undefined;

  constructor(
    readonly type: 'public' | 'private',
    readonly publicRaw: Uint8Array,
    readonly seed?: Uint8Array,
  ) {}

  /** The decoded public point, or undefined when the key breaks the rules of curve.ts. */
  point(): Point | undefined {
    if (this.#acceptable === undefined) {
      this.#acceptable = publicKeyProblem(this.publicRaw) === undefined;
      if (this.#acceptable) this.#point = ed25519.Point.fromBytes(this.publicRaw, false);
    }
    return this.#point;
  }
}

const publicKeyCache = new Map<string, Ed25519Key>();

function cacheHit(x: string): Ed25519Key | undefined {
  const cached = publicKeyCache.get(x);
  if (cached !== undefined) {
    publicKeyCache.delete(x);
    publicKeyCache.set(x, cached);
  }
  return cached;
}

/**
 * Parse a raw Ed25519 public key (32 bytes, or their b64u) into a cached key. Throws
 * ProtocolError `INVALID_PUBLIC_KEY` exactly where ed25519node.ts does.
 *
 * @example
 * const key = publicKeyFromRaw('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo');
 */
export function publicKeyFromRaw(raw: Uint8Array | string): Ed25519Key {
  let x: string;
  let bytes: Uint8Array;
  if (typeof raw === 'string') {
    const hit = cacheHit(raw);
    if (hit !== undefined) return hit;
    bytes = assertValidPublicKey(raw);
    x = raw;
  } else if (raw instanceof Uint8Array && raw.byteLength === KEY_BYTES) {
    x = b64uEncode(raw);
    const hit = cacheHit(x);
    if (hit !== undefined) return hit;
    bytes = assertValidPublicKey(raw).slice();
  } else {
    throw new ProtocolError('INVALID_PUBLIC_KEY', 'public key must be 32 bytes');
  }
  const key = new Ed25519Key('public', bytes);
  if (publicKeyCache.size >= CACHE_MAX) {
    const oldest = publicKeyCache.keys().next();
    if (oldest.done !== true) publicKeyCache.delete(oldest.value);
  }
  publicKeyCache.set(x, key);
  return key;
}

/**
 * An Ed25519 private key from its 32-byte seed (RFC 8032 §5.1.5 "secret key"). Throws
 * ProtocolError `INVALID_PRIVATE_KEY` for any other length.
 *
 * @example
 * const sk = privateKeyFromSeed(seedBytes);
 */
export function privateKeyFromSeed(seed: Uint8Array): Ed25519Key {
  if (!(seed instanceof Uint8Array) || seed.byteLength !== KEY_BYTES) {
    throw new ProtocolError('INVALID_PRIVATE_KEY', 'Ed25519 seed must be 32 bytes');
  }
  const copy = seed.slice();
  return new Ed25519Key('private', ed25519.getPublicKey(copy), copy);
}

/**
 * A fresh Ed25519 key pair from WebCrypto's random bytes.
 *
 * @example
 * const { publicKey, privateKey } = generateKeyPair();
 */
export function generateKeyPair(): { publicKey: string; privateKeySeed: Uint8Array; privateKey: Ed25519Key } {
  const privateKeySeed = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const privateKey = privateKeyFromSeed(privateKeySeed);
  return { publicKey: b64uEncode(privateKey.publicRaw), privateKeySeed, privateKey };
}

/**
 * The raw 32-byte public key of a key (for a private key, its public half).
 *
 * @example
 * b64uEncode(rawPublicKey(privateKeyFromSeed(seed))); // the `x` of its JWK
 */
export function rawPublicKey(key: Ed25519Key): Uint8Array {
  if (!(key instanceof Ed25519Key)) throw new ProtocolError('INVALID_PUBLIC_KEY', 'key is not an Ed25519 key');
  return key.publicRaw.slice();
}

/**
 * Pure Ed25519 signature (RFC 8032 §5.1.6) of `message`: 64 bytes.
 *
 * @example
 * const sig = sign(privateKey, new TextEncoder().encode('hello'));
 */
export function sign(privateKey: Ed25519Key, message: Uint8Array): Uint8Array {
  if (!(privateKey instanceof Ed25519Key) || privateKey.seed === undefined) {
    throw new ProtocolError('INVALID_PRIVATE_KEY', 'signing needs a private key');
  }
  return ed25519.sign(message, privateKey.seed);
}

function littleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] as number);
  return n;
}

/**
 * Verify a pure Ed25519 signature (RFC 8032 §5.1.7). Never throws; every malformed key or
 * signature, small-order or non-canonical key and S ≥ L is false, as in ed25519node.ts.
 *
 * @example
 * verify('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', new Uint8Array(), sigB64u); // true/false
 */
export function verify(publicKey: Ed25519Key | string | Uint8Array, message: Uint8Array, signature: Uint8Array | string): boolean {
  try {
    const key = typeof publicKey === 'string' || publicKey instanceof Uint8Array ? publicKeyFromRaw(publicKey) : publicKey;
    if (!(key instanceof Ed25519Key)) return false;
    const A = key.point();
    if (A === undefined) return false;
    const sig = typeof signature === 'string' ? b64uDecode(signature) : signature;
    if (!(sig instanceof Uint8Array) || sig.byteLength !== SIGNATURE_BYTES) return false;
    if (!signatureScalarInRange(sig)) return false;
    if (!(message instanceof Uint8Array)) return false;
    const r = sig.subarray(0, KEY_BYTES);
    const s = littleEndian(sig.subarray(KEY_BYTES));
    const digest = sha512.create().update(r).update(key.publicRaw).update(message).digest();
    const k = ed25519.Point.Fn.create(littleEndian(digest));
    const check = ed25519.Point.BASE.multiplyUnsafe(s).subtract(A.multiplyUnsafe(k)).toBytes();
    let diff = 0;
    for (let i = 0; i < KEY_BYTES; i++) diff |= (check[i] as number) ^ (r[i] as number);
    return diff === 0;
  } catch {
    return false;
  }
}
