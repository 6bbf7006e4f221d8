"""RFC 8785 and the protocol's limits on untrusted JSON: what is refused, and that refusing
deep input is a clear error rather than a crash."""
import pytest

from agent_ledger import MAX_RECORD_DEPTH, CanonicalizationError, canonicalize, parse_strict
from agent_ledger.canonical import record_depth_problem


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("[-0, 1E2, 1.0, 0.1, 1e21, 1e-7, 9007199254740993]", "[0,100,1,0.1,1e+21,1e-7,9007199254740992]"),
        ('{"b":1,"a":{"d":[],"c":{}}}', '{"a":{"c":{},"d":[]},"b":1}'),
        ('"\\u00e9\\u2028\\ud83d\\ude00"', '"é\u2028😀"'),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ],
)
def test_canonical_forms(text, canonical):
    assert canonicalize(parse_strict(text)) == canonical


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"a":1,"a":2}', "repeated member"),
        ('{"x":{"a":1,"a":1}}', "repeated member"),
        ("NaN", "not JSON"),
        ("[Infinity]", "not JSON"),
        ("[1,]", "not JSON"),
        ('{"a":1', "not JSON"),
    ],
)
def test_refused_input(text, reason):
    with pytest.raises(CanonicalizationError, match=reason):
        parse_strict(text)


def test_lone_surrogates_have_no_canonical_form():
    with pytest.raises(CanonicalizationError, match="lone surrogate"):
        canonicalize(parse_strict('"\\ud800"'))
    with pytest.raises(CanonicalizationError, match="lone surrogate"):
        canonicalize({"\udc00": 1})


def test_hostile_nesting_is_an_error_not_a_crash():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(CanonicalizationError, match="nesting deeper"):
        parse_strict(deep)
    value = []
    for _ in range(5000):
        value = [value]
    with pytest.raises(CanonicalizationError, match="nesting deeper"):
        canonicalize(value)
    # Brackets inside strings are not nesting.
    assert parse_strict('["' + "[" * 1000 + '"]') == ["[" * 1000]


def test_record_depth_limit_counts_the_record_as_level_one():
    def nested(levels):
        value = {}
        for _ in range(levels - 1):
            value = {"n": value}
        return value

    assert record_depth_problem({"subject": nested(MAX_RECORD_DEPTH - 1)}) is None
    assert "at most 64" in record_depth_problem({"subject": nested(MAX_RECORD_DEPTH)})


def test_non_json_values_are_refused():
    for value in (float("nan"), float("inf"), {1: "x"}, object(), b"bytes"):
        with pytest.raises(CanonicalizationError):
            canonicalize(value)
