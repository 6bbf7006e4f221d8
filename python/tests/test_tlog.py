"""The epoch log's vectors (protocol/test/vectors/checkpoint.json, docs/CHECKPOINTS.md):
entry hashes, inclusion in the log, signed checkpoints and consistency proofs, positive and
negative, as the TypeScript implementation runs them."""
import pytest

from agent_ledger import b64u, merkle
from agent_ledger.tlog import entry_hash, log_leaf_hash, log_origin, verify_checkpoint

from conftest import load_vectors

V = load_vectors("checkpoint.json")
JWKS = {"keys": [V["service_key"]["jwk"]]}


def test_entries_hash_and_chain_their_roots():
    previous = "A" * 43
    for i, e in enumerate(V["entries"]):
        assert e["entry"]["epoch_index"] == i
        assert e["entry"]["prev_root_hash"] == previous
        assert entry_hash(e["entry"]) == e["entry_hash"]
        assert b64u.encode(log_leaf_hash(e["entry_hash"])) == e["leaf_hash"]
        previous = e["entry"]["root_hash"]


def test_inclusion_of_every_entry_in_the_last_checkpoint():
    leaves = [b64u.decode(e["leaf_hash"]) for e in V["entries"]]
    last = V["checkpoints"][-1]
    root = b64u.decode(last["root_hash"])
    assert merkle.root(leaves[: last["size"]]) == root
    for i, e in enumerate(V["entries"]):
        key = f"inclusion_at_{last['size']}"
        assert merkle.verify_inclusion(leaves[i], i, last["size"], [b64u.decode(p) for p in e[key]], root)


def test_checkpoints_verify_and_their_roots_are_the_log():
    leaves = [b64u.decode(e["leaf_hash"]) for e in V["entries"]]
    origin = V["origin"]
    assert origin == log_origin(V["entries"][0]["entry"]["org_id"])
    for c in V["checkpoints"]:
        checkpoint, problem = verify_checkpoint(c["note"], JWKS, origin)
        assert problem is None
        assert (checkpoint.size, checkpoint.root_hash) == (c["size"], c["root_hash"])
        assert b64u.encode(merkle.root(leaves[: c["size"]])) == c["root_hash"]
    assert verify_checkpoint(V["checkpoints"][0]["note"], JWKS, "agent-ledger/other")[1].startswith("origin")
    assert verify_checkpoint(V["checkpoints"][0]["note"], {"keys": []})[1] == "no signature by a known service key"


def test_consistency_between_the_checkpoints():
    c = V["consistency"]
    roots = {cp["size"]: b64u.decode(cp["root_hash"]) for cp in V["checkpoints"]}
    assert merkle.verify_consistency(c["first"], c["second"], [b64u.decode(p) for p in c["proof"]], roots[c["first"]], roots[c["second"]])


@pytest.mark.parametrize("case", V["negative"], ids=lambda c: c["name"])
def test_negative(case):
    if case["kind"] == "checkpoint":
        checkpoint, problem = verify_checkpoint(case["note"], JWKS, V["origin"])
        assert checkpoint is None and problem
    else:
        roots = {cp["size"]: b64u.decode(cp["root_hash"]) for cp in V["checkpoints"]}
        assert not merkle.verify_consistency(case["first"], case["second"], [b64u.decode(p) for p in case["proof"]], roots[case["first"]], roots[case["second"]])
