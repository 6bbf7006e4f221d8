/**
 * The browser twins of src/browser/ (browser-plugin.ts) against their Node modules: the same
 * exports, and the same answers on random and crafted inputs. The protocol-browser project of
 * vitest.config.ts runs the vector tests with the twins swapped in; this file compares the two
 * side by side.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ed25519 as noble } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { BROWSER_TWINS } from '../browser-plugin.js';
import * as nodeB64 from '../src/base64.js';
import * as nodeB64u from '../src/base64url.js';
import * as nodeEd from '../src/ed25519.js';
import * as nodeHash from '../src/hash.js';
import * as nodeMerkle from '../src/merklehash.js';
import * as browserB64 from '../src/browser/base64.js';
import * as browserB64u from '../src/browser/base64url.js';
import * as browserEd from '../src/browser/ed25519.js';
import * as browserHash from '../src/browser/hash.js';
import * as browserMerkle from '../src/browser/merklehash.js';
import { hex } from './vectors.js';

function verdict(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
}

describe('browser twins', () => {
  it('export exactly what the Node modules export', async () => {
    for (const name of BROWSER_TWINS) {
      const node = (await import(`../src/${name}.ts`)) as Record<string, unknown>;
      const browser = (await import(`../src/browser/${name}.ts`)) as Record<string, unknown>;
      const functions = (module: Record<string, unknown>) => Object.keys(module).filter((key) => key !== 'Ed25519Key').sort();
      expect(functions(browser), name).toEqual(functions(node));
    }
  });

  it('base64url and base64 decode, encode and refuse exactly alike', () => {
    const text = fc.oneof(fc.string({ unit: fc.constantFrom(...'AEQgw048_-+/=Az9 '.split('')), maxLength: 12 }), fc.base64String());
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), text, (bytes, garbage) => {
        expect(browserB64u.b64uEncode(bytes)).toBe(nodeB64u.b64uEncode(bytes));
        expect(browserB64.b64Encode(bytes)).toBe(nodeB64.b64Encode(bytes));
        expect(verdict(() => browserB64u.b64uDecode(garbage))).toEqual(verdict(() => nodeB64u.b64uDecode(garbage)));
        expect(verdict(() => browserB64.b64Decode(garbage))).toEqual(verdict(() => nodeB64.b64Decode(garbage)));
        expect(browserB64u.isB64u(garbage, 2)).toBe(nodeB64u.isB64u(garbage, 2));
      }),
      { numRuns: 500 },
    );
  });

  it('SHA-256 and the Merkle leaf and node hashes agree', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 4 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (parts, h) => {
        expect(browserHash.sha256B64u(...parts)).toBe(nodeHash.sha256B64u(...parts));
        const chainHash = nodeB64u.b64uEncode(h);
        expect(browserMerkle.leafHash(chainHash)).toEqual(nodeMerkle.leafHash(chainHash));
        expect(browserMerkle.nodeHash(h, h)).toEqual(nodeMerkle.nodeHash(h, h));
      }),
      { numRuns: 200 },
    );
    expect(verdict(() => browserMerkle.leafHash('AA'))).toEqual(verdict(() => nodeMerkle.leafHash('AA')));
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
