"""The signature and certificate chain of an RFC 3161 token (RFC 3161 §2.4.2, RFC 5652 §5),
checked against the time-stamping authority's certificate the auditor trusts (`--tsa-ca`).

`cryptography` verifies the signatures and reads the certificates; the CMS structure around
them (signer info, signed attributes) is read with tsa.py's DER reader, since `cryptography`
has no CMS verification API."""
from __future__ import annotations

import base64
import hashlib
from datetime import timezone
from typing import Callable

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID

from ..errors import ProtocolError
from .tsa import Tlv, children, oid, read_tlv, read_token, signed_data

_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
_CONTENT_TYPE = "1.2.840.113549.1.9.3"
_TST_INFO = "1.2.840.113549.1.9.16.1.4"
_DIGESTS = {
    "2.16.840.1.101.3.4.2.1": (hashlib.sha256, hashes.SHA256),
    "2.16.840.1.101.3.4.2.2": (hashlib.sha384, hashes.SHA384),
    "2.16.840.1.101.3.4.2.3": (hashlib.sha512, hashes.SHA512),
}
_MAX_CHAIN = 5


def load_certificates(data: bytes) -> list[x509.Certificate]:
    """Every certificate of a PEM file (one or more) or a single DER certificate."""
    if b"-----BEGIN CERTIFICATE-----" in data:
        blocks = data.split(b"-----END CERTIFICATE-----")
        return [x509.load_pem_x509_certificate(b + b"-----END CERTIFICATE-----\n") for b in blocks if b"-----BEGIN CERTIFICATE-----" in b]
    return [x509.load_der_x509_certificate(data)]


def _verify(public_key: object, signature: bytes, data: bytes, digest: type[hashes.HashAlgorithm] | None) -> bool:
    try:
        if isinstance(public_key, rsa.RSAPublicKey):
            public_key.verify(signature, data, padding.PKCS1v15(), (digest or hashes.SHA256)())
        elif isinstance(public_key, ec.EllipticCurvePublicKey):
            public_key.verify(signature, data, ec.ECDSA((digest or hashes.SHA256)()))
        elif isinstance(public_key, ed25519.Ed25519PublicKey):
            public_key.verify(signature, data)
        else:
            return False
        return True
    except (InvalidSignature, ValueError, TypeError):
        return False


def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    if cert.issuer != issuer.subject:
        return False
    algorithm = cert.signature_hash_algorithm
    return _verify(issuer.public_key(), cert.signature, cert.tbs_certificate_bytes, type(algorithm) if algorithm else None)


def _valid_at(cert: x509.Certificate, ms: int) -> bool:
    # The *_utc properties arrived in cryptography 42; older ones give naive UTC datetimes.
    before = getattr(cert, "not_valid_before_utc", None) or cert.not_valid_before.replace(tzinfo=timezone.utc)
    after = getattr(cert, "not_valid_after_utc", None) or cert.not_valid_after.replace(tzinfo=timezone.utc)
    before, after = before.timestamp(), after.timestamp()
    return before <= ms / 1000 <= after


def _chains_to(cert: x509.Certificate, pool: list[x509.Certificate], anchors: list[x509.Certificate], at_ms: int) -> bool:
    current = cert
    for _ in range(_MAX_CHAIN):
        if not _valid_at(current, at_ms):
            return False
        if any(current == a or _issued_by(current, a) for a in anchors):
            return True
        issuer = next((c for c in pool if c != current and _issued_by(current, c)), None)
        if issuer is None:
            return False
        current = issuer
    return False


def _signer_matches(sid: Tlv, cert: x509.Certificate) -> bool:
    if sid.tag == 0x30:  # IssuerAndSerialNumber
        parts = children(sid, "IssuerAndSerialNumber")
        serial = int.from_bytes(parts[1].value, "big", signed=True)
        return serial == cert.serial_number and parts[0].raw == cert.issuer.public_bytes()
    if sid.tag == 0x80:  # [0] SubjectKeyIdentifier
        try:
            return cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest == sid.value
        except x509.ExtensionNotFound:
            return False
    return False


def token_signature_problem(token_b64: str, anchors: list[x509.Certificate]) -> str | None:
    """None when the token is signed by a time-stamping certificate that chains to one of
    `anchors` and was valid at the token's genTime; otherwise why not."""
    try:
        token = base64.b64decode(token_b64, validate=True)
        info = read_token(token)
        sd = signed_data(token)
    except (ProtocolError, ValueError) as error:
        return f"the token does not parse: {error}"
    certs_tlv = next((c for c in sd if c.tag == 0xA0), None)
    pool: list[x509.Certificate] = []
    if certs_tlv is not None:
        pos = 0
        while pos < len(certs_tlv.value):
            element = read_tlv(certs_tlv.value, pos)
            pos = element.end
            if element.tag == 0x30:
                try:
                    pool.append(x509.load_der_x509_certificate(element.raw))
                except ValueError:
                    return "a certificate inside the token does not parse"
    signer_infos = sd[-1]
    if signer_infos.tag != 0x31 or not signer_infos.value:
        return "the token has no signer"
    signer = children(read_tlv(signer_infos.value), "SignerInfo")
    if len(signer) < 5:
        return "the signer info is incomplete"
    sid, digest_algorithm = signer[1], children(signer[2], "digestAlgorithm")
    attrs = next((c for c in signer[3:] if c.tag == 0xA0), None)
    signature = next((c for c in signer[3:] if c.tag == 0x04), None)
    if attrs is None or signature is None:
        return "the token's signer has no signed attributes or no signature"
    digest = _DIGESTS.get(oid(digest_algorithm[0], "digestAlgorithm"))
    if digest is None:
        return "the token is signed with an unsupported digest algorithm"
    message_digest = content_type = None
    pos = 0
    while pos < len(attrs.value):
        attribute = read_tlv(attrs.value, pos)
        pos = attribute.end
        parts = children(attribute, "Attribute")
        name, values = oid(parts[0], "attrType"), read_tlv(parts[1].value)
        if name == _MESSAGE_DIGEST:
            message_digest = values.value
        elif name == _CONTENT_TYPE:
            content_type = oid(values, "contentType")
    if content_type != _TST_INFO:
        return "the signed attributes do not name a TSTInfo"
    if message_digest != digest[0](info.tst_info_der).digest():
        return "the signed message digest is not the digest of the token's TSTInfo"
    cert = next((c for c in pool + anchors if _signer_matches(sid, c)), None)
    if cert is None:
        return "the token does not carry its signer's certificate, and --tsa-ca does not hold it"
    signed_bytes = b"\x31" + attrs.raw[1:]  # RFC 5652 §5.4: the attributes are signed as a SET OF
    if not _verify(cert.public_key(), signature.value, signed_bytes, digest[1]):
        return "the token's signature does not verify with its signer's certificate"
    try:
        usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
        if ExtendedKeyUsageOID.TIME_STAMPING not in usage:
            return "the signer's certificate is not for time-stamping (extended key usage)"
    except x509.ExtensionNotFound:
        return "the signer's certificate has no extended key usage for time-stamping"
    if not _chains_to(cert, pool, anchors, info.gen_time_ms):
        return "the signer's certificate does not chain to the TSA certificate you gave (--tsa-ca), or was not valid at genTime"
    return None


def timestamp_verdict(tsa_ca: bytes) -> Callable[[str], str | None]:
    """The verdict function verify_export takes, for the TSA certificates in `tsa_ca`."""
    anchors = load_certificates(tsa_ca)
    cache: dict[str, str | None] = {}

    def verdict(token_b64: str) -> str | None:
        if token_b64 not in cache:
            cache[token_b64] = token_signature_problem(token_b64, anchors)
        return cache[token_b64]

    return verdict
