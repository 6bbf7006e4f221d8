"""`verify_export`: every check of docs/EXPORT.md "What the verifier checks" over an export
bundle's bytes, offline. It never raises: a file nested beyond the protocol's limits is
reported as unprocessable, distinctly from a failed check; one that is not JSON fails the
`bundle` check, as the TypeScript verifier reports it."""
from __future__ import annotations

import hashlib
import json
from typing import Any

from .. import b64u
from ..canonical import CanonicalizationError, canonical_bytes, parse_strict
from ..errors import ProtocolError
from ..receipt import service_signature_valid
from . import shape
from .log import check_epoch_log
from .keys import check_key_history
from .possession import check_key_possession
from .completeness import check_chain_completeness, check_epoch_completeness
from .material import check_service_jwks, index_agent_keys, index_epochs, kid_problem
from .tsa_signature import timestamp_verdict
from .operations import Context, Tally, check_chain_links, check_operation
from .report import Report

# The bundle versions this verifier reads (docs/EXPORT.md): 1.1 adds the epoch log.
READABLE_BUNDLE_VERSIONS = ("1.0", "1.1", "1.2")
BUNDLE_VERSION = "1.1"
# A bundle of records within the protocol's nesting limit nests at most this deep (docs/PROTOCOL.md "Limits").
MAX_BUNDLE_DEPTH = 68
_HEAD = b'{"body":'
_MANIFEST = b',"manifest":'


def _header(value: Any) -> dict[str, Any] | None:
    if shape.shape_problem(value, shape.HEADER) is not None or shape.shape_problem(value["query"], shape.QUERY) is not None:
        return None
    if value["format"] not in ("json", "pdf") or not value["query"]["start_time"] < value["query"]["end_time"]:
        return None
    return value


def _parse(report: Report, data: bytes) -> tuple[Any, bytes | None] | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        report.fail("bundle", "bundle", "the file is not UTF-8")
        return None
    try:
        value = parse_strict(data, MAX_BUNDLE_DEPTH)
    except CanonicalizationError as error:
        message = str(error)
        if "nesting deeper" in message:
            report.unprocessable = f"cannot process: nesting deeper than {MAX_BUNDLE_DEPTH} levels"
            return None
        if "repeated member" in message:
            # JSON.parse keeps the last of repeated members; the file is then not canonical.
            value = json.loads(data)
        else:
            report.fail("bundle", "bundle", "the file is not JSON")
            return None
    body_bytes: bytes | None = None
    try:
        if shape.shape_problem(value, shape.BUNDLE) is None:
            body_bytes = canonical_bytes(value["body"])
            tail = canonical_bytes(value["manifest"])
            canonical = data == _HEAD + body_bytes + _MANIFEST + tail + b"}"
        else:
            canonical = canonical_bytes(value) == data
    except ProtocolError:
        canonical = False
    report.check("bundle", "canonical", canonical, "the file is not the RFC 8785 canonical form of its content (reformatted, or a member repeated)")
    return value, body_bytes


def _manifest(report: Report, bundle: dict[str, Any], jwks: dict[str, Any], trusted: bool, body_bytes: bytes | None) -> None:
    problem = shape.shape_problem(bundle["manifest"], shape.MANIFEST)
    if problem is not None:
        report.fail("manifest", "manifest_digest", problem)
        report.fail("manifest", "manifest_signature", problem)
        return
    m = bundle["manifest"]
    try:
        digest = hashlib.sha256(body_bytes if body_bytes is not None else canonical_bytes(bundle["body"])).digest()
    except ProtocolError:
        digest = None
    claimed = b64u.decode(m["body_sha256"]) if shape.is_hash(m["body_sha256"]) else None
    report.check("manifest.body_sha256", "manifest_digest", digest is not None and digest == claimed, "body_sha256 is not the SHA-256 of the canonical body: the body was changed")
    unknown = kid_problem(jwks, m["service_kid"], trusted)
    signed = unknown is None and claimed is not None and service_signature_valid(jwks, m["service_kid"], m["body_sha256"], m["signature"])
    report.check("manifest.signature", "manifest_signature", signed, unknown or f"the signature does not verify over body_sha256 with service key {m['service_kid']}")


def _summary(report: Report, declared: Any, actual: dict[str, int]) -> None:
    problem = shape.shape_problem(declared, shape.SUMMARY)
    if problem is not None:
        report.fail("summary", "summary", problem)
        return
    off = [k for k in actual if declared[k] != actual[k]]
    report.check("summary", "summary", not off, "; ".join(f"{k} is {declared[k]}, counted {actual[k]}" for k in off))


def verify_export(
    data: bytes | str, jwks: dict[str, Any] | None = None, tsa_ca: bytes | None = None, pins: dict[str, set[str]] | None = None,
    require_key_proofs: bool = False,
) -> Report:
    """Checks an export bundle's bytes. With `jwks` (a service JWKS the auditor trusts) the
    manifest and every receipt must verify with its keys; without it, only with the bundled
    ones, and the report's trust says so. With `tsa_ca` (PEM or DER certificates of the
    time-stamping authority the auditor trusts) each RFC 3161 token's signature and
    certificate chain are checked; without it the report says they were not. With `pins`
    (key_history.parse_pins of `agent-ledger agent keys --export` output) each agent is
    reported pinned, unpinned or mismatched, and a mismatch fails. A key that signed records
    without a proof of possession is reported unproven (`unproven_keys`), and with
    `require_key_proofs` it fails."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    trusted = None if jwks is None else (jwks if isinstance(jwks, dict) and isinstance(jwks.get("keys"), list) else {"keys": []})
    report = Report("trusted_jwks" if trusted is not None else "bundled_jwks")
    if trusted is not None and not trusted["keys"]:
        report.fail("options.jwks", "service_key", "the trusted JWKS has no keys")
    parsed = _parse(report, data)
    if parsed is None:
        return report
    value, body_bytes = parsed
    top = shape.shape_problem(value, shape.BUNDLE) or shape.shape_problem(value["body"], shape.BODY)
    if top is not None:
        report.fail("bundle", "bundle", f"not an export bundle: {top}")
        return report
    body = value["body"]
    report.bundle_version = body["bundle_version"]
    if body["bundle_version"] not in READABLE_BUNDLE_VERSIONS:
        report.fail("bundle", "bundle", f"bundle_version {body['bundle_version']} is not one this verifier reads ({', '.join(READABLE_BUNDLE_VERSIONS)})")
        return report
    material = body["verification_material"]
    problem = shape.shape_problem(material, shape.MATERIAL) or shape.shape_problem(material["service_jwks"], shape.JWKS)
    if problem is not None:
        report.fail("verification_material", "bundle", problem)
        return report
    header = _header(body["export"])
    report.export = header
    report.check("export", "bundle", header is not None, "export is not a well-formed header (docs/EXPORT.md)")

    bundled = material["service_jwks"]
    effective = trusted if trusted is not None else bundled
    _manifest(report, value, effective, trusted is not None, body_bytes)
    check_service_jwks(report, bundled["keys"], trusted["keys"] if trusted is not None else None)

    keys = index_agent_keys(material["agent_keys"])
    verdict = timestamp_verdict(tsa_ca) if tsa_ca is not None else None
    epochs = index_epochs(report, material["epochs"], header["org_id"] if header else None, verdict)
    tally = Tally()
    ctx = Context(report, header, keys, epochs, effective, trusted is not None)
    checked: list[dict[str, Any] | None] = []
    previous = None
    for i, raw in enumerate(body["operations"]):
        op = check_operation(ctx, i, raw, tally, previous)
        checked.append(op)
        if op is not None:
            previous = op
    check_chain_links(report, checked)
    if header is not None:
        check_chain_completeness(report, header, checked)
        check_epoch_completeness(report, header, epochs)
    # docs/EXPORT.md: the bundled JWKS holds every receipt's service_kid.
    for kid, i in tally.receipt_kids.items():
        if kid_problem(bundled, kid, False) is not None:
            report.fail("service_jwks", "service_key", f"the bundled JWKS does not list service key {kid}, which signed operations[{i}].receipt")
    if tally.omitted_payloads:
        report.not_covered("export.include_payloads", "payload", f"payloads were left out of the export ({tally.omitted_payloads} operations)", tally.omitted_payloads)
    for k in keys.values():
        reason = k.problem or (None if k.used else "signed no record of this bundle")
        report.check(f"agent_keys[{k.index}]", "agent_key", reason is None, reason or "")
    for e in epochs.values():
        reason = e.problem or (None if e.used else "no operation's proof points to this epoch")
        report.check(f"epochs[{e.index}]", "epoch", reason is None, reason or "")
    report.counts.update(
        operations=len(body["operations"]), agents=len(tally.agents), agent_keys=len(material["agent_keys"]), epochs=len(material["epochs"])
    )
    _summary(report, body["summary"], {
        "operations": len(body["operations"]), "agents": len(tally.agents), "agent_keys": len(material["agent_keys"]),
        "epochs": len(material["epochs"]), "proofs": tally.proofs, "payloads": tally.payloads,
    })
    log = check_epoch_log(report, body, header, effective)
    events = check_key_history(report, body, header, log, checked, keys, pins)
    check_key_possession(report, body, keys, events, require_key_proofs)
    return report
