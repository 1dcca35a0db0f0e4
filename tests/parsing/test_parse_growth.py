"""Parsing stays linear on pathological model output (issue 13.2).

Each test doubles a hostile input and checks the CPU instructions parsing it at most about double
(tests/support/growth.py); the sizes are where the old quadratic patterns already dominated.
"""

from __future__ import annotations

from functools import partial

import pytest

from harness.formats.answer import parse
from tests.support.growth import Repeat, assert_linear


def codes(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {i.code for i in result.format_report.issues}


@pytest.mark.slow
def test_many_unclosed_think_tags() -> None:
    assert_linear(parse, Repeat("<think>"), 2_000)


@pytest.mark.slow
def test_unclosed_think_tags_of_mixed_names_with_closers_at_the_end() -> None:
    # Every <thinking> sees a </think> (wrong name) after it: the lazy block pattern rescanned
    # to the end for each opening tag.
    assert_linear(parse, Repeat("<thinking>x ", after="</think>"), 2_000)


def test_think_blocks_are_still_removed_correctly() -> None:
    r = parse('<think>a</think>("entity"<|>A<|>person<|>x)<THINK>b</think>\n<|COMPLETE|>')
    assert [e.name for e in r.graph.entities] == ["A"] and "think-block" in codes(r)
    r = parse('<thinking>a</think>("entity"<|>A<|>person<|>x)\n<|COMPLETE|>')  # closer of another name
    assert [e.name for e in r.graph.entities] == ["A"]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["auto", "json", "report"])
def test_open_braces(fmt: str) -> None:
    assert_linear(partial(parse, format=fmt), Repeat("{"), 8_000)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["auto", "json"])
def test_open_brackets_and_braces(fmt: str) -> None:
    assert_linear(partial(parse, format=fmt), Repeat("[{"), 4_000)


def test_broken_json_too_deep_to_repair_is_reported_with_its_own_code() -> None:
    r = parse("{" * 5000, "json")
    assert {"json-too-complex", "json-invalid"} <= codes(r)
    assert r.format_report.records_dropped == 1


def test_shallow_broken_json_is_still_repaired() -> None:
    r = parse('{"entities": [{"name": "A", "type": "t", "description": "d",},]}', "json")
    assert [e.name for e in r.graph.entities] == ["A"] and "json-repaired" in codes(r)


@pytest.mark.slow
def test_many_json_values_in_a_row() -> None:
    assert_linear(partial(parse, format="json"), Repeat('{"name": "A"}'), 200)


@pytest.mark.parametrize("fmt", ["auto", "graphrag", "lightrag", "json", "claims", "report"])
@pytest.mark.parametrize("opener", ["[", "{", '{"a":', '[{"findings":'])
def test_deep_nesting_does_not_raise(fmt: str, opener: str) -> None:
    r = parse(opener * 100_000, fmt)
    assert "internal-error" not in codes(r)


@pytest.mark.slow
def test_long_unclosed_json_string() -> None:
    assert_linear(partial(parse, format="json"), Repeat("x", '{"entities": [{"name": "'), 20_000)


@pytest.mark.slow
def test_record_continued_over_many_lines() -> None:
    # An unclosed record takes the following lines as its description; joining them one by one
    # was quadratic (200k lines: 13 s).
    assert_linear(parse, Repeat("word\n", '("entity"<|>A<|>person<|>'), 2_000)


def test_multi_line_description_is_still_read() -> None:
    r = parse('("entity"<|>A<|>person<|>first line\nsecond line)\n("entity"<|>B<|>person<|>x)\n<|COMPLETE|>')
    assert [(e.name, e.description) for e in r.graph.entities] == [("A", "first line\nsecond line"), ("B", "x")]


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        Repeat(" ", '("entity"<|><', "!<|>person<|>x)"),  # name checked for a placeholder
        Repeat(" ", '("relationship"<|>A<|>B<|>d<|><', "!)"),  # strength checked too
    ],
)
def test_long_run_of_spaces_after_an_angle_bracket(make: Repeat) -> None:
    # `^<\s*[A-Za-z_ ]+\s*>$` backtracked cubically: 2,000 spaces took 3.5 s.
    assert_linear(parse, make, 10_000)


def test_placeholders_are_still_recognised() -> None:
    from harness.parsing.fields import is_placeholder

    assert all(is_placeholder(v) for v in ["<entity_name>", "< entity name >", "<\tsource_entity\t>", "<x>\n", "<  >"])
    assert not any(is_placeholder(v) for v in ["<a\tb>", "<\t>", "<>", "<a-b>", "x<a>", "<a>>"])


@pytest.mark.slow
def test_angle_bracket_then_spaces_before_a_hash() -> None:
    # `<\s*\|?\s*#...` (the LightRAG delimiter's near misses) backtracked quadratically:
    # "<", 200,000 spaces and "#" took 51 s.
    assert_linear(parse, Repeat(" ", "<", "#"), 8_000)


def test_lightrag_delimiter_near_misses_are_still_read() -> None:
    r = parse("entity<#>A<| # |>person<#|>x\n<|COMPLETE|>")
    assert r.format == "lightrag" and [(e.name, e.type) for e in r.graph.entities] == [("A", "person")]
