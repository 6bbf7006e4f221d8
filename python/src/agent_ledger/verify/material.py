"""Checks of `body.verification_material` (docs/EXPORT.md): the service JWKS, the agent keys
and the epochs with their RFC 3161 anchors, indexed for the operation checks."""
from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from .. import b64u
from ..curve import public_key_problem
from ..errors import ProtocolError
from ..keys import jwk_thumbprint
from . import shape
from .report import Report
from .tsa import SHA256, read_token


@dataclass
class IndexedKey:
    index: int
    key: Any
    problem: str | None
    used: bool = False


@dataclass
class IndexedEpoch:
    index: int
    epoch: Any
    problem: str | None
    used: bool = False
    leaves: set[int] = field(default_factory=set)


# How long after its epoch's window ends an anchor's genTime may be and still count as on
# time (docs/EXPORT.md "Time-stamps"): a day covers a TSA outage and the sealer's retries.
ANCHOR_LATE_BOUND_MS = 24 * 60 * 60 * 1000

# The verdict on one token's CMS signature and certificate chain (None: signed by a TSA that
# chains to the certificate the auditor trusts; a string: why not); made by tsa_signature.py.
TimeStampVerdict = Callable[[str], "str | None"]


def kid_problem(jwks: dict[str, Any], kid: Any, trusted: bool) -> str | None:
    """Why a signature by `kid` cannot be checked against `jwks` at all, or None when the
    JWKS lists that kid: not a bad signature, an untrusted or unknown key."""
    keys = jwks.get("keys") if isinstance(jwks, dict) else None
    if isinstance(keys, list) and any(isinstance(k, dict) and k.get("kid") == kid for k in keys):
        return None
    if trusted:
        return f"untrusted key: service key {kid} is not in the JWKS you gave (signed by a key you do not trust)"
    return f"unknown kid: service key {kid} is not in the bundled service_jwks"


def key_id(agent_id: str, kid: str) -> str:
    return f"{agent_id}\u0000{kid}"


def _utf16(text: str) -> bytes:
    # JCS order (RFC 8785 §3.2.3), which the bundle's sorting follows.
    return text.encode("utf-16-be", "surrogatepass")


def check_service_jwks(report: Report, keys: list[Any], trusted: list[Any] | None) -> None:
    seen: set[str] = set()
    for i, jwk in enumerate(keys):
        where = f"service_jwks.keys[{i}]"
        problem = shape.shape_problem(jwk, shape.SERVICE_JWK)
        if problem is not None:
            report.fail(where, "service_key", problem)
            continue
        if jwk["kty"] != "OKP" or jwk["crv"] != "Ed25519" or jwk["alg"] != "EdDSA" or jwk["use"] != "sig" or not b64u.is_b64u(jwk["x"], 32):
            report.fail(where, "service_key", "not an Ed25519 signing JWK (kty OKP, crv Ed25519, alg EdDSA, use sig, 32-byte x)")
            continue
        if jwk["kid"] != jwk_thumbprint(jwk):
            report.fail(where, "service_key", "kid is not the RFC 7638 thumbprint of the key")
            continue
        if jwk["kid"] in seen:
            report.fail(where, "service_key", f"kid {jwk['kid']} is listed twice")
            continue
        seen.add(jwk["kid"])
        if trusted is None:
            report.passed("service_key")
            continue
        match = next((t for t in trusted if isinstance(t, dict) and t.get("kid") == jwk["kid"]), None)
        if match is None:
            report.not_covered(where, "service_key", f"kid {jwk['kid']} is not in the trusted JWKS")
            continue
        report.check(where, "service_key", match.get("x") == jwk["x"], f"kid {jwk['kid']} names another key in the trusted JWKS")


def index_agent_keys(keys: list[Any]) -> dict[str, IndexedKey]:
    index: dict[str, IndexedKey] = {}
    previous: bytes | None = None
    for i, raw in enumerate(keys):
        problem = shape.shape_problem(raw, shape.AGENT_KEY)
        if problem is None and (raw["algorithm"] != "ed25519" or not b64u.is_b64u(raw["public_key"], 32)):
            problem = "not a 32-byte base64url Ed25519 public key with algorithm ed25519"
        if problem is not None:
            index[f"#{i}"] = IndexedKey(i, raw, problem)
            continue
        ident = key_id(raw["agent_id"], raw["kid"])
        order = _utf16(ident)
        weak = public_key_problem(b64u.decode(raw["public_key"]))
        if ident in index:
            problem = f"agent {raw['agent_id']} key {raw['kid']} is listed twice"
        elif previous is not None and order < previous:
            problem = "agent_keys are not sorted by (agent_id, kid)"
        elif weak is not None:
            # docs/PROTOCOL.md "Notation": refused at registration, and by every verifier.
            problem = f"public_key {weak}"
        previous = order
        index[f"#{i}" if ident in index else ident] = IndexedKey(i, raw, problem)
    return index


def _anchor_problem(anchor: Any, epoch: dict[str, Any]) -> str | None:
    problem = shape.shape_problem(anchor, shape.ANCHOR)
    if problem is not None:
        return problem
    try:
        token = base64.b64decode(anchor["tsa_token"], validate=True)
    except (binascii.Error, ValueError):
        return "tsa_token is not padded standard base64"
    try:
        info = read_token(token)
    except ProtocolError as error:
        return f"tsa_token: {error}"
    if info.hash_algorithm != SHA256:
        return f"message imprint algorithm is {info.hash_algorithm}, not SHA-256"
    root = b64u.decode(epoch["root_hash"]) if shape.is_hash(epoch["root_hash"]) else b""
    if info.hashed_message != root:
        return "message imprint is not the epoch's root_hash bytes"
    if info.gen_time_ms != anchor["anchored_at"]:
        return f"anchored_at {anchor['anchored_at']} is not the token's genTime {info.gen_time_ms}"
    return None


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def index_epochs(report: Report, entries: list[Any], org_id: str | None, signature_verdict: TimeStampVerdict | None = None) -> dict[str, IndexedEpoch]:
    index: dict[str, IndexedEpoch] = {}
    unchecked: list[str] = []
    previous_start = -1
    for i, raw in enumerate(entries):
        problem = shape.shape_problem(raw, shape.EPOCH_ENTRY)
        if problem is None:
            problem = shape.shape_problem(raw["epoch"], shape.EPOCH)
        if problem is not None:
            index[f"#{i}"] = IndexedEpoch(i, raw.get("epoch") if isinstance(raw, dict) else None, problem)
            continue
        epoch = raw["epoch"]
        if not shape.is_hash(epoch["root_hash"]):
            problem = "root_hash is not 32 bytes of base64url"
        elif epoch["leaf_count"] < 1:
            problem = "leaf_count must be at least 1"
        elif not epoch["start_time"] < epoch["end_time"]:
            problem = "window is empty (start_time >= end_time)"
        elif org_id is not None and epoch["org_id"] != org_id:
            problem = f"belongs to organization {epoch['org_id']}, not {org_id}"
        elif epoch["epoch_id"] in index:
            problem = f"epoch {epoch['epoch_id']} is listed twice"
        elif epoch["start_time"] <= previous_start:
            problem = "epochs are not sorted by start_time"
        previous_start = max(previous_start, epoch["start_time"])
        index[f"#{i}" if epoch["epoch_id"] in index else epoch["epoch_id"]] = IndexedEpoch(i, epoch, problem)
        if "anchor" not in raw:
            report.not_covered(f"epochs[{i}].anchor", "anchor", "the epoch has no RFC 3161 anchor")
            continue
        where = f"epochs[{i}].anchor"
        reason = _anchor_problem(raw["anchor"], epoch)
        if reason is None:
            report.counts["anchored_epochs"] += 1
        if not report.check(where, "anchor", reason is None, reason or ""):
            continue
        anchored, end = raw["anchor"]["anchored_at"], epoch["end_time"]
        late = anchored - end
        report.check(
            where,
            "anchor_time",
            anchored >= end and late <= ANCHOR_LATE_BOUND_MS,
            f"genTime {_iso(anchored)} is before the epoch's window ended ({_iso(end)}): the root cannot have existed yet"
            if anchored < end
            else f"late: genTime {_iso(anchored)} is {round(late / 60_000)} minutes after the epoch's window ended, more than the {ANCHOR_LATE_BOUND_MS // 3_600_000} h bound",
        )
        if signature_verdict is None:
            unchecked.append(where)
        else:
            verdict = signature_verdict(raw["anchor"]["tsa_token"])
            report.check(where, "anchor_signature", verdict is None, verdict or "")
    if unchecked:
        report.not_covered(
            unchecked[0] if len(unchecked) == 1 else "epochs",
            "anchor_signature",
            f"the time-stamps' signatures were not checked ({len(unchecked)} token{'' if len(unchecked) == 1 else 's'}): no TSA certificate was given to check them against (--tsa-ca FILE)",
            len(unchecked),
        )
    return index
