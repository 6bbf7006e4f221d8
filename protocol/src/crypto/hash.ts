/**
 * SHA-256 (docs/PROTOCOL.md `H(x)`, FIPS 180-4). The digest itself is the platform's
 * (`#platform/sha256` in package.json `imports`: node:crypto in sha256node.ts, @noble/hashes in
 * sha256browser.ts); its wire form is the same everywhere.
 */
import { sha256 } from '#platform/sha256';
import { b64uEncode } from '../encoding/base64url.js';

export { sha256 };

/**
 * `b64u(H(parts...))`: the wire form of a SHA-256 value (43 characters).
 *
 * @example
 * sha256B64u(canonicalBytes(null)); // 'dCNOmK_nSY-12vHzasLXiswzlGT5UHA7jAGYkvmCuQs'
 */
export function sha256B64u(...parts: Uint8Array[]): string {
  return b64uEncode(sha256(...parts));
}
