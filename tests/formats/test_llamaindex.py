"""LlamaIndex's `(subject, predicate, object)` lines (KG_TRIPLET_EXTRACT_TMPL): what a person
sees is read, what LlamaIndex's own parser would lose is noted, every unreadable line is reported."""

from __future__ import annotations


from typer.testing import CliRunner

from harness.cli import app

from .cli_parse import parse_json
from harness.formats import detect_format
from harness.formats.answer import parse

ANSWER = """Triplets:
(Philz, is, coffee shop)
1. (Philz, founded in, Berkeley)
- ("Philz", "founded in", "1982")
* (Phil Jaber, founded, "Philz Coffee, Inc.")
(Philz, located in, Berkeley, California)
(Philz, Berkeley)
(Philz, , Berkeley)
(Philz, sells, coffee (and tea))
(Berkeley, is in, California), (California, is in, USA)

Note: dates are approximate.
"""


def test_every_shape_is_read_and_every_unreadable_line_reported() -> None:
    result = parse(ANSWER)
    assert result.format == "llamaindex"
    rels = [(r.source, r.type, r.target) for r in result.graph.relationships]
    assert rels == [
        ("Philz", "is", "coffee shop"),
        ("Philz", "founded in", "Berkeley"),  # numbered
        ("Philz", "founded in", "1982"),  # bulleted, quoted
        ("Phil Jaber", "founded", "Philz Coffee, Inc."),  # a comma inside quotes
        ("Philz", "sells", "coffee (and tea)"),  # brackets inside a part
        ("Berkeley", "is in", "California"),  # two triples on one line
        ("California", "is in", "USA"),
    ]
    # distinct subjects and objects: Philz, coffee shop, Berkeley, 1982, Phil Jaber,
    # Philz Coffee Inc., coffee (and tea), California, USA = 9
    assert len(result.graph.entities) == 9
    report = result.format_report
    # 10 triples seen (the last line holds two), 7 read, 3 dropped
    assert (report.records_seen, report.records_parsed, report.records_dropped) == (10, 7, 3)
    dropped = [(i.code, i.excerpt) for i in report.issues if i.dropped]
    assert dropped == [
        ("triple-parts", "(Philz, located in, Berkeley, California)"),  # 4 parts: ambiguous
        ("triple-parts", "(Philz, Berkeley)"),  # 2 parts
        ("triple-part-empty", "(Philz, , Berkeley)"),
    ]
    kept = {i.code: i.message for i in report.issues if not i.dropped}
    assert set(kept) == {"markdown-decoration", "triple-recovered", "preamble", "note-paragraph"}
    # LlamaIndex would lose the quoted comma, misread the brackets and keep one triple of the last line
    assert "(3 times)" in kept["triple-recovered"]
    assert "(3 times)" in kept["markdown-decoration"]
    assert report.completion == "present"


def test_a_part_over_128_bytes_is_kept_and_noted_as_lost_by_llamaindex() -> None:
    long_object = "é" * 65  # 130 bytes in UTF-8 (2 per letter): LlamaIndex's limit is 128
    result = parse(f"(Philz, sells, {long_object})", "llamaindex")
    assert [r.target for r in result.graph.relationships] == [long_object]
    assert [i.code for i in result.format_report.issues] == ["triple-recovered"]
    # LlamaIndex measures a part before stripping it: " " + 127 letters is 128 bytes and kept,
    # " " + 128 letters is 129 bytes and dropped (by it; read here, and noted)
    assert parse("(Philz, sells, " + "e" * 127 + ")", "llamaindex").format_report.issues == []
    noted = parse("(Philz, sells, " + "e" * 128 + ")", "llamaindex").format_report.issues
    assert [i.code for i in noted] == ["triple-recovered"]


def test_a_parenthesised_aside_is_prose_not_a_dropped_triple() -> None:
    result = parse("(Philz, founded in, Berkeley)\n(Dates are approximate.)", "llamaindex")
    assert [i.code for i in result.format_report.issues] == ["closing-note"]


def test_a_graphrag_record_written_with_commas_is_not_a_triple() -> None:
    result = parse('("entity", "Philz", "organization", "A coffee company")', "llamaindex")
    assert result.graph.relationships == []
    assert [i.code for i in result.format_report.issues] == ["no-records"]


def test_an_answer_cut_off_inside_its_last_triple_is_incomplete() -> None:
    result = parse("(Philz, is, coffee shop)\n(Philz, founded in, Berk", "llamaindex")
    assert [r.target for r in result.graph.relationships] == ["coffee shop", "Berk"]
    assert result.format_report.completion == "missing"


def test_no_triples_answer_is_a_valid_empty_extraction() -> None:
    result = parse("There are no triplets in this text.")  # auto: no rule matches, read as graphrag
    assert "no-records" in [i.code for i in result.format_report.issues]
    asked = parse("There are no triplets in this text.", "llamaindex")
    assert [i.code for i in asked.format_report.issues] == ["no-triples"]


def test_detection() -> None:
    assert detect_format("(Philz, founded in, Berkeley)") == "llamaindex"
    assert detect_format("Triplets:\n1. (Philz, founded in, Berkeley)") == "llamaindex"
    assert detect_format("Philz (a coffee company) was founded in Berkeley, California, in 1982.") == "graphrag"


def test_harness_parse_reads_the_fixture(tmp_path) -> None:
    data = parse_json(tmp_path, "answer.txt", ANSWER, exit_code=1)  # dropped triples are format errors
    assert data["format"] == "llamaindex"
    assert len(data["relationships"]) == 7 and data["format_report"]["records_dropped"] == 3
    assert data["relationships"][0] == {"source": "Philz", "target": "coffee shop", "description": "",
                                        "strength": None, "keywords": "", "type": "is"}


def test_a_llamaindex_style_prompt_lints_clean(tmp_path) -> None:
    # LlamaIndex's KG_TRIPLET_EXTRACT_TMPL uses the text only: no entity types, no language
    prompt = tmp_path / "kg.txt"
    prompt.write_text("Extract up to 10 knowledge triplets in the form of (subject, predicate, object).\n"
                      "Text: Alice is Bob's mother.\nTriplets:\n(Alice, is mother of, Bob)\n"
                      "Text: {input_text}\nTriplets:\n", encoding="utf-8")
    out = CliRunner().invoke(app, ["prompts", "lint", str(prompt), "--format", "llamaindex"])
    assert out.exit_code == 0, out.output
    assert "0 error(s), 0 warning(s)" in out.output
