"""Key validity (docs/PROTOCOL.md "Notation"): the eight small-order points and non-canonical
encodings are refused, the forgery they allow does not verify, and S >= L is invalid."""
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from agent_ledger import ProtocolError, b64u, keys
from agent_ledger.curve import L, P, public_key_problem

SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
    "0000000000000000000000000000000000000000000000000000000000000080",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
]


@pytest.mark.parametrize("hex_key", SMALL_ORDER)
def test_small_order_points_are_refused(hex_key):
    raw = bytes.fromhex(hex_key)
    problem = public_key_problem(raw)
    assert problem is not None
    # The universal forgery: R = identity, S = 0 must not verify for any message.
    forged = bytes.fromhex(SMALL_ORDER[0]) + bytes(32)
    assert not keys.verify(raw, b"anything", forged)
    with pytest.raises(ProtocolError):
        keys.assert_valid_public_key(b64u.encode(raw))


def test_non_canonical_encodings_are_refused():
    for y in (P, P + 1, 2**255 - 1):
        assert "canonical" in public_key_problem(y.to_bytes(32, "little"))
    assert public_key_problem(b"\x00" * 31) == "must be 32 bytes"


def test_an_ordinary_key_passes_and_signs():
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    raw = keys.raw_public_key(key)
    assert public_key_problem(raw) is None
    signature = keys.sign(key, b"m")
    assert keys.verify(raw, b"m", signature)
    s = int.from_bytes(signature[32:], "little") + L
    assert not keys.verify(raw, b"m", signature[:32] + s.to_bytes(32, "little"))


def test_rfc8032_test_1():
    # RFC 8032 §7.1 TEST 1.
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
    assert keys.raw_public_key(key).hex() == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    assert keys.sign(key, b"").hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )


def test_jwk_thumbprint_and_problems():
    jwk = keys.ed25519_jwk(bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
    assert keys.jwk_problem(jwk) is None
    assert keys.jwk_problem({**jwk, "kid": "other"}) == "kid is not the key's RFC 7638 thumbprint"
    assert keys.jwk_problem({**jwk, "alg": "ES256"}) is not None


def test_strict_base64url():
    assert b64u.decode("AQ") == b"\x01"
    for bad in ("AQ==", "A+", "A/", "AR", " AQ", "A"):
        assert not b64u.is_b64u(bad)
