"""The export conformance fixtures (protocol/test/fixtures/exports/): genuine bundles and
bundles tampered with, most re-signed with the service's own key. This verifier must reach
the recorded verdict and fail exactly the recorded places, as the TypeScript one does
(protocol/test/verify/export-fixtures.test.ts)."""
import json

import pytest

from agent_ledger.key_history import parse_pins
from agent_ledger.verify import verify_export

from conftest import REPO

FIXTURES = REPO / "protocol" / "test" / "fixtures" / "exports"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
JWKS = json.loads((FIXTURES / "jwks.json").read_text(encoding="utf-8"))
PINS = parse_pins(json.loads((FIXTURES / "pins.json").read_text(encoding="utf-8")))


def test_fixture_set_is_complete():
    on_disk = sorted(p.stem for p in (FIXTURES / "cases").glob("*.json"))
    assert on_disk == sorted(EXPECTED)
    assert sum(e["valid"] for e in EXPECTED.values()) >= 3
    assert sum(not e["valid"] for e in EXPECTED.values()) >= 8


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_same_verdict_and_places(name):
    expected = EXPECTED[name]
    report = verify_export((FIXTURES / "cases" / f"{name}.json").read_bytes(), jwks=JWKS)
    assert report.valid == expected["valid"], report.to_json()["findings"]
    # The same failing places; the order of findings is each implementation's own.
    key = lambda f: (f["check"], f["where"])
    assert sorted(({"where": w, "check": c} for w, c in report.failed_places()), key=key) == sorted(expected["failed"], key=key)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_same_verdict_against_pins(name):
    # docs/EXPORT.md "Pinned agent keys": each agent pinned, unpinned or mismatched, as the TypeScript verifier says.
    expected = EXPECTED[name]["pinned"]
    report = verify_export((FIXTURES / "cases" / f"{name}.json").read_bytes(), jwks=JWKS, pins=PINS)
    assert report.valid == expected["valid"], report.to_json()["findings"]
    key = lambda f: (f["check"], f["where"])
    assert sorted(({"where": w, "check": c} for w, c in report.failed_places()), key=key) == sorted(expected["failed"], key=key)
    assert {a["agent_id"]: a["pin"] for a in report.agents} == expected["agents"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_same_unproven_keys_and_verdict_when_proofs_are_required(name):
    # docs/PROTOCOL.md "Proof of possession": a key registered without a proof is reported, and fails only when proofs are required.
    expected = EXPECTED[name]
    data = (FIXTURES / "cases" / f"{name}.json").read_bytes()
    assert [f"{k['agent_id']} {k['kid']}" for k in verify_export(data, jwks=JWKS).unproven_keys] == expected["unproven_keys"]
    report = verify_export(data, jwks=JWKS, require_key_proofs=True)
    assert report.valid == expected["proofs_required"]["valid"], report.to_json()["findings"]
    key = lambda f: (f["check"], f["where"])
    assert sorted(({"where": w, "check": c} for w, c in report.failed_places()), key=key) == sorted(expected["proofs_required"]["failed"], key=key)


def test_without_trusted_keys_the_report_says_so():
    report = verify_export((FIXTURES / "cases" / "genuine-all.json").read_bytes())
    assert report.trust == "bundled_jwks"


def test_cli_agent_keys_mismatch_fails_naming_the_agent(capsys):
    # python -m agent_ledger verify FILE --jwks JWKS --agent-keys PINS: exit 1 on a mismatch, 0 when pinned.
    from agent_ledger.__main__ import main
    cases, pins, jwks = FIXTURES / "cases", str(FIXTURES / "pins.json"), str(FIXTURES / "jwks.json")
    assert main(["verify", str(cases / "agent-key-swapped-resigned.json"), "--jwks", jwks, "--agent-keys", pins]) == 1
    out = capsys.readouterr().out
    assert "agent agent-alpha: mismatched" in out and "failed: agents.agent-alpha" in out
    assert main(["verify", str(cases / "genuine-all.json"), "--jwks", jwks, "--agent-keys", pins]) == 0
    assert "agent agent-alpha: pinned" in capsys.readouterr().out
    assert main(["verify", str(cases / "genuine-all.json"), "--jwks", jwks, "--agent-keys", str(cases / "genuine-all.json")]) == 2


def test_cli_exit_codes_and_trust_line_for_files_that_are_not_bundles(tmp_path, capsys):
    # As python/README.md and docs/EXPORT.md say: not JSON or not a bundle is 1 (a failed check),
    # and a file in which nothing could be checked does not claim its signatures were checked.
    from agent_ledger.__main__ import main
    jwks = str(FIXTURES / "jwks.json")
    for name, text in [("text.txt", "hello"), ("empty.json", "{}"), ("list.json", "[1, 2]")]:
        (tmp_path / name).write_text(text)
        assert main(["verify", str(tmp_path / name), "--jwks", jwks]) == 1, name
        out = capsys.readouterr().out
        assert "checked against the JWKS you gave" not in out, out
        assert "no signature was checked" in out
    assert main(["verify", str(FIXTURES / "cases" / "genuine-all.json"), "--jwks", jwks]) == 0
    assert "trust: signatures checked against the JWKS you gave" in capsys.readouterr().out


def test_cli_unproven_key_warns_and_fails_with_require_key_proofs(capsys):
    """Same flag and verdicts as `agent-ledger verify --require-key-proofs` (client/test/verify-key-proofs.test.ts)."""
    from agent_ledger.__main__ import main

    cases, jwks = FIXTURES / "cases", str(FIXTURES / "jwks.json")
    assert main(["verify", str(cases / "key-unproven.json"), "--jwks", jwks]) == 0
    out = capsys.readouterr().out
    assert "warning: agent agent-beta key" in out and "possession not proven" in out
    assert main(["verify", str(cases / "key-unproven.json"), "--jwks", jwks, "--require-key-proofs"]) == 1
    out = capsys.readouterr().out
    assert "proofs are required" in out and "warning:" not in out
    assert main(["verify", str(cases / "genuine-all.json"), "--jwks", jwks, "--require-key-proofs"]) == 0
