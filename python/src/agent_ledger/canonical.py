"""RFC 8785 JSON Canonicalization Scheme with the protocol's limits (docs/PROTOCOL.md
"Notation" and "Limits"), and the strict parser every hash and signature check reads with.

Numbers are IEEE 754 doubles, as in I-JSON (RFC 7493 §2.2) and in every JavaScript party of
the protocol: a JSON integer beyond 2^53 reads as the nearest double, exactly as
`JSON.parse` reads it, and serializes as ECMAScript's `Number.prototype.toString` does
(RFC 8785 §3.2.2.3). Written here rather than taken from a package because the only
canonicalization libraries for Python are unmaintained or ship their own number
formatting, and this one has to agree byte for byte with the vectors in
protocol/test/vectors/.

The walks are iterative, so hostile nesting meets the protocol's depth limit (a clear error)
instead of Python's recursion limit.
"""
from __future__ import annotations

import json
import math
from typing import Any

from .errors import CanonicalizationError

# docs/PROTOCOL.md "Limits": a submitted record nests at most 64 levels, the record object
# being level 1. Bundles add a few levels around records; the verifier reads up to this.
MAX_RECORD_DEPTH = 64
MAX_DOCUMENT_DEPTH = 128

_SAFE = 2**53


def _es_number(value: float) -> str:
    """ECMAScript Number::toString for a finite double (ECMA-262 §6.1.6.1.20)."""
    if value == 0:
        return "0"
    if value < 0:
        return "-" + _es_number(-value)
    # repr() is the shortest round-tripping decimal, the same digits ECMAScript chooses.
    mantissa, _, exponent = repr(float(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0)  # decimal point after this many digits
    if whole == "0":  # 0.000ddd: repr of small numbers without exponent
        stripped = fraction.lstrip("0")
        point = -(len(fraction) - len(stripped))
        digits = stripped
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    sign = "+" if n - 1 >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(n - 1)}"


def _string(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise CanonicalizationError("string contains a lone surrogate") from None
    return json.dumps(text, ensure_ascii=False)


def _sort_key(name: str) -> bytes:
    # RFC 8785 §3.2.3: member names sorted by their UTF-16 code units; big-endian UTF-16
    # bytes compare exactly as the code units do.
    return name.encode("utf-16-be", "surrogatepass")


def canonicalize(value: Any, max_depth: int = MAX_DOCUMENT_DEPTH) -> str:
    """JCS(value) as text. Refuses NaN, infinities, lone surrogates, non-JSON types and
    nesting deeper than `max_depth` (CanonicalizationError)."""
    out: list[str] = []
    # A stack of work items: a value to write (with its depth) or literal text.
    stack: list[tuple[bool, Any, int]] = [(True, value, 0)]
    while stack:
        is_value, item, depth = stack.pop()
        if not is_value:
            out.append(item)
            continue
        if item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, str):
            out.append(_string(item))
        elif isinstance(item, int):
            out.append(_es_number(float(item)) if abs(item) >= _SAFE else str(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise CanonicalizationError(f"number {item} has no JSON representation")
            out.append(_es_number(item))
        elif isinstance(item, (dict, list)):
            if depth + 1 > max_depth:
                raise CanonicalizationError(f"nesting deeper than {max_depth} levels")
            if isinstance(item, list):
                stack.append((False, "]", 0))
                for i in range(len(item) - 1, -1, -1):
                    stack.append((True, item[i], depth + 1))
                    if i > 0:
                        stack.append((False, ",", 0))
                out.append("[")
            else:
                for name in item:
                    if not isinstance(name, str):
                        raise CanonicalizationError("object member names must be strings")
                names = sorted(item, key=_sort_key)
                stack.append((False, "}", 0))
                for i in range(len(names) - 1, -1, -1):
                    stack.append((True, item[names[i]], depth + 1))
                    stack.append((False, _string(names[i]) + ":", 0))
                    if i > 0:
                        stack.append((False, ",", 0))
                out.append("{")
        else:
            raise CanonicalizationError(f"{type(item).__name__} has no JSON representation")
    return "".join(out)


def canonical_bytes(value: Any, max_depth: int = MAX_DOCUMENT_DEPTH) -> bytes:
    """JCS(value) as UTF-8 bytes: the exact input of every hash and signature."""
    return canonicalize(value, max_depth).encode("utf-8")


def depth(value: Any) -> int:
    """Nesting depth: a scalar is 0, an object or array one more than its deepest member."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            level += 1
            deepest = max(deepest, level)
            stack.extend((child, level) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def record_depth_problem(record: Any) -> str | None:
    """Why a record to submit nests too deeply (docs/PROTOCOL.md "Limits"), or None."""
    levels = depth(record)
    if levels > MAX_RECORD_DEPTH:
        return f"the record nests {levels} levels deep; the protocol allows at most {MAX_RECORD_DEPTH} (subject, action and payload with the record around them)"
    return None


def _parse_int(text: str) -> int | float:
    number = int(text)
    # Beyond 2^53 a JSON integer is read as the nearest double, as JSON.parse reads it.
    return number if abs(number) < _SAFE else float(number)


def _parse_constant(name: str) -> Any:
    raise CanonicalizationError(f"{name} is not JSON")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            # I-JSON (RFC 7493 §2.3): two parsers must never read two different values.
            raise CanonicalizationError(f'repeated member "{name}"')
        result[name] = value
    return result


def _scan_depth(text: str, max_depth: int) -> None:
    """Refuses nesting deeper than `max_depth` before the (recursive) standard parser runs."""
    level = 0
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if level > max_depth:
                raise CanonicalizationError(f"nesting deeper than {max_depth} levels")
        elif char in "]}":
            level -= 1


def parse_strict(data: bytes | str, max_depth: int = MAX_DOCUMENT_DEPTH) -> Any:
    """Parses JSON under the protocol's rules: UTF-8, no repeated member, no NaN or
    Infinity, numbers as doubles, at most `max_depth` levels (CanonicalizationError)."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise CanonicalizationError("not UTF-8") from None
    else:
        text = data
    _scan_depth(text, max_depth)
    try:
        return json.loads(text, object_pairs_hook=_object, parse_int=_parse_int, parse_constant=_parse_constant)
    except CanonicalizationError:
        raise
    except (ValueError, RecursionError) as error:
        raise CanonicalizationError(f"not JSON: {error}") from None
