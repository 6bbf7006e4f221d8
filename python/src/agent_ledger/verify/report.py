"""The verifier's report, in the vocabulary of docs/EXPORT.md "What the verifier checks" and
of `agent-ledger verify`: a tally per check, and a finding with its place for every check
that failed or could not be made."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHECKS = (
    "bundle", "canonical", "manifest_digest", "manifest_signature", "summary", "service_key", "agent_key",
    "epoch", "anchor", "operation", "scope", "order", "row", "signature", "payload", "chain_hash",
    "chain_link", "receipt", "receipt_row", "inclusion", "anchor_signature", "anchor_time", "chain_complete",
    "epoch_complete", "checkpoint", "log_entry", "log_sequence", "key_event", "key_log", "key_window", "key_pin",
    "key_possession",
)


@dataclass
class Finding:
    where: str
    check: str
    status: str  # "failed" or "not_covered"
    reason: str


@dataclass
class Report:
    trust: str
    bundle_version: str | None = None
    export: dict[str, Any] | None = None
    counts: dict[str, int] = field(default_factory=lambda: {"operations": 0, "agents": 0, "agent_keys": 0, "epochs": 0, "anchored_epochs": 0})
    checks: dict[str, dict[str, int]] = field(default_factory=lambda: {c: {"passed": 0, "failed": 0, "not_covered": 0} for c in CHECKS})
    findings: list[Finding] = field(default_factory=list)
    # Each agent with records in the bundle: {agent_id, pin (pinned|unpinned|mismatched), keys, unpinned_keys}.
    agents: list[dict[str, Any]] = field(default_factory=list)
    # Each key that signed records without a proof of possession: {agent_id, kid, reason} (possession.py).
    unproven_keys: list[dict[str, str]] = field(default_factory=list)
    # Set when the input could not be processed at all (too deep, not JSON): not "tampered".
    unprocessable: str | None = None

    def _tally(self, check: str) -> dict[str, int]:
        return self.checks.setdefault(check, {"passed": 0, "failed": 0, "not_covered": 0})

    def passed(self, check: str) -> None:
        self._tally(check)["passed"] += 1

    def fail(self, where: str, check: str, reason: str) -> None:
        self._tally(check)["failed"] += 1
        self.findings.append(Finding(where, check, "failed", reason))

    def not_covered(self, where: str, check: str, reason: str, count: int = 1) -> None:
        self._tally(check)["not_covered"] += count
        self.findings.append(Finding(where, check, "not_covered", reason))

    def check(self, where: str, check: str, ok: bool, reason: str) -> bool:
        if ok:
            self.passed(check)
        else:
            self.fail(where, check, reason)
        return ok

    @property
    def totals(self) -> dict[str, int]:
        out = {"passed": 0, "failed": 0, "not_covered": 0}
        for tally in self.checks.values():
            for k in out:
                out[k] += tally[k]
        return out

    @property
    def valid(self) -> bool:
        return self.unprocessable is None and self.totals["failed"] == 0

    def failed_places(self) -> list[tuple[str, str]]:
        """(where, check) of every failed check: what conformance compares across implementations."""
        return [(f.where, f.check) for f in self.findings if f.status == "failed"]

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "trust": self.trust,
            "bundle_version": self.bundle_version,
            "export": self.export,
            "counts": dict(self.counts),
            "totals": self.totals,
            "checks": {k: dict(v) for k, v in self.checks.items()},
            "findings": [f.__dict__ for f in self.findings],
            "agents": [dict(a) for a in self.agents],
            "unproven_keys": [dict(k) for k in self.unproven_keys],
            **({"unprocessable": self.unprocessable} if self.unprocessable else {}),
        }
