"""The service's receipt (docs/PROTOCOL.md "Receipt")."""
from __future__ import annotations

import hashlib
from typing import Any

from . import b64u, keys
from .canonical import canonical_bytes
from .errors import ProtocolError

RECEIPT_VERSION = "1.0"
# docs/API.md §2.3: the receipt's 12 members.
RECEIPT_FIELDS = (
    "receipt_version", "receipt_id", "operation_id", "org_id", "agent_id", "server_received_at",
    "seq_no", "chain_hash", "queue_message_id", "receipt_hash", "service_kid", "service_signature",
)
_HASHED = tuple(f for f in RECEIPT_FIELDS if f not in ("receipt_hash", "service_kid", "service_signature"))


def receipt_hash(receipt: dict[str, Any]) -> str:
    """b64u(H(JCS(receipt \\ {receipt_hash, service_kid, service_signature})))."""
    missing = [f for f in _HASHED if f not in receipt]
    if missing:
        raise ProtocolError("RECEIPT", f"the receipt has no {', '.join(missing)}")
    return b64u.encode(hashlib.sha256(canonical_bytes({f: receipt[f] for f in _HASHED})).digest())


def find_key(jwks: dict[str, Any], kid: Any) -> dict[str, Any] | None:
    """The JWKS entry named `kid`, or None."""
    for key in jwks.get("keys", []) if isinstance(jwks, dict) else []:
        if isinstance(key, dict) and key.get("kid") == kid:
            return key
    return None


def service_signature_valid(jwks: dict[str, Any], kid: Any, digest_b64u: Any, signature_b64u: Any) -> bool:
    """True when `signature` verifies over the 32 digest bytes with the service key `kid`,
    that kid being the key's RFC 7638 thumbprint (how receipts and manifests are signed)."""
    key = find_key(jwks, kid)
    if key is None or keys.jwk_problem(key) is not None:
        return False
    try:
        return keys.verify(b64u.decode(key["x"], 32), b64u.decode(digest_b64u, 32), b64u.decode(signature_b64u, 64))
    except (ProtocolError, TypeError):
        return False


def verify_receipt(receipt: dict[str, Any], jwks: dict[str, Any]) -> bool:
    """True when the receipt hash recomputes and the service signature verifies with `jwks`."""
    try:
        if receipt_hash(receipt) != receipt.get("receipt_hash"):
            return False
    except ProtocolError:
        return False
    return service_signature_valid(jwks, receipt.get("service_kid"), receipt.get("receipt_hash"), receipt.get("service_signature"))
