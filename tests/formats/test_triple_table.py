"""Markdown tables of triples: header synonyms, type columns, short rows, prose around."""

from __future__ import annotations



from .cli_parse import parse_json
from harness.formats import detect_format
from harness.formats.answer import parse

TABLE = """Here is the table:

| **Head** | Head type | Relation | Tail | Tail_Type |
|---|---|:---:|---|---|
| Philz | organization | founded in | Berkeley | location |
| Philz | organization | sells |
| Phil Jaber | person | founded | Philz |
| Philz | | employs |  | person |

Note: the last row has no tail.
"""


def test_rows_become_typed_triples_and_short_or_empty_rows_are_dropped() -> None:
    result = parse(TABLE)
    assert result.format == "triple_table"
    assert [(r.source, r.type, r.target) for r in result.graph.relationships] == [
        ("Philz", "founded in", "Berkeley"), ("Phil Jaber", "founded", "Philz")]
    # "| Phil Jaber | person | founded | Philz |" has 4 cells: its tail (column 4) is there, only
    # the optional tail type is missing, so it is kept; "| Philz | organization | sells |" has 3,
    # one short of the tail: dropped
    assert [(e.name, e.type) for e in result.graph.entities] == [
        ("Philz", "organization"), ("Berkeley", "location"), ("Phil Jaber", "person")]
    report = result.format_report
    assert [(i.code, i.excerpt) for i in report.issues if i.dropped] == [
        ("triple-parts", "| Philz | organization | sells |"),
        ("triple-part-empty", "| Philz | | employs |  | person |"),
    ]
    # 4 rows seen, 2 read, 2 dropped
    assert (report.records_seen, report.records_parsed, report.records_dropped) == (4, 2, 2)
    assert [i.code for i in report.issues if not i.dropped] == ["note-paragraph", "preamble"]


def test_detection_needs_a_subject_predicate_object_header() -> None:
    assert detect_format("| subject | predicate | object |\n|---|---|---|\n| A | p | B |") == "triple_table"
    # a GraphRAG answer written as a table of relationships (source/target) is not a triple table
    assert detect_format("| source | target | relationship | strength |\n|--|--|--|--|\n| A | B | x | 5 |") == "graphrag"
    assert detect_format("| entity | type | description |\n|--|--|--|\n| A | person | x |") == "graphrag"


def test_harness_parse_reads_the_fixture(tmp_path) -> None:
    data = parse_json(tmp_path, "answer.md", TABLE, exit_code=1)  # two rows dropped: format errors
    assert data["format"] == "triple_table" and len(data["relationships"]) == 2
