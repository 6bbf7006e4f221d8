"""Every conformance vector file of protocol/test/vectors/ (its README.md says how to run
each), positive and negative, against this implementation. test_vectors.py covers
jcs.json, records.json, receipt.json and merkle.json; test_tlog.py checkpoint.json; this
file the rest. A test fails when the folder gains a file no test here reads."""
import hashlib
import struct

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from agent_ledger import b64u, keys, merkle
from agent_ledger.canonical import CanonicalizationError, canonicalize, parse_strict
from agent_ledger.errors import ProtocolError
from agent_ledger.receipt import receipt_hash, verify_receipt
from agent_ledger.record import payload_hash, verify_record_signature

from conftest import VECTORS, load_vectors

READ_ELSEWHERE = {"jcs.json", "records.json", "receipt.json", "merkle.json", "checkpoint.json"}
READ_HERE = {
    "jcs-numbers.json", "jcs-invalid.json", "base64url.json", "base64url-invalid.json", "ed25519.json",
    "ed25519-invalid.json", "keys-invalid.json", "jwk.json", "records-invalid.json", "receipt-invalid.json",
    "merkle-rfc6962.json", "merkle-invalid.json",
}


def test_every_vector_file_is_run():
    assert {p.name for p in VECTORS.glob("*.json")} == READ_ELSEWHERE | READ_HERE


@pytest.mark.parametrize("case", load_vectors("jcs-numbers.json"), ids=lambda c: c["bits"])
def test_jcs_numbers(case):
    value = struct.unpack(">d", bytes.fromhex(case["bits"]))[0]
    if "error" in case:
        with pytest.raises(CanonicalizationError):
            canonicalize(value)
    else:
        assert canonicalize(value) == case["canonical"]


@pytest.mark.parametrize("case", load_vectors("jcs-invalid.json"), ids=lambda c: c["name"])
def test_jcs_invalid(case):
    try:
        refused = canonicalize(parse_strict(case["text"])) != case["text"]
    except CanonicalizationError:
        refused = True
    assert refused


@pytest.mark.parametrize("case", load_vectors("base64url.json"), ids=lambda c: c["b64u"] or "empty")
def test_base64url(case):
    assert b64u.encode(bytes.fromhex(case["hex"])) == case["b64u"]
    assert b64u.decode(case["b64u"]) == bytes.fromhex(case["hex"])


@pytest.mark.parametrize("case", load_vectors("base64url-invalid.json"), ids=lambda c: c["name"])
def test_base64url_invalid(case):
    with pytest.raises(ProtocolError):
        b64u.decode(case["text"])


@pytest.mark.parametrize("case", load_vectors("ed25519.json"), ids=lambda c: c["name"])
def test_ed25519(case):
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["seed_hex"]))
    public = keys.raw_public_key(key)
    assert public.hex() == case["public_key_hex"] and b64u.encode(public) == case["public_key"]
    signature = keys.sign(key, bytes.fromhex(case["message_hex"]))
    assert signature.hex() == case["signature_hex"]
    assert keys.verify(public, bytes.fromhex(case["message_hex"]), signature)


@pytest.mark.parametrize("case", load_vectors("ed25519-invalid.json"), ids=lambda c: c["name"])
def test_ed25519_invalid(case):
    assert not keys.verify(bytes.fromhex(case["public_key_hex"]), bytes.fromhex(case["message_hex"]), bytes.fromhex(case["signature_hex"]))


@pytest.mark.parametrize("case", load_vectors("keys-invalid.json"), ids=lambda c: c["name"])
def test_keys_invalid(case):
    with pytest.raises(ProtocolError):
        keys.assert_valid_public_key(case["public_key"])


@pytest.mark.parametrize("case", load_vectors("jwk.json"), ids=lambda c: c["name"])
def test_jwk_thumbprints(case):
    jwk = case["jwk"]
    members = ("crv", "kty", "x") if jwk["kty"] == "OKP" else ("e", "kty", "n")
    canonical = canonicalize({m: jwk[m] for m in members})
    assert canonical == case["canonical"]
    if jwk["kty"] == "OKP":
        assert keys.jwk_thumbprint(jwk) == case["thumbprint"]


@pytest.mark.parametrize("case", load_vectors("records-invalid.json"), ids=lambda c: c["name"])
def test_records_invalid(case):
    record = case["record"]
    signed = verify_record_signature(record, b64u.decode(case["public_key"]))
    if case["error"] == "signature":
        assert not signed
    else:
        assert signed and payload_hash(record["payload"]) != record["payload_hash"]


@pytest.mark.parametrize("case", load_vectors("receipt-invalid.json"), ids=lambda c: c["name"])
def test_receipt_invalid(case):
    assert not verify_receipt(case["receipt"], case["jwks"])
    if case["error"] == "receipt_hash":
        assert receipt_hash(case["receipt"]) != case["receipt"]["receipt_hash"]


def test_merkle_rfc6962():
    v = load_vectors("merkle-rfc6962.json")
    leaves = [hashlib.sha256(b"\x00" + bytes.fromhex(h)).digest() for h in v["leaves_hex"]]
    for r in v["roots"]:
        assert merkle.root(leaves[: r["tree_size"]]).hex() == r["root_hex"]
    roots = {r["tree_size"]: bytes.fromhex(r["root_hex"]) for r in v["roots"]}
    for p in v["inclusion"]:
        path = [bytes.fromhex(h) for h in p["audit_path_hex"]]
        assert merkle.inclusion_path(leaves[: p["tree_size"]], p["leaf_index"]) == path
        assert merkle.verify_inclusion(leaves[p["leaf_index"]], p["leaf_index"], p["tree_size"], path, roots[p["tree_size"]])


@pytest.mark.parametrize("case", load_vectors("merkle-invalid.json"), ids=lambda c: c["name"])
def test_merkle_invalid(case):
    proof = case["proof"]
    try:
        path = [b64u.decode(p, 32) for p in proof["audit_path"]]
        ok = merkle.verify_inclusion(merkle.leaf_hash(case["chain_hash"]), proof["leaf_index"], proof["tree_size"], path, b64u.decode(proof["root_hash"], 32))
    except ProtocolError:
        ok = False
    assert not ok
