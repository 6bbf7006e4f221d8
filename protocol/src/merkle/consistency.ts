/**
 * Consistency proofs between two sizes of one append-only tree (RFC 9162 §2.1.4): that the
 * tree of size m is a prefix of the tree of size n. `verify … --since` checks one between
 * two exports' checkpoints (docs/CHECKPOINTS.md "Extending an earlier export").
 */
import { ProtocolError } from '../errors/protocolerror.js';
import { HASH_BYTES, nodeHash } from './merklehash.js';
import { merkleRoot } from './merkle.js';
import { equalBytes } from '../encoding/bytes.js';

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 9162 §2.1.4.1 SUBPROOF(m, D[lo:hi], b), appended to `out`. Depth is log2(n). */
function subproof(m: number, leaves: Uint8Array[], lo: number, hi: number, complete: boolean, out: Uint8Array[]): void {
  const n = hi - lo;
  if (m === n) {
    if (!complete) out.push(merkleRoot(leaves.slice(lo, hi)));
    return;
  }
  const k = largestPowerOfTwoBelow(n);
  if (m <= k) {
    subproof(m, leaves, lo, lo + k, complete, out);
    out.push(merkleRoot(leaves.slice(lo + k, hi)));
  } else {
    subproof(m - k, leaves, lo + k, hi, false, out);
    out.push(merkleRoot(leaves.slice(lo, lo + k)));
  }
}

/**
 * RFC 9162 §2.1.4.1 `PROOF(m, D[n])` over leaf hashes: empty when m = n. Throws
 * `INDEX_OUT_OF_RANGE` unless 1 <= m <= n.
 *
 * @example
 * verifyConsistency(3, 7, consistencyProof(leaves, 3), rootOf3, rootOf7); // true
 */
export function consistencyProof(leaves: Uint8Array[], m: number): Uint8Array[] {
  if (!Number.isSafeInteger(m) || m < 1 || m > leaves.length) {
    throw new ProtocolError('INDEX_OUT_OF_RANGE', `consistency from size ${String(m)} needs 1 <= m <= ${leaves.length}`);
  }
  const out: Uint8Array[] = [];
  subproof(m, leaves, 0, leaves.length, true, out);
  return out;
}


function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && x % 2 === 0) x /= 2;
  return x === 1;
}

const isHash = (x: unknown): x is Uint8Array => x instanceof Uint8Array && x.byteLength === HASH_BYTES;

/**
 * RFC 9162 §2.1.4.2: true when `proof` shows the tree of size `first` with root `firstRoot`
 * is a prefix of the tree of size `second` with root `secondRoot`. Equal sizes need an empty
 * proof and equal roots. Never throws.
 *
 * @example
 * verifyConsistency(old.size, now.size, proof, old.root, now.root);
 */
export function verifyConsistency(first: number, second: number, proof: Uint8Array[], firstRoot: Uint8Array, secondRoot: Uint8Array): boolean {
  try {
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) return false;
    if (!isHash(firstRoot) || !isHash(secondRoot) || !Array.isArray(proof) || !proof.every(isHash)) return false;
    if (first === second) return proof.length === 0 && equalBytes(firstRoot, secondRoot);
    // 1. An empty path proves nothing between different sizes.
    if (proof.length === 0) return false;
    // 2. When first is a power of two its root is the first node of the path.
    const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : proof;
    // 3. fn = first - 1, sn = second - 1 (arithmetic: sizes may exceed 2^31).
    let fn = first - 1;
    let sn = second - 1;
    // 4. While LSB(fn) is set, right-shift both.
    while (fn % 2 === 1) {
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    // 5. fr = sr = the first value of the path.
    let fr = path[0] as Uint8Array;
    let sr = fr;
    // 6. For each subsequent value c:
    for (const c of path.slice(1)) {
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        fr = nodeHash(c, fr);
        sr = nodeHash(c, sr);
        if (fn % 2 === 0) {
          while (fn % 2 === 0 && fn !== 0) {
            fn = Math.floor(fn / 2);
            sn = Math.floor(sn / 2);
          }
        }
      } else {
        sr = nodeHash(sr, c);
      }
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    // 7. Both roots reproduced, and the path used up the whole second tree.
    return sn === 0 && equalBytes(fr, firstRoot) && equalBytes(sr, secondRoot);
  } catch {
    return false;
  }
}
