"""Strict unpadded base64url (RFC 4648 §5; docs/PROTOCOL.md "Notation").

Decoding refuses padding, the standard alphabet's `+` and `/`, whitespace and any encoding
whose unused low bits are not zero: each byte string has exactly one spelling, so two
parties can never read the same bytes from different text (or different bytes from one).
"""
import base64
import re

from .errors import ProtocolError

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")


def encode(data: bytes) -> str:
    """b64u(x): base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode(text: str, length: int | None = None) -> bytes:
    """The bytes of a strict b64u string; ProtocolError when it is not one (or not `length` bytes)."""
    if not isinstance(text, str) or _ALPHABET.fullmatch(text) is None or len(text) % 4 == 1:
        raise ProtocolError("BASE64URL", "not strict unpadded base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if encode(data) != text:
        raise ProtocolError("BASE64URL", "base64url with non-zero unused bits is not canonical")
    if length is not None and len(data) != length:
        raise ProtocolError("BASE64URL", f"expected {length} bytes, got {len(data)}")
    return data


def is_b64u(text: object, length: int | None = None) -> bool:
    """True when `text` is strict b64u (of `length` bytes when given)."""
    try:
        decode(text, length)  # type: ignore[arg-type]
        return True
    except ProtocolError:
        return False
