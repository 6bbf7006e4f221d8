"""An organization's epoch log (docs/CHECKPOINTS.md): each sealed epoch is an entry of an
append-only RFC 9162 tree, and signed checkpoints of that tree in the C2SP
`tlog-checkpoint` signed-note format let anyone check that two views of the history agree
(consistency proofs) and that none of it was left out (indexes without gaps)."""
from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from . import b64u, keys, merkle
from .canonical import canonical_bytes

GENESIS_PREV_ROOT = b64u.encode(bytes(32))
LOG_ENTRY_FIELDS = ("epoch_id", "org_id", "epoch_index", "start_time", "end_time", "root_hash", "leaf_count", "prev_root_hash")
KEY_COMMITMENT_FIELDS = ("key_log_size", "key_log_head")
_EM_DASH = "\u2014"
_DECIMAL = re.compile(r"0|[1-9][0-9]*")


def log_origin(org_id: str) -> str:
    return f"agent-ledger/{org_id}"


def entry_hash(entry: dict[str, Any]) -> str:
    """b64u(H(JCS({type: "epoch", <the entry's fields>}))), key_log_size and key_log_head among them when present."""
    picked = {"type": "epoch", **{f: entry[f] for f in LOG_ENTRY_FIELDS}}
    # Entries sealed since key history exists also commit to it (docs/CHECKPOINTS.md "Key history").
    picked.update({f: entry[f] for f in KEY_COMMITMENT_FIELDS if entry.get(f) is not None})
    return b64u.encode(hashlib.sha256(canonical_bytes(picked)).digest())


def log_leaf_hash(entry_hash_b64u: str) -> bytes:
    """The entry's leaf in the log tree: H(0x00 || entry_hash)."""
    return merkle.leaf_hash(entry_hash_b64u)


def note_key_id(key_name: str, public_key: bytes) -> bytes:
    """C2SP signed-note key ID of an Ed25519 key: H(name || 0x0A || 0x01 || key)[:4]."""
    return hashlib.sha256(key_name.encode() + b"\x0a\x01" + public_key).digest()[:4]


@dataclass
class Checkpoint:
    origin: str
    size: int
    root_hash: str  # b64u


class CheckpointError(ValueError):
    pass


def _b64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise CheckpointError("not standard base64") from None


def parse_checkpoint(note: str) -> tuple[Checkpoint, str, list[tuple[str, bytes, bytes]]]:
    """(checkpoint, signed text, [(key name, key ID, signature)]); CheckpointError otherwise."""
    if not isinstance(note, str) or not note.endswith("\n"):
        raise CheckpointError("a signed note is text ending in a newline")
    if any(c < " " and c != "\n" for c in note):
        raise CheckpointError("a signed note has no control characters but newline")
    split = note.rfind("\n\n")
    if split < 0:
        raise CheckpointError("no blank line separates the text from the signatures")
    text = note[: split + 1]
    lines = text[:-1].split("\n")
    if len(lines) < 3:
        raise CheckpointError("the text needs an origin, a size and a root hash line")
    origin, size_text, root_text = lines[0], lines[1], lines[2]
    if not origin:
        raise CheckpointError("the origin line is empty")
    if not _DECIMAL.fullmatch(size_text) or int(size_text) >= 2**53:
        raise CheckpointError(f"size '{size_text}' is not a decimal integer")
    root = _b64(root_text)
    if len(root) != 32:
        raise CheckpointError("the root hash is not 32 bytes")
    signatures = []
    for line in note[split + 2 : -1].split("\n"):
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != _EM_DASH or not parts[1]:
            raise CheckpointError(f"not a signature line: '{line[:80]}'")
        raw = _b64(parts[2])
        if len(raw) < 5:
            raise CheckpointError("a signature is shorter than its key ID")
        signatures.append((parts[1], raw[:4], raw[4:]))
    if not signatures:
        raise CheckpointError("the note has no signature")
    return Checkpoint(origin, int(size_text), b64u.encode(root)), text, signatures


def verify_checkpoint(note: Any, jwks: dict[str, Any], expected_origin: str | None = None) -> tuple[Checkpoint | None, str | None]:
    """(checkpoint, None) when a signature line of a known service key verifies over the
    text and none fails; (None, why) otherwise. Never raises."""
    try:
        checkpoint, text, signatures = parse_checkpoint(note)
    except CheckpointError as error:
        return None, str(error)
    if expected_origin is not None and checkpoint.origin != expected_origin:
        return None, f"origin is '{checkpoint.origin}', not '{expected_origin}'"
    known = [k for k in (jwks.get("keys", []) if isinstance(jwks, dict) else []) if keys.jwk_problem(k) is None]
    verified_by = None
    for name, key_id, signature in signatures:
        if name != checkpoint.origin:
            continue
        for key in known:
            raw = b64u.decode(key["x"])
            if note_key_id(name, raw) != key_id:
                continue
            if not keys.verify(raw, text.encode(), signature):
                return None, f"the signature of service key {key['kid']} does not verify over the checkpoint"
            verified_by = key["kid"]
    if verified_by is None:
        return None, "no signature by a known service key"
    return checkpoint, None
