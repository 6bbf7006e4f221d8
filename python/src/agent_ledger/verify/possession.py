"""Whether each key that signed a record of the bundle was proven to be held by whoever
registered it (docs/PROTOCOL.md "Proof of possession"), as protocol/src/verify/possession.ts
decides it: its register or add event carries a proof (keys.py checked that it holds). A key
whose event has `proof: null`, whose agent was registered before key history existed, or of
a bundle without a key history (1.0, 1.1) is unproven: reported by agent and kid as not
covered, or failed with `require_key_proofs` (`verify --require-key-proofs`). An agent key's
`possession_proven`, where the bundle has it, must say what the history says."""
from __future__ import annotations

from typing import Any

from ..key_history import START_KINDS
from .keys import KEY_HISTORY_BUNDLE_VERSIONS
from .material import key_id
from .report import Report


def _unproven_because(version: str, starts: dict[str, dict[str, Any]], agents_with_events: set[str], key: dict[str, Any]) -> str | None:
    if version not in KEY_HISTORY_BUNDLE_VERSIONS:
        return f"bundle {version} carries no key history, so no proof of possession"
    start = starts.get(key_id(key["agent_id"], key["kid"]))
    if start is not None:
        if start["proof"] is None:
            return f"its {start['event']} event (key event {start['key_index']}) carries no proof of possession: registered without one"
        return None
    return "it is not in the key history" if key["agent_id"] in agents_with_events else "its agent was registered before key history existed"


def check_key_possession(report: Report, body: dict[str, Any], keys: dict[str, Any], events: list[dict[str, Any]] | None, require_key_proofs: bool) -> None:
    """Each used, well-formed agent key proven or not (check key_possession); the unproven ones in report.unproven_keys."""
    version = body["bundle_version"]
    if version in KEY_HISTORY_BUNDLE_VERSIONS and events is None:
        return  # the key history did not check out: reported there
    starts: dict[str, dict[str, Any]] = {}
    agents_with_events: set[str] = set()
    for e in events or []:
        agents_with_events.add(e["agent_id"])
        if e["event"] in START_KINDS:
            starts[key_id(e["agent_id"], e["kid"])] = e
    for k in sorted((k for k in keys.values() if k.problem is None and k.used), key=lambda k: k.index):
        where = f"agent_keys[{k.index}]"
        agent_id, kid = k.key["agent_id"], k.key["kid"]
        reason = _unproven_because(version, starts, agents_with_events, k.key)
        claimed = k.key.get("possession_proven")
        if claimed is not None and claimed != (reason is None):
            report.fail(where, "key_possession", f"agent {agent_id} key {kid}: possession_proven is {'true' if claimed else 'false'}, but {reason or 'its registration carries a proof of possession'}")
            continue
        if reason is None:
            report.passed("key_possession")
            continue
        report.unproven_keys.append({"agent_id": agent_id, "kid": kid, "reason": reason})
        text = f"agent {agent_id} key {kid}: possession not proven ({reason})"
        if require_key_proofs:
            report.fail(where, "key_possession", f"{text}; proofs are required (--require-key-proofs)")
        else:
            report.not_covered(where, "key_possession", text)
