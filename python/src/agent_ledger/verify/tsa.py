"""RFC 3161 time-stamp tokens (docs/PROTOCOL.md "RFC 3161 anchor"): the TSTInfo inside a CMS
SignedData (RFC 5652), read with a small DER reader. `cryptography` parses certificates but
not CMS content, and the few structures needed here (ContentInfo, SignedData's
encapsulated content, TSTInfo's imprint and genTime) are a page of X.690."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import ProtocolError

SIGNED_DATA = "1.2.840.113549.1.7.2"
TST_INFO = "1.2.840.113549.1.9.16.1.4"
SHA256 = "2.16.840.1.101.3.4.2.1"


@dataclass
class Tlv:
    tag: int  # the identifier octet (class, constructed bit, number < 31)
    value: bytes
    end: int
    raw: bytes = b""  # the whole element, header included


def _fail(message: str) -> None:
    raise ProtocolError("INVALID_TIMESTAMP_TOKEN", message)


def read_tlv(data: bytes, offset: int = 0) -> Tlv:
    """One DER element at `offset` (definite lengths only, as DER requires)."""
    if offset + 2 > len(data):
        _fail("truncated DER")
    tag = data[offset]
    if tag & 0x1F == 0x1F:
        _fail("high tag numbers are not used in a time-stamp token")
    length = data[offset + 1]
    pos = offset + 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            _fail("bad DER length")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + length > len(data):
        _fail("DER element runs past its container")
    return Tlv(tag, data[pos : pos + length], pos + length, data[offset : pos + length])


def children(tlv: Tlv, what: str) -> list[Tlv]:
    if tlv.tag != 0x30:
        _fail(f"{what} is not a SEQUENCE")
    out, pos = [], 0
    while pos < len(tlv.value):
        child = read_tlv(tlv.value, pos)
        out.append(child)
        pos = child.end
    return out


def _explicit0(tlv: Tlv, what: str) -> Tlv:
    if tlv.tag != 0xA0:
        _fail(f"{what} is not [0] EXPLICIT")
    inner = read_tlv(tlv.value)
    if inner.end != len(tlv.value):
        _fail(f"{what} must hold exactly one element")
    return inner


def oid(tlv: Tlv, what: str) -> str:
    if tlv.tag != 0x06 or not tlv.value:
        _fail(f"{what} is not an OBJECT IDENTIFIER")
    first = tlv.value[0]
    parts = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    value = 0
    for byte in tlv.value[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(map(str, parts))


def _octets(tlv: Tlv, what: str) -> bytes:
    if tlv.tag != 0x04:  # DER forbids the constructed form (X.690 §10.2)
        _fail(f"{what} is not a primitive OCTET STRING")
    return tlv.value


@dataclass
class TimeStampInfo:
    hash_algorithm: str
    hashed_message: bytes
    gen_time_ms: int
    serial_hex: str
    policy: str
    tst_info_der: bytes


def signed_data(token: bytes) -> list[Tlv]:
    """The members of the token's SignedData."""
    outer = read_tlv(token)
    if outer.end != len(token):
        _fail("TimeStampToken has trailing bytes")
    content_info = children(outer, "ContentInfo")
    if len(content_info) < 2 or oid(content_info[0], "ContentInfo.contentType") != SIGNED_DATA:
        _fail("token is not CMS SignedData")
    return children(_explicit0(content_info[1], "ContentInfo.content"), "SignedData")


def _gen_time(text: str) -> int:
    # GeneralizedTime in DER: YYYYMMDDHHMMSS[.fff...]Z
    if not text.endswith("Z") or len(text) < 15:
        _fail("TSTInfo.genTime is not a UTC GeneralizedTime")
    base = datetime.strptime(text[:14], "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)
    fraction = text[14:-1]
    ms = 0
    if fraction:
        if not fraction.startswith(".") or not fraction[1:].isdigit():
            _fail("TSTInfo.genTime has a malformed fraction")
        ms = int((fraction[1:] + "000")[:3])  # a fraction below 1 ms is dropped
    return int(base.timestamp()) * 1000 + ms


def read_token(token: bytes) -> TimeStampInfo:
    """The TSTInfo of a DER TimeStampToken; ProtocolError saying what is wrong otherwise."""
    sd = signed_data(token)
    if len(sd) < 3:
        _fail("SignedData is too short")
    encap = children(sd[2], "SignedData.encapContentInfo")
    if len(encap) < 2 or oid(encap[0], "eContentType") != TST_INFO:
        _fail("token does not encapsulate a TSTInfo")
    der = _octets(_explicit0(encap[1], "eContent"), "eContent")
    whole = read_tlv(der)
    if whole.end != len(der):
        _fail("TSTInfo has trailing bytes")
    tst = children(whole, "TSTInfo")
    if len(tst) < 5 or tst[0].tag != 0x02 or tst[0].value != b"\x01":
        _fail("TSTInfo.version is not 1")
    policy = oid(tst[1], "TSTInfo.policy")
    imprint = children(tst[2], "TSTInfo.messageImprint")
    if len(imprint) != 2:
        _fail("messageImprint must have two members")
    algorithm = children(imprint[0], "messageImprint.hashAlgorithm")
    if len(algorithm) > 2 or (len(algorithm) == 2 and (algorithm[1].tag != 0x05 or algorithm[1].value)):
        _fail("hashAlgorithm has unexpected parameters")
    hash_algorithm = oid(algorithm[0], "hashAlgorithm.algorithm")
    hashed = _octets(imprint[1], "messageImprint.hashedMessage")
    if tst[3].tag != 0x02:
        _fail("TSTInfo.serialNumber is not an INTEGER")
    if tst[4].tag != 0x18:
        _fail("TSTInfo.genTime is not a GeneralizedTime")
    serial = tst[3].value.hex().lstrip("0") or "0"
    if len(serial) % 2:
        serial = "0" + serial
    return TimeStampInfo(hash_algorithm, hashed, _gen_time(tst[4].value.decode("ascii")), serial, policy, der)
