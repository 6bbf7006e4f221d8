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


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    x3 = (x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P
    y3 = (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P
    return x3, y3


def public_key_problem(raw: bytes) -> str | None:
    """Why 32 raw bytes are not acceptable as an agent key, or None when they are."""
    if not isinstance(raw, (bytes, bytearray)) or len(raw) != 32:
        return "must be 32 bytes"
    point = _decode_point(bytes(raw))
    if point is None:
        return "is not the canonical encoding of an Ed25519 point (RFC 8032 §5.1.3)"
    for _ in range(3):  # [8]P: the identity exactly for the eight small-order points
        point = _add(point, point)
    if point == (0, 1):
        return "is a small-order point, with which any signature could be forged (docs/PROTOCOL.md, Notation)"
    return None


def signature_scalar_in_range(signature: bytes) -> bool:
    """True when S (bytes 32..63, little-endian) of a 64-byte signature is below L."""
    return len(signature) == 64 and int.from_bytes(signature[32:], "little") < L
