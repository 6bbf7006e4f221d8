"""Checks of `verification_material.log` (bundle 1.1; docs/CHECKPOINTS.md "Verifying"): the
checkpoint is the service's and of this organization, the leaves reproduce its root, every
entry is the log's leaf at its index (hash and inclusion path), the entries follow each other
without a gap and each names its predecessor's root, they reach from the epoch before the
export's range to the epoch after it, and every epoch of the bundle is one of them."""
from __future__ import annotations

from typing import Any

from .. import b64u, merkle
from ..tlog import GENESIS_PREV_ROOT, entry_hash, log_leaf_hash, log_origin, verify_checkpoint
from . import shape
from .report import Report

WHERE = "verification_material.log"


def _entry_problem(raw: Any, org_id: str, leaves: list[str], size: int, root: str) -> str | None:
    problem = shape.shape_problem(raw, shape.LOG_ENTRY)
    if problem is not None:
        return problem
    if raw["org_id"] != org_id:
        return f"belongs to organization {raw['org_id']}"
    if not shape.is_hash(raw["root_hash"]) or not shape.is_hash(raw["prev_root_hash"]):
        return "root_hash and prev_root_hash must be 32 bytes of base64url"
    index = raw["epoch_index"]
    if index < 0 or index >= len(leaves):
        return f"epoch_index {index} is outside the log of size {len(leaves)}"
    hashed = entry_hash(raw)
    if hashed != leaves[index]:
        return f"is not the log's leaf at index {index} (entry hash {hashed})"
    if not all(shape.is_hash(p) for p in raw["audit_path"]):
        return "audit_path must hold 32-byte base64url hashes"
    included = merkle.verify_inclusion(log_leaf_hash(hashed), index, size, [b64u.decode(p) for p in raw["audit_path"]], b64u.decode(root))
    return None if included else "its inclusion path does not lead to the checkpoint's root"


def check_epoch_log(report: Report, body: dict[str, Any], header: dict[str, Any] | None, jwks: dict[str, Any]) -> dict[str, Any] | None:
    """Checks a 1.1 bundle's log; returns {checkpoint, leaves, entries} when it checks out."""
    material = body["verification_material"]
    if body["bundle_version"] == "1.0" or "log" not in material:
        report.not_covered(WHERE, "checkpoint", f"bundle {body['bundle_version']} carries no epoch log: append-only checks (epoch indexes, checkpoints, verify --since) were not possible")
        return None
    if header is None:
        return None
    log = material["log"]
    problem = shape.shape_problem(log, shape.LOG)
    if problem is not None:
        report.fail(WHERE, "checkpoint", problem)
        return None
    epochs = material["epochs"]
    if log["checkpoint"] is None:
        empty = not log["leaves"] and not log["entries"]
        if not report.check(WHERE, "checkpoint", empty, "a log without a checkpoint must have no leaves and no entries"):
            return None
        report.not_covered(WHERE, "checkpoint", "the organization had no epoch in its log when this was exported (epochs sealed before the log existed are not in it)")
        if epochs:
            report.not_covered(f"{WHERE}.entries", "log_sequence", "the epochs of this bundle were sealed before the log existed", len(epochs))
        return None
    checkpoint, why = verify_checkpoint(log["checkpoint"], jwks, log_origin(header["org_id"]))
    if not report.check(f"{WHERE}.checkpoint", "checkpoint", checkpoint is not None, why or "") or checkpoint is None:
        return None
    leaves = log["leaves"]
    leaves_ok = len(leaves) == checkpoint.size and all(shape.is_hash(l) for l in leaves)
    root_ok = leaves_ok and checkpoint.size > 0 and b64u.encode(merkle.root([log_leaf_hash(l) for l in leaves])) == checkpoint.root_hash
    reason = f"the log holds {len(leaves)} leaves, the checkpoint says {checkpoint.size}" if not leaves_ok else "the leaves do not reproduce the checkpoint's root hash"
    if not report.check(f"{WHERE}.leaves", "checkpoint", root_ok, reason):
        return None
    good = []
    for i, entry in enumerate(log["entries"]):
        problem = _entry_problem(entry, header["org_id"], leaves, checkpoint.size, checkpoint.root_hash)
        if report.check(f"{WHERE}.entries[{i}]", "log_entry", problem is None, problem or ""):
            good.append(entry)
    if len(good) != len(log["entries"]):
        return None
    _check_sequence(report, good, checkpoint.size, header["query"])
    _check_bundled_epochs(report, epochs, good, header)
    return {"checkpoint": checkpoint, "leaves": leaves, "entries": good}


def _check_sequence(report: Report, entries: list[dict[str, Any]], size: int, query: dict[str, Any]) -> None:
    where = f"{WHERE}.entries"
    if not entries:
        report.fail(where, "log_sequence", f"the log has {size} entries but the bundle shows none of them around the range")
        return
    for i, e in enumerate(entries):
        if i == 0:
            ok = e["epoch_index"] > 0 or e["prev_root_hash"] == GENESIS_PREV_ROOT
            report.check(f"{where}[0]", "log_entry", ok, "the entry at index 0 must name the genesis prev_root_hash (32 zero bytes)")
            continue
        before = entries[i - 1]
        if e["epoch_index"] != before["epoch_index"] + 1:
            if e["epoch_index"] > before["epoch_index"] + 1:
                gap = f"epoch index {before['epoch_index'] + 1}" + (f" to {e['epoch_index'] - 1}" if e["epoch_index"] > before["epoch_index"] + 2 else "") + " is missing"
            else:
                gap = "indexes are not ascending"
            report.fail(f"{where}[{i}]", "log_sequence", f"{gap} (after index {before['epoch_index']}, epoch {before['epoch_id']})")
            continue
        linked = e["prev_root_hash"] == before["root_hash"] and e["start_time"] >= before["end_time"]
        report.check(f"{where}[{i}]", "log_entry", linked, f"prev_root_hash is not the root of epoch index {before['epoch_index']}, or the windows overlap")
    first, last = entries[0], entries[-1]
    report.check(f"{where}[0]", "log_sequence", first["epoch_index"] == 0 or first["end_time"] <= query["start_time"],
                 f"epoch index {first['epoch_index'] - 1}, before the first entry, is missing: the entries start inside the export's range")
    report.check(f"{where}[{len(entries) - 1}]", "log_sequence", last["epoch_index"] == size - 1 or last["start_time"] >= query["end_time"],
                 f"epoch index {last['epoch_index'] + 1}, after the last entry, is missing: the entries end inside the export's range")


def _same_epoch(a: dict[str, Any], e: dict[str, Any]) -> bool:
    return all(a[k] == e[k] for k in ("start_time", "end_time", "root_hash", "leaf_count"))


def _check_bundled_epochs(report: Report, epochs: list[Any], entries: list[dict[str, Any]], header: dict[str, Any]) -> None:
    by_id = {e["epoch_id"]: e for e in entries}
    bundled: set[str] = set()
    first_zero = entries[0] if entries and entries[0]["epoch_index"] == 0 else None
    for i, raw in enumerate(epochs):
        if shape.shape_problem(raw, shape.EPOCH_ENTRY) is not None:
            continue
        epoch = raw["epoch"]
        bundled.add(epoch["epoch_id"])
        entry = by_id.get(epoch["epoch_id"])
        where = f"epochs[{i}]"
        if entry is not None:
            report.check(where, "log_sequence", _same_epoch(epoch, entry), f"is not the epoch the log holds at index {entry['epoch_index']}")
        elif first_zero is not None and epoch["end_time"] <= first_zero["start_time"]:
            report.not_covered(where, "log_sequence", "sealed before the log existed (before its index 0)")
        else:
            report.fail(where, "log_sequence", f"epoch {epoch['epoch_id']} is not in the log's entries for the range")
    query = header["query"]
    if query["agent_id"] is not None or query["operation_type"] is not None:
        return
    for i, e in enumerate(entries):
        inside = e["start_time"] >= query["start_time"] and e["end_time"] <= query["end_time"]
        overlaps = e["start_time"] < query["end_time"] and e["end_time"] > query["start_time"]
        if inside and overlaps:
            report.check(f"{WHERE}.entries[{i}]", "log_sequence", e["epoch_id"] in bundled, f"epoch index {e['epoch_index']} ({e['epoch_id']}) lies inside the range but the bundle has none of its operations")
