"""Checks of the organization's key history (bundle 1.2, docs/EXPORT.md "Key history") and of
the auditor's pins: the key events are well-formed, numbered and chained, a registration's
proof of possession holds where it has one (whether each key was proven: possession.py), the
epoch log's entries commit to them, each record was signed within its key's window, and each
agent is pinned, unpinned or mismatched."""
from __future__ import annotations

from typing import Any

from .. import b64u
from ..curve import public_key_problem
from ..key_history import (
    GENESIS_KEY_EVENT, KEY_EVENT_KINDS, START_KINDS, fold_history, key_event_hash, key_thumbprint, key_use_problem, possession_problem,
)
from . import shape
from .material import key_id
from .report import Report

WHERE = "verification_material.log.key_events"
KEY_HISTORY_BUNDLE_VERSIONS = ("1.2",)


def _event_problem(e: Any, index: int, org_id: str, prev: str) -> str | None:
    problem = shape.shape_problem(e, shape.KEY_EVENT)
    if problem is not None:
        return problem
    if e["org_id"] != org_id:
        return f"belongs to organization {e['org_id']}"
    if e["key_index"] != index:
        return f"key_index is {e['key_index']}, expected {index}: the key events are not numbered 0, 1, 2, … without a gap"
    if e["event"] not in KEY_EVENT_KINDS:
        return f"event {e['event']} is not one of {', '.join(KEY_EVENT_KINDS)}"
    if not shape.is_hash(e["thumbprint"]) or not shape.is_hash(e["prev_event_hash"]):
        return "thumbprint and prev_event_hash must be 32 bytes of base64url"
    if e["prev_event_hash"] != prev:
        return f"prev_event_hash is not the hash of key event {index - 1}: the history was rewritten or an event left out"
    if e["event"] not in START_KINDS:
        return None if e["public_key"] is None and e["proof"] is None else f"a {e['event']} event carries no public_key and no proof"
    if not b64u.is_b64u(e["public_key"], 32):
        return f"the {e['event']} event of key {e['kid']} (agent {e['agent_id']}) must carry a 32-byte base64url public_key"
    point = public_key_problem(b64u.decode(e["public_key"]))
    if point is not None:
        return f"public_key {point}"
    if key_thumbprint(e["public_key"]) != e["thumbprint"]:
        return f"thumbprint is not the RFC 7638 thumbprint of key {e['kid']}"
    if e["proof"] is None:
        # Registered without a proof (docs/API.md §4.3): unproven, not wrong; possession.py reports it.
        return None
    why = possession_problem(e["proof"], e["public_key"], e["org_id"], e["agent_id"], e["kid"], e["time"])
    return None if why is None else f"agent {e['agent_id']} key {e['kid']}: {why}"


def _commitments(report: Report, entries: list[dict[str, Any]], events: list[dict[str, Any]]) -> int:
    committed, seen = 0, False
    for i, e in enumerate(entries):
        where = f"verification_material.log.entries[{i}]"
        size, head = e.get("key_log_size"), e.get("key_log_head")
        if size is None or head is None:
            ok = not seen and size is None and head is None
            report.check(where, "key_log", ok, f"epoch index {e['epoch_index']} commits to no key history although an earlier entry does (or names only half of it)")
            continue
        seen = True
        ours = GENESIS_KEY_EVENT if size == 0 else key_event_hash(events[size - 1]) if size <= len(events) else None
        ok = size >= committed and ours is not None and ours == head
        if size < committed:
            reason = f"epoch index {e['epoch_index']} commits to {size} key events, fewer than an earlier entry ({committed})"
        elif ours is None:
            reason = f"epoch index {e['epoch_index']} commits to {size} key events; the bundle holds {len(events)}"
        else:
            reason = f"epoch index {e['epoch_index']} commits to a key history of {size} events whose last hash is not the bundle's: the key history was rewritten"
        if report.check(where, "key_log", ok, reason):
            committed = size
    return committed


def _pins(report: Report, operations: list[dict[str, Any] | None], keys: dict[str, Any], pins: dict[str, set[str]] | None) -> None:
    by_agent: dict[str, set[str]] = {}
    for op in operations:
        if op is None:
            continue
        k = keys.get(key_id(op["record"]["agent_id"], op["record"]["agent_pubkey_kid"]))
        if k is None or k.problem is not None:
            continue
        by_agent.setdefault(op["record"]["agent_id"], set()).add(key_thumbprint(k.key["public_key"]))
    for agent_id in sorted(by_agent):
        thumbs = sorted(by_agent[agent_id])
        pinned = None if pins is None else pins.get(agent_id)
        off = [] if pinned is None else [t for t in thumbs if t not in pinned]
        status = "unpinned" if pinned is None else "mismatched" if off else "pinned"
        report.agents.append({"agent_id": agent_id, "pin": status, "keys": thumbs, "unpinned_keys": off})
        where = f"agents.{agent_id}"
        if status == "mismatched":
            report.fail(where, "key_pin", f"agent {agent_id} signed with key{'' if len(off) == 1 else 's'} {', '.join(off)}, which the pins do not list: not the agent's own key")
        elif status == "pinned":
            report.passed("key_pin")
        else:
            report.not_covered(where, "key_pin", f"agent {agent_id} is not pinned: its keys are the ones the bundle names (--agent-keys PINS)")


def check_key_history(
    report: Report, body: dict[str, Any], header: dict[str, Any] | None, log: dict[str, Any] | None,
    operations: list[dict[str, Any] | None], keys: dict[str, Any], pins: dict[str, set[str]] | None,
) -> list[dict[str, Any]] | None:
    """The key history and the pins; returns the checked events, or None."""
    _pins(report, operations, keys, pins)
    if body["bundle_version"] not in KEY_HISTORY_BUNDLE_VERSIONS:
        report.not_covered(WHERE, "key_event", f"bundle {body['bundle_version']} carries no key history: each record's key is checked against the bundle's agent_keys alone")
        return None
    material_log = body["verification_material"].get("log")
    if header is None or not isinstance(material_log, dict):
        return None
    raw = material_log.get("key_events")
    if not isinstance(raw, list):
        report.fail(WHERE, "key_event", f"a {body['bundle_version']} bundle must carry the organization's key events")
        return None
    prev, events = GENESIS_KEY_EVENT, []
    for i, e in enumerate(raw):
        why = _event_problem(e, i, header["org_id"], prev)
        if not report.check(f"{WHERE}[{i}]", "key_event", why is None, why or ""):
            return None
        events.append(e)
        prev = key_event_hash(e)
    history, problems = fold_history(events)
    for i, why in problems:
        report.fail(f"{WHERE}[{i}]", "key_event", why)
    if problems:
        return None
    if log is not None:
        committed = _commitments(report, log["entries"], events)
        if len(events) > committed:
            report.not_covered(f"{WHERE}[{committed}]", "key_log", f"{len(events) - committed} key events are not yet committed by an epoch of the log", len(events) - committed)
    else:
        report.not_covered(WHERE, "key_log", "the bundle carries no checked epoch log: the key history is committed to by nothing the verifier could check")
    committed_at = {e["epoch_id"]: e["key_log_size"] for e in (log or {}).get("entries", []) if e.get("key_log_size") is not None}
    start_index = {key_id(e["agent_id"], e["kid"]): e["key_index"] for e in events if e["event"] in START_KINDS}
    uncovered: list[str] = []
    for i, op in enumerate(operations):
        if op is None:
            continue
        record, row = op["record"], op["row"]
        k = keys.get(key_id(record["agent_id"], record["agent_pubkey_kid"]))
        if k is None or k.problem is not None:
            continue
        why = key_use_problem(history, record["agent_id"], record["agent_pubkey_kid"], k.key["public_key"], row["created_at"])
        if why is False:
            if record["agent_id"] not in uncovered:
                uncovered.append(record["agent_id"])
            continue
        where = f"operations[{i}].record.agent_pubkey_kid"
        if not report.check(where, "key_window", why is None, f"operation {record['operation_id']} of agent {record['agent_id']}: {why}"):
            continue
        size = committed_at.get(op["proof"]["epoch_id"]) if "proof" in op else None
        index = start_index[key_id(record["agent_id"], record["agent_pubkey_kid"])]
        if size is not None:
            report.check(where, "key_log", index < size, f"operation {record['operation_id']} of agent {record['agent_id']}: key {record['agent_pubkey_kid']} is key event {index}, after the {size} events its epoch committed to")
    for agent in uncovered:
        report.not_covered(f"agents.{agent}", "key_window", f"agent {agent} has no event in the key history (registered before key history existed): its keys are checked against the bundle alone")
    return events
