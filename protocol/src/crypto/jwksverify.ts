/**
 * Signature checks against a JWKS (docs/PROTOCOL.md "Receipt"): the key a kid names is used
 * only when that kid really is its RFC 7638 thumbprint, so a mislabelled JWKS entry cannot
 * vouch for another key. Receipts and export manifests (docs/EXPORT.md) are both checked
 * this way.
 */
import type { KeyObject } from 'node:crypto';
import { verify } from './ed25519.js';
import { jwkThumbprint, publicKeyFromJwk, type Jwk } from './jwk.js';

/**
 * True when some JWK of `jwks` has `kid`, that kid is the key's RFC 7638 thumbprint, and
 * `signature` verifies over `message` with it. A fetched JWKS is untrusted JSON: malformed
 * entries are skipped, and nothing here throws.
 *
 * @example
 * verifyWithJwks(jwks, manifest.service_kid, b64uDecode(manifest.body_sha256), manifest.signature);
 */
export function verifyWithJwks(
  jwks: { keys: readonly Jwk[] },
  kid: string,
  message: Uint8Array,
  signature: string | Uint8Array,
): boolean {
  try {
    if (jwks === null || typeof jwks !== 'object' || !Array.isArray(jwks.keys) || typeof kid !== 'string') return false;
    for (const entry of jwks.keys as readonly unknown[]) {
      if (entry === null || typeof entry !== 'object') continue;
      const jwk = entry as Jwk;
      if (jwk.kid !== kid) continue;
      if (typeof jwk.crv !== 'string' || typeof jwk.kty !== 'string' || typeof jwk.x !== 'string') continue;
      if (jwkThumbprint({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }) !== jwk.kid) continue;
      let key: KeyObject;
      try {
        key = publicKeyFromJwk(jwk);
      } catch {
        continue;
      }
      if (verify(key, message, signature)) return true;
    }
    return false;
  } catch {
    return false;
  }
}
