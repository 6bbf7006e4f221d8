"""Merkle trees over an epoch's operations (docs/PROTOCOL.md "Merkle epochs"; RFC 9162 §2.1
hashing): leaf and node hashes, the root, inclusion proofs and their verification, and
consistency proofs between two tree sizes."""
from __future__ import annotations

import hashlib

from . import b64u


def leaf_hash(chain_hash_b64u: str) -> bytes:
    """H(0x00 || b64u_decode(chain_hash))."""
    return hashlib.sha256(b"\x00" + b64u.decode(chain_hash_b64u, 32)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """H(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def root(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) (RFC 9162 §2.1.1) over leaf hashes; iterative, level by level."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    level = list(leaves)
    while len(level) > 1:
        # Pairing left to right and carrying an odd last node up gives RFC 9162's tree.
        level = [node_hash(level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    return level[0]


def inclusion_path(leaves: list[bytes], index: int) -> list[bytes]:
    """PATH(m, D[n]) (RFC 9162 §2.1.3.1)."""
    path: list[bytes] = []
    lo, hi = 0, len(leaves)
    segments = []
    while hi - lo > 1:
        k = _split(hi - lo)
        if index - lo < k:
            segments.append((lo + k, hi))
            hi = lo + k
        else:
            segments.append((lo, lo + k))
            lo = lo + k
    for start, end in reversed(segments):
        path.append(root(leaves[start:end]))
    return path


def verify_inclusion(leaf: bytes, index: int, tree_size: int, path: list[bytes], expected_root: bytes) -> bool:
    """RFC 9162 §2.1.3.2."""
    if not 0 <= index < tree_size:
        return False
    fn, sn, r = index, tree_size - 1, leaf
    for node in path:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = node_hash(node, r)
            while fn % 2 == 0 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, node)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == expected_root


def verify_consistency(size1: int, size2: int, proof: list[bytes], root1: bytes, root2: bytes) -> bool:
    """RFC 9162 §2.1.4.2: the tree of `size2` leaves extends the tree of `size1`."""
    if size1 > size2 or size1 < 0:
        return False
    if size1 == size2:
        return not proof and root1 == root2
    if size1 == 0:
        return not proof
    if not proof and size1 != size2:
        return False
    path = list(proof)
    if size1 & (size1 - 1) == 0:  # a power of two: the first tree's root is a node of the second
        path.insert(0, root1)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == root1 and sr == root2
