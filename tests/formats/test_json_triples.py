"""JSON triples: lists of three, subject/predicate/object objects, LlamaIndex's dynamic and
schema extractors' shapes; every item that is not a triple reported."""

from __future__ import annotations


import pytest

from .cli_parse import parse_json
from harness.formats import detect_format
from harness.formats.answer import parse

LISTS = '[["Philz", "founded in", "Berkeley"], ["Philz", "sells"], ["Philz", "founded by", "Phil Jaber"]]'
OBJECTS = ('[{"subject": "Philz", "predicate": "founded in", "object": "Berkeley"},\n'
           ' {"subject": "Philz", "relation": "sells", "object": "coffee"}, {"note": "x"}]')
# DynamicLLMPathExtractor's output, written the Python way its own regex parser expects
DYNAMIC = ("[{'head': 'Philz', 'head_type': 'ORGANIZATION', 'relation': 'FOUNDED_IN', 'tail': 'Berkeley', 'tail_type': 'LOCATION'},\n"
           " {'head': 'Philz', 'head_type': 'ORGANIZATION', 'head_props': {'kind': 'cafe'}, 'relation': 'FOUNDED_BY',"
           " 'relation_props': {}, 'tail': 'Phil Jaber', 'tail_type': 'PERSON', 'tail_props': {}}]")
SCHEMA = ('{"triplets": [{"subject": {"name": "Philz", "type": "ORGANIZATION"}, "relation": {"type": "FOUNDED_IN"},'
          ' "object": {"name": "Berkeley", "type": "LOCATION"}},'
          ' {"subject": {"name": "Philz", "type": "ORGANIZATION"}, "relation": {"type": "SELLS"}, "object": {"name": ""}}]}')


@pytest.mark.parametrize(
    ("answer", "triples", "entities", "dropped"),
    [
        # 3 lists, the 2-part one dropped; entities Philz, Berkeley, Phil Jaber
        (LISTS, [("Philz", "founded in", "Berkeley"), ("Philz", "founded by", "Phil Jaber")],
         [("Philz", ""), ("Berkeley", ""), ("Phil Jaber", "")], ["triple-parts"]),
        # predicate or relation; the item with neither subject, predicate nor object dropped
        (OBJECTS, [("Philz", "founded in", "Berkeley"), ("Philz", "sells", "coffee")],
         [("Philz", ""), ("Berkeley", ""), ("coffee", "")], ["json-item-invalid"]),
        # types from head_type/tail_type; *_props ignored
        (DYNAMIC, [("Philz", "FOUNDED_IN", "Berkeley"), ("Philz", "FOUNDED_BY", "Phil Jaber")],
         [("Philz", "ORGANIZATION"), ("Berkeley", "LOCATION"), ("Phil Jaber", "PERSON")], []),
        # nodes with name and type, relation {"type"}; an empty object drops its triple
        (SCHEMA, [("Philz", "FOUNDED_IN", "Berkeley")],
         [("Philz", "ORGANIZATION"), ("Berkeley", "LOCATION")], ["triple-part-empty"]),
    ],
    ids=["lists", "objects", "dynamic", "schema"],
)
def test_each_shape(answer: str, triples: list[tuple[str, str, str]], entities: list[tuple[str, str]], dropped: list[str]) -> None:
    assert detect_format(answer) == "json_triples"
    result = parse(answer)
    assert result.format == "json_triples"
    assert [(r.source, r.type, r.target) for r in result.graph.relationships] == triples
    assert [(e.name, e.type) for e in result.graph.entities] == entities
    report = result.format_report
    assert [i.code for i in report.issues if i.dropped] == dropped
    assert (report.records_seen, report.records_parsed, report.records_dropped) == (
        len(triples) + len(dropped), len(triples), len(dropped))


def test_an_empty_list_says_no_triples_and_broken_json_is_reported() -> None:
    for empty in ('{"triplets": []}', "[]"):
        codes = [i.code for i in parse(empty, "json_triples").format_report.issues]
        assert codes == ["no-triples"], empty
    broken = parse("[[\"Philz\", \"founded in\", \"Berk", "json_triples")
    assert [r.target for r in broken.graph.relationships] == ["Berk"]  # repaired, cut off
    assert broken.format_report.completion == "missing"


def test_prose_and_notes_around_the_json() -> None:
    answer = 'Here are the triples:\n```json\n' + LISTS + '\n```\nNote: one triple lacked an object.'
    codes = [i.code for i in parse(answer).format_report.issues if not i.dropped]
    assert codes == ["fence-stripped", "preamble", "note-paragraph"]


def test_json_graphs_stay_json() -> None:
    assert detect_format('{"entities": [{"name": "A"}], "relationships": [{"source": "A", "target": "B", "relation": "x"}]}') == "json"
    assert detect_format('[{"source": "A", "target": "B", "description": "x"}]') == "json"
    assert detect_format('{"nodes": [], "edges": [{"subject": "A", "predicate": "p", "object": "B"}]}') == "json"


def test_harness_parse_reads_the_fixture(tmp_path) -> None:
    data = parse_json(tmp_path, "answer.json", DYNAMIC)
    assert data["format"] == "json_triples"
    assert [e["type"] for e in data["entities"]] == ["ORGANIZATION", "LOCATION", "PERSON"]
    assert [r["type"] for r in data["relationships"]] == ["FOUNDED_IN", "FOUNDED_BY"]
