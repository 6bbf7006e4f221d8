"""Completeness (docs/EXPORT.md "Completeness"): the other checks prove that what a bundle
holds is genuine; these prove that nothing between what it holds was left out.

- `chain_complete`: without an operation_type filter, each agent's operations are every
  seq_no from its first to its last one in the bundle.
- `epoch_complete`: without any filter, every epoch whose window lies inside the query range
  has all `leaf_count` of its leaves claimed by an operation of the bundle; for the epoch that
  may hold operations carried from before the range start, missing leaves that are exactly
  its first ones are not covered rather than failed.

A filter makes gaps legitimate: the check is then not covered, once, at that filter."""
from __future__ import annotations

import json
from typing import Any

from .material import IndexedEpoch
from .report import Report


def _span(a: int, b: int) -> str:
    return str(a) if a == b else f"{a} to {b}"


def _js_string(text: str) -> str:
    """JSON.stringify of a string, as the place names quote agent ids."""
    return json.dumps(text, ensure_ascii=False)


def check_chain_completeness(report: Report, header: dict[str, Any], ops: list[dict[str, Any] | None]) -> None:
    query = header["query"]
    if query["operation_type"] is not None:
        report.not_covered("export.query.operation_type", "chain_complete", f"the operation_type filter ({query['operation_type']}) leaves out other operations of each chain, so gaps in seq_no are expected and chains are not checked for completeness")
        return
    by_agent: dict[str, dict[int, int]] = {}
    for i, op in enumerate(ops):
        if op is None:
            continue
        by_agent.setdefault(op["row"]["agent_id"], {}).setdefault(op["row"]["seq_no"], i)
    for agent in sorted(by_agent, key=lambda a: a.encode("utf-16-be", "surrogatepass")):
        seqs = by_agent[agent]
        ordered = sorted(seqs)
        holes = [
            f"seq_no {_span(before + 1, after - 1)} missing between seq_no {before} (operations[{seqs[before]}]) and seq_no {after} (operations[{seqs[after]}])"
            for before, after in zip(ordered, ordered[1:])
            if after - before > 1
        ]
        report.check(f"chains[{_js_string(agent)}]", "chain_complete", not holes, f"agent {agent}: {'; '.join(holes)}")


def check_epoch_completeness(report: Report, header: dict[str, Any], epochs: dict[str, IndexedEpoch]) -> None:
    query = header["query"]
    if query["operation_type"] is not None or query["agent_id"] is not None:
        name = "operation_type" if query["operation_type"] is not None else "agent_id"
        report.not_covered(f"export.query.{name}", "epoch_complete", f"the {name} filter leaves out other operations of each epoch, so epochs are not checked for completeness (leaf_count)")
        return
    for e in epochs.values():
        if e.problem is not None or e.epoch is None:
            continue
        epoch = e.epoch
        if epoch["start_time"] < query["start_time"] or epoch["end_time"] > query["end_time"]:
            continue
        held = [leaf for leaf in e.leaves if 0 <= leaf < epoch["leaf_count"]]
        absent = epoch["leaf_count"] - len(held)
        if absent == 0:
            report.passed("epoch_complete")
            continue
        window = epoch["end_time"] - epoch["start_time"]
        if all(leaf >= absent for leaf in held) and epoch["start_time"] - window < query["start_time"]:
            report.not_covered(f"epochs[{e.index}]", "epoch_complete", f"leaf_index {_span(0, absent - 1)} of epoch {epoch['epoch_id']} are not in the bundle: operations carried into it from before the range start, or left out")
            continue
        missing = [leaf for leaf in range(epoch["leaf_count"]) if leaf not in e.leaves][:21]
        shown = ", ".join(map(str, missing[:20])) + (", ..." if len(missing) > 20 else "")
        report.fail(f"epochs[{e.index}]", "epoch_complete", f"epoch {epoch['epoch_id']} has leaf_count {epoch['leaf_count']} but the bundle holds {len(held)} of its leaves (missing leaf_index {shown})")
