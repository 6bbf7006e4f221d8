/**
 * Ed25519 JWKs (RFC 8037 §2) and their RFC 7638 thumbprints, which are the service's
 * key ids (docs/PROTOCOL.md "Receipt": `service_kid`) and the members of
 * `/.well-known/service/jwks.json`.
 */
import type { KeyObject } from 'node:crypto';
import { b64uEncode, isB64u } from '../encoding/base64url.js';
import { publicKeyFromRaw } from './ed25519.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { sha256B64u } from './hash.js';
import { canonicalBytes } from '../encoding/jcs.js';

/** A public Ed25519 JWK as published in the service JWKS (docs/PROTOCOL.md "Receipt"). */
export type Ed25519Jwk = {
  kty: 'OKP';
  crv: 'Ed25519';
  /** b64u of the raw 32-byte public key */
  x: string;
  /** RFC 7638 thumbprint of {crv, kty, x} */
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
};

/** Any JWK as it may arrive in a parsed JWKS document; checked at runtime before use. */
export type Jwk = {
  kty?: string;
  crv?: string;
  x?: string;
  kid?: string;
  alg?: string;
  use?: string;
  [member: string]: unknown;
};

/**
 * RFC 7638 JWK thumbprint of an OKP key: `b64u(H(JSON of the required members crv, kty,
 * x in lexicographic order, no whitespace))` (RFC 7638 §3.2, members per RFC 8037 §2).
 * For these ASCII members JCS produces exactly that JSON, so JCS is used.
 *
 * @example
 * jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' });
 * // 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k' (RFC 8037 §A.3)
 */
export function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): string {
  // Pick only the required members: optional ones (kid, alg, use) must not change it.
  return sha256B64u(canonicalBytes({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }));
}

/**
 * The public JWK of a raw Ed25519 key (32 bytes or their b64u), with its thumbprint
 * as `kid`: one entry of the service JWKS.
 *
 * @example
 * ed25519Jwk('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo').kid; // 'kPrK_qmx...S4k'
 */
export function ed25519Jwk(publicKeyRaw: Uint8Array | string): Ed25519Jwk {
  let x: string;
  if (typeof publicKeyRaw === 'string') {
    if (!isB64u(publicKeyRaw, 32)) {
      throw new ProtocolError('INVALID_PUBLIC_KEY', 'public key must be 32 bytes of strict base64url');
    }
    x = publicKeyRaw;
  } else {
    if (!(publicKeyRaw instanceof Uint8Array) || publicKeyRaw.byteLength !== 32) {
      throw new ProtocolError('INVALID_PUBLIC_KEY', 'public key must be 32 bytes');
    }
    x = b64uEncode(publicKeyRaw);
  }
  return { kty: 'OKP', crv: 'Ed25519', x, kid: jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x }), alg: 'EdDSA', use: 'sig' };
}

/**
 * Import an Ed25519 public JWK (cached, via {@link publicKeyFromRaw}). Throws ProtocolError
 * `INVALID_JWK` unless `kty` is `OKP` and `crv` is `Ed25519`, `INVALID_PUBLIC_KEY` for a
 * bad `x`.
 *
 * @example
 * const key = publicKeyFromJwk(jwks.keys[0]);
 */
export function publicKeyFromJwk(jwk: Jwk): KeyObject {
  if (jwk === null || typeof jwk !== 'object' || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') {
    throw new ProtocolError('INVALID_JWK', 'JWK is not an OKP Ed25519 key');
  }
  if (typeof jwk.x !== 'string') {
    throw new ProtocolError('INVALID_PUBLIC_KEY', 'JWK has no x member');
  }
  return publicKeyFromRaw(jwk.x);
}
