"""The export conformance fixtures (protocol/test/fixtures/exports/): genuine bundles and
bundles tampered with, most re-signed with the service's own key. This verifier must reach
the recorded verdict and fail exactly the recorded places, as the TypeScript one does
(protocol/test/export-fixtures.test.ts)."""
import json

import pytest

from agent_ledger.verify import verify_export

from conftest import REPO

FIXTURES = REPO / "protocol" / "test" / "fixtures" / "exports"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
JWKS = json.loads((FIXTURES / "jwks.json").read_text(encoding="utf-8"))


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


def test_without_trusted_keys_the_report_says_so():
    report = verify_export((FIXTURES / "cases" / "genuine-all.json").read_bytes())
    assert report.trust == "bundled_jwks"
