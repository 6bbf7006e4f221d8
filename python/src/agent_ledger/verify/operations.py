"""The checks of each `body.operations` element and of the chain links between them
(docs/EXPORT.md "What the verifier checks")."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import b64u, merkle
from ..canonical import canonicalize, parse_strict
from ..errors import ProtocolError
from ..receipt import verify_receipt
from ..record import GENESIS, chain_hash, payload_hash, verify_record_signature
from . import shape
from .material import IndexedEpoch, IndexedKey, key_id, kid_problem
from .report import Report

_SHARED = (
    "operation_id", "org_id", "agent_id", "operation_type", "issued_at", "ttl_ms", "nonce",
    "payload_hash", "prev_chain_hash", "agent_pubkey_kid", "signature",
)


@dataclass
class Context:
    report: Report
    header: dict[str, Any] | None
    keys: dict[str, IndexedKey]
    epochs: dict[str, IndexedEpoch]
    jwks: dict[str, Any]
    # whether `jwks` is the auditor's rather than the bundle's own
    trusted: bool = False


@dataclass
class Tally:
    agents: set[str] = field(default_factory=set)
    proofs: int = 0
    payloads: int = 0
    omitted_payloads: int = 0
    # service_kid of every receipt -> the first operation whose receipt names it
    receipt_kids: dict[str, int] = field(default_factory=dict)


def js_equal(a: Any, b: Any) -> bool:
    """JavaScript's === on JSON scalars: true is not 1, and 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _js_compare_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _row_mismatch(op: dict[str, Any]) -> str | None:
    row, record = op["row"], op["record"]
    for name in _SHARED:
        if not js_equal(row[name], record[name]):
            return name
    for name in ("subject", "action"):
        # The row keeps them JSON-encoded (docs/API.md §2.2): equal when they decode to the same JSON.
        try:
            same = canonicalize(parse_strict(row[name])) == canonicalize(record[name])
        except ProtocolError:
            same = False
        if not same:
            return name
    return None


def _scope_problem(op: dict[str, Any], header: dict[str, Any]) -> str | None:
    row, query = op["row"], header["query"]
    if row["org_id"] != header["org_id"]:
        return f"belongs to organization {row['org_id']}, not {header['org_id']}"
    if row["created_at"] < query["start_time"] or row["created_at"] >= query["end_time"]:
        return f"created_at {row['created_at']} is outside [{query['start_time']}, {query['end_time']})"
    if query["agent_id"] is not None and row["agent_id"] != query["agent_id"]:
        return f"agent {row['agent_id']} does not match the filter agent_id {query['agent_id']}"
    if query["operation_type"] is not None and row["operation_type"] != query["operation_type"]:
        return f"operation_type {row['operation_type']} does not match the filter {query['operation_type']}"
    return None


def _receipt_mismatch(op: dict[str, Any]) -> str | None:
    row, receipt = op["row"], op["receipt"]
    for name, a, b in (
        ("operation_id", receipt["operation_id"], row["operation_id"]),
        ("org_id", receipt["org_id"], row["org_id"]),
        ("agent_id", receipt["agent_id"], row["agent_id"]),
        ("seq_no", receipt["seq_no"], row["seq_no"]),
        ("chain_hash", receipt["chain_hash"], row["chain_hash"]),
        ("server_received_at", receipt["server_received_at"], row["created_at"]),
    ):
        if not js_equal(a, b):
            return name
    return None


def _inclusion(ctx: Context, where: str, op: dict[str, Any], tally: Tally) -> None:
    report, proof = ctx.report, op.get("proof")
    if proof is None:
        report.not_covered(where, "inclusion", "no epoch covers the operation yet")
        return
    tally.proofs += 1
    indexed = ctx.epochs.get(proof["epoch_id"])
    if indexed is None:
        report.fail(where, "inclusion", f"epoch {proof['epoch_id']} is not in verification_material.epochs")
        return
    indexed.used = True
    epoch = indexed.epoch
    if proof["leaf_index"] in indexed.leaves:
        report.fail(where, "inclusion", f"leaf {proof['leaf_index']} of epoch {epoch['epoch_id']} is claimed by two operations")
        return
    indexed.leaves.add(proof["leaf_index"])
    if not op["row"]["created_at"] < epoch["end_time"]:
        report.fail(where, "inclusion", f"created after the window of epoch {epoch['epoch_id']} ended")
        return
    ok = (
        proof["epoch_id"] == epoch["epoch_id"]
        and proof["root_hash"] == epoch["root_hash"]
        and proof["tree_size"] == epoch["leaf_count"]
        and all(b64u.is_b64u(p, 32) for p in proof["audit_path"])
        and b64u.is_b64u(op["row"]["chain_hash"], 32)
        and shape.is_hash(epoch["root_hash"])
        and merkle.verify_inclusion(
            merkle.leaf_hash(op["row"]["chain_hash"]),
            int(proof["leaf_index"]),
            int(proof["tree_size"]),
            [b64u.decode(p) for p in proof["audit_path"]],
            b64u.decode(epoch["root_hash"]),
        )
    )
    report.check(where, "inclusion", ok, f"the proof does not lead from chain_hash to the root of epoch {epoch['epoch_id']} (RFC 9162 §2.1.3.2)")


def check_operation(ctx: Context, i: int, raw: Any, tally: Tally, previous: dict[str, Any] | None) -> dict[str, Any] | None:
    report, header = ctx.report, ctx.header
    at = f"operations[{i}]"
    problem = shape.operation_problem(raw)
    if not report.check(at, "operation", problem is None, problem or ""):
        return None
    op = raw
    row, record = op["row"], op["record"]
    tally.agents.add(row["agent_id"])
    if header is not None:
        scope = _scope_problem(op, header)
        report.check(f"{at}.scope", "scope", scope is None, scope or "")
    if previous is not None:
        p = previous["row"]
        after = row["created_at"] > p["created_at"] or (
            row["created_at"] == p["created_at"] and _js_compare_key(row["operation_id"]) > _js_compare_key(p["operation_id"])
        )
        report.check(f"{at}.order", "order", after, f"does not come after {p['operation_id']} in (created_at, operation_id) order")
    else:
        report.passed("order")
    mismatch = _row_mismatch(op)
    report.check(f"{at}.row", "row", mismatch is None, f"row.{mismatch or ''} differs from the signed record")

    indexed = ctx.keys.get(key_id(record["agent_id"], record["agent_pubkey_kid"]))
    if indexed is None:
        report.fail(f"{at}.signature", "signature", f"agent {record['agent_id']} key {record['agent_pubkey_kid']} is not in verification_material.agent_keys")
    else:
        indexed.used = True
        ok = indexed.problem is None and verify_record_signature(record, b64u.decode(indexed.key["public_key"]))
        report.check(f"{at}.signature", "signature", ok, f"the signature does not verify over signing_input with key {record['agent_pubkey_kid']}")

    if "payload" in op and "payload_erased" in op:
        report.fail(f"{at}.payload", "payload", "the operation is marked erased but carries a payload")
    elif "payload_erased" in op:
        # Erased by an owner: not a tampering; signature, chain, receipt and inclusion cover payload_hash only.
        e = op["payload_erased"]
        report.not_covered(f"{at}.payload", "payload", f"payload erased by {e['by']} at {e['at']}: {e['reason']}")
    elif "payload" in op:
        tally.payloads += 1
        if header is not None and not header["include_payloads"]:
            report.fail(f"{at}.payload", "payload", "a payload is present although export.include_payloads is false")
        else:
            try:
                ok = payload_hash(op["payload"]) == record["payload_hash"]
            except ProtocolError:
                ok = False
            report.check(f"{at}.payload", "payload", ok, "SHA-256 of the canonical payload is not payload_hash")
    elif header is not None and not header["include_payloads"]:
        tally.omitted_payloads += 1
    elif row["store_payload_key"] is not None and report.bundle_version != "1.0":
        # Since 1.1 every erasure is marked (payload_erased), and the row names the stored copy:
        # a payload neither in the bundle nor marked erased is one the service could not read.
        report.fail(f"{at}.payload", "payload", f"the payload is neither in the bundle nor marked erased: its stored copy ({row['store_payload_key']}) was destroyed")
    else:
        report.not_covered(f"{at}.payload", "payload", "the payload is not in the bundle (erased, or never stored)")

    try:
        recomputed = chain_hash(record["prev_chain_hash"], record)
    except ProtocolError:
        recomputed = None
    report.check(f"{at}.chain_hash", "chain_hash", recomputed == row["chain_hash"], "chain_hash does not recompute from prev_chain_hash and the record")
    kid = op["receipt"]["service_kid"]
    tally.receipt_kids.setdefault(kid, i)
    unknown = kid_problem(ctx.jwks, kid, ctx.trusted)
    report.check(f"{at}.receipt", "receipt", unknown is None and verify_receipt(op["receipt"], ctx.jwks), unknown or "receipt_hash does not recompute or service_signature does not verify with the JWKS")
    off = _receipt_mismatch(op)
    report.check(f"{at}.receipt_row", "receipt_row", off is None, f"receipt.{off or ''} does not match the row")
    _inclusion(ctx, f"{at}.inclusion", op, tally)
    return op


def check_chain_links(report: Report, ops: list[dict[str, Any] | None]) -> None:
    by_seq: dict[tuple[str, int], int] = {}
    for i, op in enumerate(ops):
        if op is not None:
            by_seq.setdefault((op["row"]["agent_id"], op["row"]["seq_no"]), i)
    for i, op in enumerate(ops):
        if op is None:
            continue
        where = f"operations[{i}].chain_link"
        agent, seq = op["row"]["agent_id"], op["row"]["seq_no"]
        first = by_seq[(agent, seq)]
        if first != i:
            report.fail(where, "chain_link", f"agent {agent} has seq_no {seq} twice (also operations[{first}]): a fork")
        elif seq < 1:
            report.fail(where, "chain_link", f"seq_no {seq} is below 1")
        elif seq == 1:
            report.check(where, "chain_link", op["record"]["prev_chain_hash"] == GENESIS, "seq_no 1 must have prev_chain_hash GENESIS")
        elif (agent, seq - 1) not in by_seq:
            report.not_covered(where, "chain_link", f"seq_no {seq - 1} of agent {agent} is not in the bundle")
        else:
            before = by_seq[(agent, seq - 1)]
            report.check(
                where,
                "chain_link",
                op["record"]["prev_chain_hash"] == ops[before]["row"]["chain_hash"],  # type: ignore[index]
                f"prev_chain_hash is not the chain_hash of seq_no {seq - 1} (operations[{before}])",
            )
