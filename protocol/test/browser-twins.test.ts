/**
 * The browser twins behind `#platform/...` (package.json `imports`: `browser` against `default`)
 * side by side: the same exports, and the same answers on random and crafted inputs. The
 * protocol-browser project of vitest.config.ts runs the vector tests under the `browser`
 * condition too; this file compares the two platforms directly.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { ed25519 as noble } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import * as nodeB64 from '../src/encoding/base64node.js';
import * as browserB64 from '../src/encoding/base64browser.js';
import * as nodeEd from '../src/crypto/ed25519node.js';
import * as browserEd from '../src/crypto/ed25519browser.js';
import * as nodeHash from '../src/crypto/sha256node.js';
import * as browserHash from '../src/crypto/sha256browser.js';
import { hex } from './vectors.js';

/** package.json `imports`: each `#platform/...` name with its two targets. */
const PLATFORM = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { imports: Record<string, { browser: string; default: string }> }).imports;

describe('browser twins', () => {
  it('export exactly what the Node modules export', async () => {
    for (const [name, { browser, default: node }] of Object.entries(PLATFORM)) {
      const functions = (module: Record<string, unknown>) => Object.keys(module).filter((key) => key !== 'Ed25519Key').sort();
      const fromNode = (await import(new URL(`../${node}`, import.meta.url).href)) as Record<string, unknown>;
      const fromBrowser = (await import(new URL(`../${browser}`, import.meta.url).href)) as Record<string, unknown>;
      expect(functions(fromBrowser), name).toEqual(functions(fromNode));
    }
  });

  it('the base64 codecs encode alike, and decode alike whatever text passes the strict checks', () => {
    const urlText = fc.string({ unit: fc.constantFrom(...'AEQgw048_-Az9'.split('')), maxLength: 12 }).filter((text) => text.length % 4 !== 1);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), urlText, fc.base64String(), (bytes, url, standard) => {
        for (const alphabet of ['base64', 'base64url'] as const) {
          expect(browserB64.encodeBase64(bytes, alphabet)).toBe(nodeB64.encodeBase64(bytes, alphabet));
        }
        expect(browserB64.decodeBase64(url, 'base64url')).toEqual(nodeB64.decodeBase64(url, 'base64url'));
        expect(browserB64.decodeBase64(standard, 'base64')).toEqual(nodeB64.decodeBase64(standard, 'base64'));
      }),
      { numRuns: 500 },
    );
  });

  it('SHA-256 agrees', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 4 }), (parts) => {
        expect(browserHash.sha256(...parts)).toEqual(nodeHash.sha256(...parts));
      }),
      { numRuns: 200 },
    );
  });

  it('Ed25519: signatures made by either verify with both, and tampering fails in both', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 100 }), (seed, message) => {
        const signature = browserEd.sign(browserEd.privateKeyFromSeed(seed), message);
        expect(signature).toEqual(nodeEd.sign(nodeEd.privateKeyFromSeed(seed), message));
        const pub = browserEd.rawPublicKey(browserEd.privateKeyFromSeed(seed));
        expect(browserEd.verify(pub, message, signature)).toBe(true);
        const tampered = signature.slice();
        tampered[5] = (tampered[5] as number) ^ 1;
        expect(browserEd.verify(pub, message, tampered)).toBe(false);
        expect(nodeEd.verify(pub, message, tampered)).toBe(false);
      }),
      { numRuns: 50 },
    );
  });

  it('Ed25519: a key with a small-order component gets the verdicts of node:crypto (cofactorless), not noble’s cofactored ones', () => {
    // A' = aB + T with T of order 8: S = r + k·a satisfies the cofactored equation for every
    // message, the cofactorless one only when k·T = 0 (k a multiple of 8). Node (OpenSSL)
    // checks the latter; the twin must answer alike on each message.
    const seed = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
    const { scalar } = noble.utils.getExtendedPublicKey(seed);
    const T = noble.Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
    expect(T.isSmallOrder() && !T.is0()).toBe(true);
    const mixed = noble.Point.BASE.multiply(scalar).add(T).toBytes();
    const Fn = noble.Point.Fn;
    const verdicts: boolean[] = [];
    for (let i = 0; i < 24; i++) {
      const message = new TextEncoder().encode(`message ${i}`);
      const r = Fn.create(BigInt(1000 + i));
      const R = noble.Point.BASE.multiply(r).toBytes();
      const k = Fn.create(challenge(R, mixed, message));
      const S = Fn.toBytes(Fn.create(r + k * scalar));
      const signature = new Uint8Array([...R, ...S]);
      const fromNode = nodeEd.verify(mixed, message, signature);
      expect(browserEd.verify(mixed, message, signature), `message ${i}`).toBe(fromNode);
      expect(noble.verify(signature, message, mixed, { zip215: false })).toBe(true);
      verdicts.push(fromNode);
    }
    expect(verdicts).toContain(false);
    expect(verdicts).toContain(true);
  });
});

/** k = SHA-512(R || A || M) as a little-endian integer (RFC 8032 §5.1.7), reduced by the caller. */
function challenge(R: Uint8Array, A: Uint8Array, message: Uint8Array): bigint {
  const digest = createHash('sha512').update(R).update(A).update(message).digest();
  let n = 0n;
  for (let i = digest.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(digest[i] as number);
  return n;
}
