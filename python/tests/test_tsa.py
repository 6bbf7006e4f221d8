"""RFC 3161 tokens from a real time-stamping authority (`openssl ts -reply`): the imprint and
genTime are read, the signature and certificate chain verify against the TSA's CA, and fail
against another CA, with a flipped signature byte, or without a time-stamping certificate."""
import base64
import hashlib
import subprocess
from pathlib import Path

import pytest

from agent_ledger.verify.tsa import SHA256, read_token
from agent_ledger.verify.tsa_signature import load_certificates, token_signature_problem

CONFIG = """
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = {cn}
[ ca_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[ tsa_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = {dir}
serial = {dir}/serial
signer_cert = {dir}/tsa.pem
signer_key = {dir}/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
ess_cert_id_alg = sha256
"""


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _authority(root: Path, name: str, eku: str = "tsa_ext") -> Path:
    d = root / name
    d.mkdir()
    (d / "openssl.cnf").write_text(CONFIG.format(cn=name, dir=d))
    (d / "serial").write_text("01\n")
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key", cwd=d)
    _openssl("req", "-new", "-x509", "-key", "ca.key", "-out", "ca.pem", "-days", "30", "-config", "openssl.cnf", "-extensions", "ca_ext", cwd=d)
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "tsa.key", cwd=d)
    _openssl("req", "-new", "-key", "tsa.key", "-out", "tsa.csr", "-config", "openssl.cnf", cwd=d)
    _openssl("x509", "-req", "-in", "tsa.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "tsa.pem", "-days", "30",
             "-extfile", "openssl.cnf", "-extensions", eku, cwd=d)
    return d


def _stamp(authority: Path, digest: bytes) -> bytes:
    _openssl("ts", "-query", "-digest", digest.hex(), "-sha256", "-cert", "-out", "q.tsq", cwd=authority)
    _openssl("ts", "-reply", "-config", "openssl.cnf", "-queryfile", "q.tsq", "-token_out", "-out", "token.der", cwd=authority)
    return (authority / "token.der").read_bytes()


@pytest.fixture(scope="module")
def authorities(tmp_path_factory):
    root = tmp_path_factory.mktemp("tsa")
    return _authority(root, "Test TSA"), _authority(root, "Other TSA")


def test_a_genuine_token_verifies_against_its_ca(authorities):
    tsa, _ = authorities
    root = hashlib.sha256(b"epoch root").digest()
    token = _stamp(tsa, root)
    info = read_token(token)
    assert info.hash_algorithm == SHA256 and info.hashed_message == root
    assert token_signature_problem(base64.b64encode(token).decode(), load_certificates((tsa / "ca.pem").read_bytes())) is None


def test_another_ca_a_flipped_byte_and_garbage_fail(authorities):
    tsa, other = authorities
    token = _stamp(tsa, hashlib.sha256(b"x").digest())
    encoded = base64.b64encode(token).decode()
    assert "chain" in token_signature_problem(encoded, load_certificates((other / "ca.pem").read_bytes()))
    flipped = token[:-1] + bytes([token[-1] ^ 1])
    assert token_signature_problem(base64.b64encode(flipped).decode(), load_certificates((tsa / "ca.pem").read_bytes())) is not None
    assert "parse" in token_signature_problem(base64.b64encode(b"\x30\x03abc").decode(), load_certificates((tsa / "ca.pem").read_bytes()))
