"""The ledger's rules on Ed25519 keys and signatures beyond what a crypto library checks
(docs/PROTOCOL.md "Notation" and "Key validity"):

- an agent public key is the canonical encoding (y < p, RFC 8032 §5.1.3) of a curve point
  that is not of small order: with one of the eight small-order points, the signature
  R = identity, S = 0 verifies for every message, and OpenSSL (under `cryptography`)
  accepts such keys;
- a signature's S is below the group order L (RFC 8032 §5.1.7).

`cryptography` exposes no point decoding, so RFC 8032 §5.1.3 decoding is written out here:
a few lines of modular arithmetic on Python integers, run once per key, never per signature.
"""
from __future__ import annotations

from functools import lru_cache

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
_SQRT_M1 = pow(2, (P - 1) // 4, P)


def _decode_point(raw: bytes) -> tuple[int, int] | None:
    """RFC 8032 §5.1.3: the affine point (x, y), or None when `raw` is not a canonical encoding."""
    y = int.from_bytes(raw, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x = (u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P)) % P
    if (v * x * x - u) % P != 0:
        x = (x * _SQRT_M1) % P
        if (v * x * x - u) % P != 0:
            return None
    if x == 0 and sign == 1:
        return None
    if x & 1 != sign:
        x = P - x
    return x, y


def _double(point: tuple[int, int, int]) -> tuple[int, int, int]:
    """RFC 8032 §5.1.4 doubling in projective (X:Y:Z) coordinates: no modular inverse, so
    checking a key costs a few multiplications instead of six exponentiations mod P."""
    x1, y1, z1 = point
    a, b = x1 * x1 % P, y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = (a + b) % P
    e = (h - (x1 + y1) * (x1 + y1)) % P
    g = (a - b) % P
    f = (c + g) % P
    return e * f % P, g * h % P, f * g % P


def public_key_problem(raw: bytes) -> str | None:
    """Why 32 raw bytes are not acceptable as an agent key, or None when they are."""
    if not isinstance(raw, (bytes, bytearray)) or len(raw) != 32:
        return "must be 32 bytes"
    return _point_problem(bytes(raw))


@lru_cache(maxsize=4096)
def _point_problem(raw: bytes) -> str | None:
    """Cached: a bundle names each key in its agent_keys and in its key events (docs/EXPORT.md)."""
    point = _decode_point(raw)
    if point is None:
        return "is not the canonical encoding of an Ed25519 point (RFC 8032 §5.1.3)"
    x, y, z = point[0], point[1], 1
    for _ in range(3):  # [8]P: the identity exactly for the eight small-order points
        x, y, z = _double((x, y, z))
    if x == 0 and y == z:
        return "is a small-order point, with which any signature could be forged (docs/PROTOCOL.md, Notation)"
    return None


def signature_scalar_in_range(signature: bytes) -> bool:
    """True when S (bytes 32..63, little-endian) of a 64-byte signature is below L."""
    return len(signature) == 64 and int.from_bytes(signature[32:], "little") < L
