"""The members each part of an export bundle has, and their JSON types (docs/EXPORT.md).
A bundle is untrusted input: every part's shape is checked before anything is computed
from it, and the first problem is named rather than raised."""
from __future__ import annotations

from typing import Any

from .. import b64u

_SAFE = 2**53


def is_int(value: Any) -> bool:
    """A JSON number that is a safe integer (JavaScript's Number.isSafeInteger)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and abs(value) < _SAFE
    return isinstance(value, int) and abs(value) < _SAFE


_KINDS = {
    "string": lambda v: isinstance(v, str),
    "int": is_int,
    "bool": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string|null": lambda v: v is None or isinstance(v, str),
    "int|null": lambda v: v is None or is_int(v),
    "any": lambda v: True,
}


def shape_problem(value: Any, shape: dict[str, str]) -> str | None:
    if not isinstance(value, dict):
        return "must be an object"
    known = set()
    for spec, kind in shape.items():
        optional = spec.endswith("?")
        name = spec[:-1] if optional else spec
        known.add(name)
        if name not in value:
            if optional:
                continue
            return f"member '{name}' is missing"
        if not _KINDS[kind](value[name]):
            return f"member '{name}' must be {kind}"
    extra = next((k for k in value if k not in known), None)
    return None if extra is None else f"unknown member '{extra}'"


def is_hash(value: Any) -> bool:
    return b64u.is_b64u(value, 32)


BUNDLE = {"body": "object", "manifest": "object"}
BODY = {"bundle_version": "string", "export": "object", "operations": "array", "summary": "object", "verification_material": "object"}
HEADER = {"export_id": "string", "org_id": "string", "format": "string", "include_payloads": "bool", "generated_at": "int", "query": "object"}
QUERY = {"start_time": "int", "end_time": "int", "agent_id": "string|null", "operation_type": "string|null"}
MATERIAL = {"agent_keys": "array", "epochs": "array", "log?": "object", "service_jwks": "object"}
LOG = {"checkpoint": "string|null", "leaves": "array", "entries": "array", "key_events?": "array"}
LOG_ENTRY = {
    "epoch_id": "string", "org_id": "string", "epoch_index": "int", "start_time": "int", "end_time": "int",
    "root_hash": "string", "leaf_count": "int", "prev_root_hash": "string", "key_log_size?": "int", "key_log_head?": "string", "audit_path": "array",
}
KEY_EVENT = {
    "org_id": "string", "key_index": "int", "event": "string", "agent_id": "string", "kid": "string", "thumbprint": "string",
    "public_key": "string|null", "time": "int", "actor": "string", "proof": "any", "prev_event_hash": "string",
}
JWKS = {"keys": "array"}
MANIFEST = {"body_sha256": "string", "service_kid": "string", "signature": "string"}
SUMMARY = {"operations": "int", "agents": "int", "agent_keys": "int", "epochs": "int", "proofs": "int", "payloads": "int"}
OPERATION = {"row": "object", "record": "object", "payload?": "any", "payload_erased?": "object", "receipt": "object", "proof?": "object"}
ERASURE = {"by": "string", "at": "int", "reason": "string"}
ROW = {
    "operation_id": "string", "org_id": "string", "agent_id": "string", "seq_no": "int", "operation_type": "string",
    "issued_at": "int", "ttl_ms": "int", "nonce": "string", "subject": "string", "action": "string",
    "payload_hash": "string", "prev_chain_hash": "string", "chain_hash": "string", "agent_pubkey_kid": "string",
    "signature": "string", "store_payload_key": "string|null", "created_at": "int",
}
RECORD = {
    "op_version": "string", "operation_id": "string", "org_id": "string", "agent_id": "string", "issued_at": "int",
    "ttl_ms": "int", "nonce": "string", "operation_type": "string", "subject": "object", "action": "object",
    "payload_hash": "string", "prev_chain_hash": "string", "agent_pubkey_kid": "string", "signature": "string",
}
RECEIPT = {
    "receipt_version": "string", "receipt_id": "string", "operation_id": "string", "org_id": "string", "agent_id": "string",
    "server_received_at": "int", "seq_no": "int", "chain_hash": "string", "queue_message_id": "string",
    "receipt_hash": "string", "service_kid": "string", "service_signature": "string",
}
PROOF = {"epoch_id": "string", "leaf_index": "int", "tree_size": "int", "audit_path": "array", "root_hash": "string"}
AGENT_KEY = {"kid": "string", "agent_id": "string", "public_key": "string", "algorithm": "string", "status": "string", "created_at": "int|null", "retired_at": "int|null", "possession_proven?": "bool"}
EPOCH_ENTRY = {"epoch": "object", "anchor?": "object"}
EPOCH = {"epoch_id": "string", "org_id": "string", "start_time": "int", "end_time": "int", "root_hash": "string", "leaf_count": "int", "store_epoch_key": "string", "created_at": "int"}
ANCHOR = {"tsa_url": "string", "tsa_token": "string", "anchored_at": "int"}
SERVICE_JWK = {"kty": "string", "crv": "string", "x": "string", "kid": "string", "alg": "string", "use": "string"}


def operation_problem(entry: Any) -> str | None:
    outer = shape_problem(entry, OPERATION)
    if outer is not None:
        return outer
    parts = [("row", ROW), ("record", RECORD), ("receipt", RECEIPT)]
    if "proof" in entry:
        parts.append(("proof", PROOF))
    if "payload_erased" in entry:
        parts.append(("payload_erased", ERASURE))
    for name, part in parts:
        problem = shape_problem(entry[name], part)
        if problem is not None:
            return f"{name}: {problem}"
    if "proof" in entry and not all(isinstance(p, str) for p in entry["proof"]["audit_path"]):
        return "proof: audit_path must hold strings"
    return None
