"""The `map_points` format: a global-search map answer, one record a point; the shape is flagged
with the query-phase codes `harness parse --format map` uses; it is never guessed."""

from __future__ import annotations

import json

from harness.formats import detect_format, get_format
from harness.formats.answer import parse
from harness.parsing.codes import is_error
from harness.prompts.examples import Example, ExampleEntity


def read(answer: str) -> tuple[int, int, list[str], str]:
    report = parse(answer, "map_points").format_report
    return report.records_seen, report.records_parsed, [i.code for i in report.issues], report.completion


def test_a_points_object_is_one_record_a_point_and_builds_no_graph() -> None:
    answer = '{"points": [{"description": "A [Data: Reports (1)]", "score": 80}, {"description": "B", "score": 0}]}'
    assert read(answer) == (2, 2, [], "present")
    assert parse(answer, "map_points").graph.entities == []


def test_fences_and_a_numeric_string_score_are_read_a_score_out_of_range_is_flagged_and_kept() -> None:
    answer = '```json\n{"points": [{"description": "A", "score": "70"}, {"description": "B", "score": 140}]}\n```'
    seen, parsed, codes, _ = read(answer)
    assert (seen, parsed) == (2, 2) and codes == ["fence-stripped", "query-score-range"]
    assert not is_error("query-score-range")


def test_points_graphrag_would_skip_are_dropped() -> None:
    # GraphRAG keeps points with both "description" and "score": here 1 of 4
    answer = json.dumps({"points": [{"description": "A", "score": 10}, {"description": "B"},
                                    {"score": 5}, "C"]})
    seen, parsed, codes, _ = read(answer)
    assert (seen, parsed) == (4, 1)
    assert codes == ["query-missing-field", "query-missing-field", "query-field-type"]


def test_no_points_list_and_no_json() -> None:
    assert read('{"answer": "A", "score": 50}')[:3] == (1, 0, ["query-missing-field"])
    assert read('{"points": "A"}')[:3] == (1, 0, ["query-field-type"])
    seen, parsed, codes, _ = read("I do not know.")
    assert (seen, parsed) == (1, 0) and "json-invalid" in codes


def test_a_cut_off_answer_is_incomplete() -> None:
    _, parsed, codes, completion = read('{"points": [{"description": "A", "score": 80}, {"description": "B", "sc')
    assert completion == "missing" and "json-truncated" in codes and parsed >= 1


def test_it_is_never_guessed_and_writes_examples_as_points() -> None:
    assert detect_format('{"points": [{"description": "A", "score": 80}]}') != "map_points"
    example = Example(text="t", entities=[ExampleEntity(name="A", type="x", description="A leads")])
    written = get_format("map_points").write_example(example, get_format("map_points").default_delimiters())
    assert json.loads(written) == {"points": [{"description": "A leads", "score": 50}]}


def test_a_further_value_that_cannot_be_read_is_a_seen_record_too() -> None:
    # '{}' is read, then '0[0{"0":' cannot be: two records are dropped (the lost value and the
    # missing points list), so two were seen (it was one, and parsed + dropped exceeded seen)
    report = parse('{}0[0{"0":', "map_points").format_report
    assert report.records_dropped == 2
    assert report.records_parsed + report.records_dropped <= report.records_seen == 2
