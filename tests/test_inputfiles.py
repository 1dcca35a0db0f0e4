"""The bounded readers every input file goes through: regular files, size, UTF-8, JSON depth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import InputError
from harness.inputfiles import MAX_JSON_DEPTH, MAX_JSON_INT_DIGITS, json_depth_exceeds, load_json, parse_json, read_bytes, read_text
from tests.support.growth import assert_linear


def test_size_limit_is_enforced_even_when_the_size_is_not_known(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="larger than the 100 byte limit"):
        read_bytes(big, limit=100)
    assert read_bytes(big, limit=101) == b"x" * 101
    # /proc files report size 0: the read itself must stop at the limit
    with pytest.raises(InputError, match="larger than"):
        read_bytes(Path("/proc/self/maps"), limit=10)


def test_strict_utf8_with_bom_dropped(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"\xef\xbb\xbf[1]")
    assert load_json(path) == [1]
    path.write_bytes(b"[\"\xff\"]")
    with pytest.raises(InputError, match=r"a\.json: not UTF-8 text \(byte 2\)"):
        read_text(path)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet="[]{}\"\\ab", max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=30))
def test_depth_prescan_agrees_with_json(value: object) -> None:
    text = json.dumps(value)
    assert parse_json(text, "v.json") == value
    assert not json_depth_exceeds(text, MAX_JSON_DEPTH)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 100_000])
def test_too_deep_json_is_refused(depth: int) -> None:
    with pytest.raises(InputError, match="nested deeper"):
        parse_json("{\"a\": " * depth + "1" + "}" * depth, "d.json")


def scan_with_no_depth_limit(text: str) -> None:
    json_depth_exceeds(text, 10**9)


def nested_lists_of_escaped_brackets(n: int) -> str:
    """n lists deep, each holding a string with an escaped quote and a bracket the scan must skip."""
    return '["a\\"[", ' * n + "1" + "]" * n


@pytest.mark.slow
def test_depth_scan_is_linear() -> None:
    assert_linear(scan_with_no_depth_limit, nested_lists_of_escaped_brackets, 4_000)


@pytest.mark.parametrize("int_max_str_digits", [0, 640, 4300])
def test_a_long_integer_is_refused_by_the_harness_whatever_python_allows(int_max_str_digits: int) -> None:
    """Python's int-string limit (its wording, its default) must not decide the message."""
    import sys

    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(int_max_str_digits)
    try:
        assert parse_json("[-" + "9" * MAX_JSON_INT_DIGITS + "]", "n.json") == [-int("9" * MAX_JSON_INT_DIGITS)]
        for digits in (MAX_JSON_INT_DIGITS + 1, 5_000):
            with pytest.raises(InputError) as caught:
                parse_json('{"n": ' + "9" * digits + "}", "n.json")
            assert caught.value.message == f"n.json: JSON number longer than {MAX_JSON_INT_DIGITS} digits"
    finally:
        sys.set_int_max_str_digits(before)
