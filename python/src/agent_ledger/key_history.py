"""Agent key history (docs/PROTOCOL.md "Key events"): key events, hash-chained per
organization; proofs of possession (a new key's signature over the organization, agent, kid and
registration time); each key's valid window; and an auditor's pins (docs/EXPORT.md "Pinned
agent keys"). The same rules as protocol/src/keys/ in TypeScript."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import b64u, keys
from .canonical import canonical_bytes

POSSESSION_PURPOSE = "agent-ledger key possession v1"
POSSESSION_MAX_SKEW_MS = 5 * 60_000
GENESIS_KEY_EVENT = b64u.encode(bytes(32))
KEY_EVENT_KINDS = ("register", "add", "retire", "revoke", "delete")
START_KINDS = ("register", "add")
KEY_EVENT_FIELDS = ("org_id", "key_index", "event", "agent_id", "kid", "thumbprint", "public_key", "time", "actor", "proof", "prev_event_hash")


def possession_message(org_id: str, agent_id: str, kid: str, registered_at: int) -> bytes:
    """JCS({purpose, org_id, agent_id, kid, registered_at}): what the new key signs."""
    return canonical_bytes({"purpose": POSSESSION_PURPOSE, "org_id": org_id, "agent_id": agent_id, "kid": kid, "registered_at": registered_at})


def prove_possession(private_key: Ed25519PrivateKey, org_id: str, agent_id: str, kid: str, registered_at: int) -> dict[str, Any]:
    """The proof sent with a new key (POST /v1/agents/register, POST /v1/agents/{id}/keys)."""
    signature = keys.sign(private_key, possession_message(org_id, agent_id, kid, registered_at))
    return {"registered_at": registered_at, "signature": b64u.encode(signature)}


def possession_problem(proof: Any, public_key: str, org_id: str, agent_id: str, kid: str, at: int) -> str | None:
    if not isinstance(proof, dict):
        return "the proof of possession is missing"
    extra = next((k for k in proof if k not in ("registered_at", "signature")), None)
    if extra is not None:
        return f"the proof of possession has an unknown member '{extra}'"
    registered_at, signature = proof.get("registered_at"), proof.get("signature")
    if isinstance(registered_at, bool) or not isinstance(registered_at, int) or not isinstance(signature, str):
        return "the proof of possession must be {registered_at: Unix ms, signature: base64url}"
    if abs(registered_at - at) > POSSESSION_MAX_SKEW_MS:
        return f"the proof of possession's registered_at {registered_at} is more than {POSSESSION_MAX_SKEW_MS // 60_000} minutes from the registration time {at}"
    ok = b64u.is_b64u(signature, 64) and keys.verify(b64u.decode(public_key), possession_message(org_id, agent_id, kid, registered_at), b64u.decode(signature))
    return None if ok else f"the proof of possession is not a signature by key {kid} over (org_id, agent_id, kid, registered_at)"


def key_event_hash(event: dict[str, Any]) -> str:
    """b64u(H(JCS({type: "key", <the event's members>})))."""
    return b64u.encode(hashlib.sha256(canonical_bytes({"type": "key", **{f: event[f] for f in KEY_EVENT_FIELDS}})).digest())


def key_thumbprint(public_key: str) -> str:
    return keys.jwk_thumbprint({"crv": "Ed25519", "kty": "OKP", "x": public_key})


@dataclass
class KeyWindow:
    public_key: str
    thumbprint: str
    start: int
    until: int | None = None
    ended_by: str | None = None


def fold_history(events: list[dict[str, Any]]) -> tuple[dict[str, dict[str, KeyWindow]], list[tuple[int, str]]]:
    """Agent id -> kid -> window, and (index, why) of each event that does not fit."""
    history: dict[str, dict[str, KeyWindow]] = {}
    problems: list[tuple[int, str]] = []
    for i, e in enumerate(events):
        agent = history.setdefault(e["agent_id"], {})
        known = agent.get(e["kid"])
        if e["event"] in START_KINDS:
            if known is not None:
                problems.append((i, f"key {e['kid']} of agent {e['agent_id']} is registered twice"))
            else:
                agent[e["kid"]] = KeyWindow(e["public_key"], e["thumbprint"], e["time"])
            continue
        if known is None:
            problems.append((i, f"{e['event']} of key {e['kid']} of agent {e['agent_id']}, which was never registered"))
        elif known.thumbprint != e["thumbprint"]:
            problems.append((i, f"{e['event']} names key {e['kid']} of agent {e['agent_id']} with thumbprint {e['thumbprint']}, registered as {known.thumbprint}"))
        elif known.until is None:
            known.until, known.ended_by = e["time"], e["event"]
    return history, problems


_ENDED = {"retire": "retired", "revoke": "revoked", "delete": "deleted with its agent"}


def key_use_problem(history: dict[str, dict[str, KeyWindow]], agent_id: str, kid: str, public_key: str, time: int) -> str | None | bool:
    """None when the key could sign at `time`; why not; False when the agent has no history at all."""
    agent = history.get(agent_id)
    if agent is None:
        return False
    w = agent.get(kid)
    if w is None:
        return f"key {kid} of agent {agent_id} is not in the agent's key history"
    if w.public_key != public_key:
        return f"key {kid} of agent {agent_id} is not the key its history registered (thumbprint {w.thumbprint})"
    if time < w.start:
        return f"signed at {time}, before key {kid} was registered at {w.start}"
    if w.until is not None and time >= w.until:
        return f"signed at {time}, after key {kid} was {_ENDED[w.ended_by or 'delete']} at {w.until}"
    return None


def parse_pins(value: Any) -> dict[str, set[str]]:
    """Agent id -> pinned thumbprints, from `agent-ledger agent keys --export` output; ValueError naming the bad member."""
    if not isinstance(value, dict):
        raise ValueError("agent key pins must be a JSON object of agent id to a list of keys")
    pins: dict[str, set[str]] = {}
    for agent_id, items in value.items():
        if not isinstance(items, list):
            raise ValueError(f"pins of agent {agent_id} must be a list of JWKs or RFC 7638 thumbprints")
        pinned: set[str] = set()
        for i, item in enumerate(items):
            if isinstance(item, str) and b64u.is_b64u(item, 32):
                pinned.add(item)
            elif isinstance(item, dict) and item.get("kty") == "OKP" and item.get("crv") == "Ed25519" and b64u.is_b64u(item.get("x"), 32):
                pinned.add(key_thumbprint(item["x"]))
            else:
                raise ValueError(f"pin {i} of agent {agent_id} is neither an Ed25519 JWK nor an RFC 7638 thumbprint (43 base64url characters)")
        pins[agent_id] = pinned
    return pins
