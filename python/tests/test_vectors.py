"""The repository's conformance vectors (protocol/test/vectors/, see its README.md), run
against this implementation: the same files the TypeScript protocol package is held to."""
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from agent_ledger import b64u, keys, merkle
from agent_ledger.canonical import canonicalize, parse_strict
from agent_ledger.receipt import receipt_hash, verify_receipt
from agent_ledger.record import chain_hash, payload_hash, signing_input, verify_record_signature

from conftest import load_vectors

JCS = load_vectors("jcs.json")
RECORDS = load_vectors("records.json")
RECEIPT = load_vectors("receipt.json")
MERKLE = load_vectors("merkle.json")


def positive(cases):
    return [c for c in (cases if isinstance(cases, list) else []) if "error" not in c and c.get("valid", True) is not False]


@pytest.mark.parametrize("case", positive(JCS), ids=lambda c: c["name"])
def test_jcs(case):
    # Read the input from its JSON text (as a verifier reads a file), then canonicalize.
    assert canonicalize(parse_strict(json.dumps(case["input"]))) == case["canonical"]


def test_records_sign_and_chain():
    agent = RECORDS["agent"]
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(agent["seed_hex"]))
    assert b64u.encode(keys.raw_public_key(private)) == agent["public_key"]
    prev = RECORDS["genesis"]
    for entry in RECORDS["records"]:
        record = entry["record"]
        assert payload_hash(record["payload"]) == record["payload_hash"]
        assert signing_input(record).decode("utf-8") == entry["signing_input"]
        # Ed25519 is deterministic: signing again gives the vector's signature.
        assert b64u.encode(keys.sign(private, signing_input(record))) == record["signature"]
        assert verify_record_signature(record, b64u.decode(agent["public_key"]))
        assert record["prev_chain_hash"] == prev
        if "chain_hash" in entry:
            assert chain_hash(prev, record) == entry["chain_hash"]
        prev = chain_hash(prev, record)


def test_receipt():
    service = RECEIPT["service"]
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(service["seed_hex"]))
    assert keys.ed25519_jwk(keys.raw_public_key(private)) == service["jwk"]
    receipt = RECEIPT["receipt"]
    assert receipt_hash(receipt) == receipt["receipt_hash"]
    assert verify_receipt(receipt, {"keys": [service["jwk"]]})
    tampered = {**receipt, "seq_no": receipt["seq_no"] + 1}
    assert not verify_receipt(tampered, {"keys": [service["jwk"]]})


@pytest.mark.parametrize("case", MERKLE if isinstance(MERKLE, list) else MERKLE.get("trees", []), ids=lambda c: f"size {c['tree_size']}")
def test_merkle(case):
    leaves = [merkle.leaf_hash(h) for h in case["chain_hashes"]]
    assert [b64u.encode(l) for l in leaves] == case["leaf_hashes"]
    assert b64u.encode(merkle.root(leaves)) == case["root_hash"]
    for proof in case["proofs"]:
        path = [b64u.decode(p) for p in proof["audit_path"]]
        assert [b64u.encode(p) for p in merkle.inclusion_path(leaves, proof["leaf_index"])] == proof["audit_path"]
        assert merkle.verify_inclusion(leaves[proof["leaf_index"]], proof["leaf_index"], case["tree_size"], path, b64u.decode(case["root_hash"]))
        if path:
            flipped = bytearray(path[0])
            flipped[0] ^= 1
            assert not merkle.verify_inclusion(leaves[proof["leaf_index"]], proof["leaf_index"], case["tree_size"], [bytes(flipped), *path[1:]], b64u.decode(case["root_hash"]))
