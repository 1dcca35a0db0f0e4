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


# ------------------------------------------------------------------ issue 28: one JSON policy, JSON Lines, CSV


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_json_lines_split_on_newlines_only(separator: str) -> None:
    """Item 16: U+2028, U+2029 and U+0085 are text inside a JSON string; `str.splitlines` broke the
    row there, so a valid JSON Lines file was refused."""
    from harness.inputfiles import jsonl_lines, loads

    row = json.dumps({"id": "a", "output": f"one{separator}two"}, ensure_ascii=False)
    text = row + "\r\n" + row + "\n\n"
    lines = list(jsonl_lines(text))
    assert [number for number, _ in lines] == [1, 2, 3, 4]
    assert [loads(line)["output"] for _, line in lines[:2]] == [f"one{separator}two"] * 2


@pytest.mark.parametrize("control", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_a_raw_control_character_stays_on_its_line_and_is_not_json(control: str) -> None:
    from harness.inputfiles import jsonl_lines

    text = '{"id": "a"}\n{"id": "b' + control + 'c"}\n'
    lines = dict(jsonl_lines(text))
    assert lines[1] == '{"id": "a"}' and control in lines[2]
    with pytest.raises(InputError, match=r"rows\.jsonl:2: not JSON"):
        parse_json(lines[2], "rows.jsonl:2")


def test_csv_fields_are_as_long_as_the_file() -> None:
    """Item 14: the csv module's 128 KiB field limit raised `_csv.Error` through the importer."""
    import csv

    from harness.inputfiles import csv_rows

    field = "w" * (200 * 1024)
    before = csv.field_size_limit()
    assert csv_rows(f'id,text\n1,"{field}"\n2,short\n', "rows.csv") == [{"id": "1", "text": field},
                                                                       {"id": "2", "text": "short"}]
    assert csv.field_size_limit() == before  # the process-wide limit is put back


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"n": ' + "9" * 5000 + "}", "[-" + "1" * 700 + "]"])
def test_loads_refuses_what_the_policy_refuses_with_its_own_words(text: str) -> None:
    """Item 12: one integer and depth policy for every JSON the harness reads (JsonRefused is a
    ValueError whose message is ours, never Python's int-string wording)."""
    from harness.inputfiles import JsonRefused, loads

    with pytest.raises(JsonRefused) as caught:
        loads(text)
    assert "digits" not in str(caught.value) or f"longer than {MAX_JSON_INT_DIGITS} digits" in str(caught.value)
    assert "Exceeds the limit" not in str(caught.value)


def test_a_model_answer_keeps_its_records_around_a_huge_number() -> None:
    from harness.inputfiles import answer_decoder, answer_int

    assert answer_int("12") == 12 and answer_int("-" + "9" * 700) == float("-inf")
    value, _ = answer_decoder().raw_decode('{"name": "A", "weight": ' + "9" * 5000 + "} trailing")
    assert value == {"name": "A", "weight": float("inf")}


@pytest.mark.parametrize("kind", ["fifo", "folder", "dev-zero", "socket"])
def test_read_bytes_says_why_a_path_is_no_file(tmp_path: Path, kind: str) -> None:
    from tests.support.battery import plant_special

    from harness.inputfiles import UnreadableFile

    path = tmp_path / "x.json"
    plant_special(path, kind)
    with pytest.raises(UnreadableFile) as caught:
        read_bytes(path, what="cassette")
    assert caught.value.reason == ("a folder" if kind == "folder" else "not a regular file")
    assert caught.value.message == f"{path}: {caught.value.detail}"


def test_read_text_in_a_named_encoding_is_strict_and_keeps_what_python_keeps(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes("\ufeffcafé\r\n".encode("utf-8"))
    assert read_text(path) == "café\r\n"  # the harness's own files: BOM dropped
    assert read_text(path, encoding="utf-8") == "\ufeffcafé\r\n"  # as GraphRAG's open() reads it, less newlines
    path.write_bytes("café".encode("latin-1"))
    assert read_text(path, encoding="latin-1") == "café"
    with pytest.raises(InputError, match="not utf-8 text"):
        read_text(path, encoding="utf-8")
    with pytest.raises(InputError, match="unknown text encoding"):
        read_text(path, encoding="no-such-codec")
