"""The operation record (docs/PROTOCOL.md "Operation record"): payload hash, signing input,
signature, record digest and chain hash."""
from __future__ import annotations

import hashlib
import os
import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import b64u, keys
from .canonical import canonical_bytes, record_depth_problem
from .errors import ProtocolError
from .uuid7 import uuid7

OP_VERSION = "1.0"
GENESIS = b64u.encode(bytes(32))
MAX_TTL_MS = 86_400_000
DEFAULT_TTL_MS = 60_000

# docs/API.md §2.1: the record's members, payload included (the wire form of a submission).
RECORD_FIELDS = (
    "op_version", "operation_id", "org_id", "agent_id", "issued_at", "ttl_ms", "nonce",
    "operation_type", "subject", "action", "payload", "payload_hash", "prev_chain_hash",
    "agent_pubkey_kid", "signature",
)
_SIGNED = tuple(f for f in RECORD_FIELDS if f not in ("signature", "payload"))
_DIGESTED = tuple(f for f in RECORD_FIELDS if f != "payload")


def _pick(record: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    missing = [f for f in fields if f not in record]
    if missing:
        raise ProtocolError("RECORD", f"the record has no {', '.join(missing)}")
    return {f: record[f] for f in fields}


def payload_hash(payload: Any) -> str:
    """b64u(H(JCS(payload))); the payload is an object, a string or null."""
    return b64u.encode(hashlib.sha256(canonical_bytes(payload)).digest())


def signing_input(record: dict[str, Any]) -> bytes:
    """JCS(record \\ {signature, payload})."""
    return canonical_bytes(_pick(record, _SIGNED))


def record_digest(record: dict[str, Any]) -> bytes:
    """H(JCS(record \\ {payload})), signature included."""
    return hashlib.sha256(canonical_bytes(_pick(record, _DIGESTED))).digest()


def chain_hash(prev_chain_hash: str, record: dict[str, Any]) -> str:
    """b64u(H(b64u_decode(prev_chain_hash) || record_digest))."""
    return b64u.encode(hashlib.sha256(b64u.decode(prev_chain_hash, 32) + record_digest(record)).digest())


def verify_record_signature(record: dict[str, Any], public_key: bytes) -> bool:
    """True when `record.signature` verifies over the signing input with `public_key`."""
    try:
        return keys.verify(public_key, signing_input(record), b64u.decode(record["signature"], 64))
    except (ProtocolError, KeyError, TypeError):
        return False


def sign_record(
    private_key: Ed25519PrivateKey,
    *,
    org_id: str,
    agent_id: str,
    kid: str,
    prev_chain_hash: str,
    operation_type: str,
    subject: dict[str, Any],
    action: dict[str, Any],
    payload: Any = None,
    ttl_ms: int = DEFAULT_TTL_MS,
    operation_id: str | None = None,
    issued_at: int | None = None,
    nonce: str | None = None,
) -> dict[str, Any]:
    """A signed record ready for POST /v1/operations, with every generated member filled in.
    Refuses input the protocol would refuse (nesting, non-JSON values) before signing."""
    record: dict[str, Any] = {
        "op_version": OP_VERSION,
        "operation_id": operation_id or uuid7(),
        "org_id": org_id,
        "agent_id": agent_id,
        "issued_at": issued_at if issued_at is not None else int(time.time() * 1000),
        "ttl_ms": ttl_ms,
        "nonce": nonce or b64u.encode(os.urandom(16)),
        "operation_type": operation_type,
        "subject": subject,
        "action": action,
        "payload": payload,
        "prev_chain_hash": prev_chain_hash,
        "agent_pubkey_kid": kid,
    }
    problem = record_depth_problem(record)
    if problem:
        raise ProtocolError("VALIDATION_ERROR", problem)
    record["payload_hash"] = payload_hash(payload)
    record["signature"] = b64u.encode(keys.sign(private_key, signing_input(record)))
    return record
