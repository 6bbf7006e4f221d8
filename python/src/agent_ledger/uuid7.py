"""UUIDv7 (RFC 9562 §5.7): 48 bits of Unix ms, then random bits; the ids the protocol generates."""
import os
import time


def uuid7(now_ms: int | None = None) -> str:
    """A new UUIDv7 string, time-ordered to the millisecond."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = bytearray(os.urandom(10))
    rand[0] = 0x70 | (rand[0] & 0x0F)  # version 7
    rand[2] = 0x80 | (rand[2] & 0x3F)  # variant 10
    raw = ms.to_bytes(6, "big") + bytes(rand)
    h = raw.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
