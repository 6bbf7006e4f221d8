"""Ed25519 keys as the protocol uses them: raw 32-byte public keys in b64u, RFC 7638 JWK
thumbprints (docs/PROTOCOL.md "Receipt"), PKCS#8 PEM private keys as the CLI stores them."""
from __future__ import annotations

import hashlib
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from . import b64u
from .canonical import canonical_bytes
from .curve import public_key_problem, signature_scalar_in_range
from .errors import ProtocolError


def raw_public_key(private_key: Ed25519PrivateKey) -> bytes:
    """The 32 raw bytes of a private key's public half."""
    return private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def assert_valid_public_key(key: str | bytes) -> bytes:
    """The bytes of an acceptable agent public key (b64u or raw); ProtocolError saying why otherwise."""
    if isinstance(key, str):
        if not b64u.is_b64u(key, 32):
            raise ProtocolError("INVALID_PUBLIC_KEY", "public key must be 32 bytes of strict base64url")
        key = b64u.decode(key)
    problem = public_key_problem(key)
    if problem is not None:
        raise ProtocolError("INVALID_PUBLIC_KEY", f"public key {problem}")
    return key


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Pure Ed25519 (RFC 8032) with the protocol's key and S < L rules; never raises."""
    if public_key_problem(public_key) is not None or not signature_scalar_in_range(signature):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False


def sign(private_key: Ed25519PrivateKey, message: bytes) -> bytes:
    """Sign(sk, m): 64 bytes."""
    return private_key.sign(message)


def jwk_thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 thumbprint of an OKP key: b64u(H(JCS({crv, kty, x})))."""
    return b64u.encode(hashlib.sha256(canonical_bytes({"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"]})).digest())


def ed25519_jwk(public_key: bytes) -> dict[str, str]:
    """The JWK the service publishes for an Ed25519 key, kid included."""
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64u.encode(public_key)}
    return {**jwk, "kid": jwk_thumbprint(jwk), "alg": "EdDSA", "use": "sig"}


def jwk_problem(jwk: Any) -> str | None:
    """Why a JWKS entry is not a service key as docs/PROTOCOL.md "Receipt" defines it, or None."""
    if not isinstance(jwk, dict):
        return "is not a JSON object"
    for name, value in (("kty", "OKP"), ("crv", "Ed25519"), ("alg", "EdDSA"), ("use", "sig")):
        if jwk.get(name) != value:
            return f'{name} must be "{value}"'
    if not b64u.is_b64u(jwk.get("x"), 32):
        return "x must be 32 bytes of strict base64url"
    if jwk.get("kid") != jwk_thumbprint(jwk):
        return "kid is not the key's RFC 7638 thumbprint"
    return None


def private_key_from_pem(pem: bytes) -> Ed25519PrivateKey:
    """An Ed25519 private key from PKCS#8 PEM (the CLI's `key` file)."""
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ProtocolError("INVALID_PRIVATE_KEY", "not an Ed25519 private key")
    return key


def private_key_to_pem(key: Ed25519PrivateKey) -> bytes:
    """PKCS#8 PEM, unencrypted, as the CLI writes its `key` file (mode 0600)."""
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def generate_agent_key() -> Ed25519PrivateKey:
    """A fresh agent key whose public half the protocol accepts."""
    while True:
        key = Ed25519PrivateKey.generate()
        if public_key_problem(raw_public_key(key)) is None:
            return key
