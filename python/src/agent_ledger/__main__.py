"""`python -m agent_ledger verify FILE --jwks FILE|URL [--tsa-ca FILE] [--agent-keys PINS] [--json]`: checks an export bundle
offline and prints the report in the vocabulary of `agent-ledger verify`.

Exit codes, as `agent-ledger verify`'s (docs/EXPORT.md "Exit codes of agent-ledger verify"):
0 verified against the keys you gave; 1 a check failed, or the file is not JSON or not an
export bundle; 2 usage; 3 consistent but checked only against the keys inside the file (not
a trust anchor); 4 the file could not be processed (nested beyond the protocol's limits)."""
from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

from .key_history import parse_pins
from .verify import verify_export
from .verify.report import Report

EXIT_VERIFIED, EXIT_FAILED, EXIT_USAGE, EXIT_UNTRUSTED, EXIT_UNPROCESSABLE = 0, 1, 2, 3, 4


def _load_jwks(source: str) -> dict:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=10) as response:
            return json.loads(response.read())
    return json.loads(Path(source).read_text(encoding="utf-8"))


def _print(file: str, report: Report) -> None:
    c = report.counts
    print(f"{c['operations']} operations of {c['agents']} agents, {c['agent_keys']} agent keys, {c['epochs']} epochs ({c['anchored_epochs']} anchored)")
    width = max(len(n) for n in report.checks)
    for name, t in report.checks.items():
        if t["passed"] + t["failed"] + t["not_covered"] == 0:
            continue
        mark = "FAIL" if t["failed"] else "ok  " if t["passed"] else "skip"
        parts = [f"{t['passed']} passed"] + ([f"{t['failed']} failed"] if t["failed"] else []) + ([f"{t['not_covered']} not covered"] if t["not_covered"] else [])
        print(f"  {mark}  {name.ljust(width)}  {', '.join(parts)}")
    for a in report.agents:
        print(f"  agent {a['agent_id']}: {a['pin']}" + (f" (not pinned: {', '.join(a['unpinned_keys'])})" if a["unpinned_keys"] else ""))
    failures = [f for f in report.findings if f.status == "failed"]
    # Unproven keys are a warning unless --require-key-proofs made them failures (listed below then).
    if not any(f.check == "key_possession" for f in failures):
        for k in report.unproven_keys:
            print(f"  warning: agent {k['agent_id']} key {k['kid']}: possession not proven ({k['reason']}); --require-key-proofs fails on it")
    for f in failures[:20]:
        print(f"  failed: {f.where}: {f.reason}")
    if len(failures) > 20:
        print(f"  ... and {len(failures) - 20} more (--json lists them all)")
    signed = ("manifest_signature", "signature", "receipt", "checkpoint", "key_event")
    if sum(report.checks[name]["passed"] + report.checks[name]["failed"] for name in signed if name in report.checks) == 0:
        # Nothing in the file got as far as a signature: saying what it was checked against would mislead.
        print("trust: nothing in the file could be checked, so no signature was checked against any JWKS")
    elif report.trust == "trusted_jwks":
        print("trust: signatures checked against the JWKS you gave")
    else:
        print("trust: signatures checked against the JWKS inside the bundle only: this proves the bundle is self-consistent, not that the service made it; pass --jwks FILE|URL with the service keys you trust")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent_ledger", description="agent-ledger for Python")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="verify an export bundle (JSON) offline")
    verify.add_argument("file")
    verify.add_argument("--jwks", help="the service JWKS you trust: a file or an https URL (/.well-known/service/jwks.json)")
    verify.add_argument("--tsa-ca", help="the time-stamping authority's certificate (PEM or DER) to check each RFC 3161 token's signature against")
    verify.add_argument("--agent-keys", help="the agents' keys as `agent-ledger agent keys --export` prints them on each agent's machine (JSON: agent id -> JWKs or RFC 7638 thumbprints)")
    verify.add_argument("--require-key-proofs", action="store_true", help="fail when a key that signed a record was registered without its proof of possession (otherwise a warning)")
    verify.add_argument("--json", action="store_true", help="print the whole report as JSON")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code else EXIT_VERIFIED
    try:
        data = Path(args.file).read_bytes()
        jwks = _load_jwks(args.jwks) if args.jwks else None
        tsa_ca = Path(args.tsa_ca).read_bytes() if args.tsa_ca else None
        pins = parse_pins(json.loads(Path(args.agent_keys).read_text(encoding="utf-8"))) if args.agent_keys else None
    except (OSError, ValueError) as error:
        print(f"agent-ledger: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = verify_export(data, jwks=jwks, tsa_ca=tsa_ca, pins=pins, require_key_proofs=args.require_key_proofs)
    except ValueError as error:  # a --tsa-ca file that holds no certificate
        print(f"agent-ledger: --tsa-ca: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps({"file": args.file, "kind": "export bundle", **report.to_json()}, indent=2))
    elif report.unprocessable:
        print(f"{args.file}: {report.unprocessable}")
    else:
        _print(args.file, report)
    if report.unprocessable:
        return EXIT_UNPROCESSABLE
    if not report.valid:
        if not args.json:
            print(f"{args.file}: export bundle NOT verified ({len(report.failed_places())} findings failed)")
        return EXIT_FAILED
    if report.trust != "trusted_jwks":
        if not args.json:
            print(f"{args.file}: export bundle consistent, but NOT verified: no trusted JWKS was given")
        return EXIT_UNTRUSTED
    if not args.json:
        print(f"{args.file}: export bundle verified")
    return EXIT_VERIFIED


if __name__ == "__main__":
    sys.exit(main())
