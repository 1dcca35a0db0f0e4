"""Broken JSON repaired a piece at a time (issue 28.10: a 96 KB answer of unquoted keys took 102 s
in json_repair): short texts exactly as json_repair repairs them whole, long ones member by member,
with work that grows with the text (counted in instructions, never timed)."""

from __future__ import annotations

import functools
import random

import json_repair
import pytest

from harness.formats.answer import parse
from harness.parsing.json_pieces import repair_value
from tests.support.growth import assert_linear


def unquoted(n: int) -> str:
    return "[" + ", ".join('{name: "A%d", type: PERSON, description: "d, e: f"}' % i for i in range(n)) + "]"


@pytest.mark.parametrize("text", ["{name: A1}", "[{a: 1} {b: 2}]", "{'a': 'x, y'}", "[1, 2", '{"a": [1, {"b": 2}', "[]",
                                  "{}", "not json"])
def test_a_short_text_is_repaired_whole(text: str) -> None:
    assert repair_value(text, 4096) == json_repair.loads(text)


@pytest.mark.parametrize("n", [40, 120])
def test_a_long_array_is_repaired_as_json_repair_repairs_it_whole(n: int) -> None:
    text = unquoted(n)
    assert len(text) > 256
    assert repair_value(text, 256) == json_repair.loads(text)


def test_a_wide_object_and_a_long_member_are_cut_too() -> None:
    wide = "{" + ", ".join(f"key{i}: value{i}" for i in range(200)) + "}"
    assert repair_value(wide, 128) == json_repair.loads(wide)
    nested = '{"entities": ' + unquoted(50) + ', relationships: [{source: A1, target: A2}]}'
    assert repair_value(nested, 128) == json_repair.loads(nested)


def test_members_are_cut_where_a_comma_is_missing_and_strings_hold_commas() -> None:
    text = '[{"name": "A, B"} {"name": "C"}, ' + ", ".join('{"name": "X%d"}' % i for i in range(30)) + "]"
    assert [item["name"] for item in repair_value(text, 64)][:3] == ["A, B", "C", "X0"]


def test_a_long_cut_off_answer_keeps_what_came_before_the_cut() -> None:
    text = unquoted(100)[:-30]
    items = repair_value(text, 256)
    assert [item["name"] for item in items[:99]] == [f"A{i}" for i in range(99)]


def test_random_broken_arrays_read_the_same_names_in_pieces() -> None:
    """Over shapes models break JSON into, the pieces read every name the whole repair reads."""
    rng = random.Random(11)
    shapes = ['{"name": "A%d", "type": "person"}', "{name: 'A%d', type: person}", '{"name": "A%d" "type": "x"}',
              '{"name": "A%d", "d": "a, b: c"}', '{"name": "A%d", "rel": [1, 2, {"x": 3}]}']
    for _ in range(100):
        text = "[" + rng.choice([", ", ",", "\n"]).join(rng.choice(shapes) % i for i in range(rng.randint(5, 40))) + "]"
        whole, pieces = json_repair.loads(text), repair_value(text, rng.choice([64, 128]))
        assert [x.get("name") for x in pieces] == [x.get("name") for x in whole], text


def test_a_long_answer_of_unquoted_keys_is_parsed_into_its_entities() -> None:
    result = parse(unquoted(3000), "json")
    assert len(result.graph.entities) == 3000
    assert "json-repaired" in {issue.code for issue in result.format_report.issues}


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["{name: A%d, type: PERSON}", "{'name': A%d, type: 'PERSON'}", "{name: A%d type: P}"])
def test_repair_work_grows_with_the_text(shape: str) -> None:
    assert_linear(functools.partial(parse, format="json"), functools.partial(shaped, shape), 1_600)


def shaped(shape: str, n: int) -> str:
    return "[" + ", ".join(shape % i for i in range(n)) + "]"
