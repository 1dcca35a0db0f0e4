"""No silent losses (issue 12.4): every record the parser sees is kept or dropped with a reason."""

from __future__ import annotations

from harness.parsing import has_format_errors
from harness.formats.answer import parse

COMPLETE = "<|COMPLETE|>"


def codes(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {i.code for i in result.format_report.issues}


def test_two_fenced_json_blocks_with_prose_between() -> None:
    text = (
        "Here are the entities:\n"
        "```json\n"
        '{"entities": [{"name": "ALPHA", "type": "person", "description": "A pilot"}]}\n'
        "```\n"
        "And here are the relationships:\n"
        "```json\n"
        '{"relationships": [{"source": "ALPHA", "target": "BETA", "description": "Flies for", "strength": 7}]}\n'
        "```\n"
    )
    r = parse(text)
    assert r.format == "json"
    assert [e.name for e in r.graph.entities] == ["ALPHA"]
    assert [(x.source, x.target, x.strength) for x in r.graph.relationships] == [("ALPHA", "BETA", 7.0)]
    assert "closing-note" not in codes(r)
    assert {"json-multiple", "interleaved-prose"} <= codes(r)


def test_broken_second_json_block_is_repaired_not_a_closing_note() -> None:
    text = (
        '{"entities": [{"name": "ALPHA", "type": "person", "description": "A pilot"}]}\n'
        "And the relationships:\n"
        '{"relationships": [{"source": "ALPHA", "target": "BETA", "description": "Flies for", "strength": 7'
        "\n\nThat is all."
    )
    r = parse(text, "json")
    assert [e.name for e in r.graph.entities] == ["ALPHA"]
    assert [(x.source, x.target) for x in r.graph.relationships] == [("ALPHA", "BETA")]
    assert "json-truncated" in codes(r) and r.format_report.completion == "missing"
    assert has_format_errors(r)


def test_closing_prose_after_json_is_still_a_closing_note() -> None:
    r = parse('[{"name": "ALPHA", "type": "person", "description": "x"}]\nI hope this helps (see [1]).')
    assert [e.name for e in r.graph.entities] == ["ALPHA"]
    assert "closing-note" in codes(r) and r.format_report.records_dropped == 0


def test_bold_bullet_entity_after_the_records_is_a_dropped_prose_record() -> None:
    text = (
        '("entity"<|>ALPHA<|>person<|>A pilot)##\n'
        '("entity"<|>BETA<|>organization<|>An airline)\n'
        "- **GAMMA** (organization): A rival airline that competes with Beta.\n"
        f"{COMPLETE}"
    )
    r = parse(text)
    assert [e.name for e in r.graph.entities] == ["ALPHA", "BETA"]
    dropped = [i for i in r.format_report.issues if i.dropped]
    assert [i.code for i in dropped] == ["prose-record"] and "GAMMA" in dropped[0].excerpt
    assert "closing-note" not in codes(r)
    assert r.format_report.records_seen == 3 and r.format_report.records_dropped == 1


def test_plain_closing_note_is_not_a_prose_record() -> None:
    text = '("entity"<|>ALPHA<|>person<|>A pilot)\n- Note: I could not find more entities.\n' + COMPLETE
    r = parse(text)
    assert "closing-note" in codes(r) and r.format_report.records_dropped == 0


def test_lightrag_relation_with_four_fields_is_dropped_with_a_reason() -> None:
    text = (
        "entity<|#|>ALPHA<|#|>person<|#|>A pilot\n"
        "entity<|#|>BETA<|#|>organization<|#|>An airline\n"
        "relation<|#|>ALPHA<|#|>BETA<|#|>Alpha flies for Beta\n"
        f"{COMPLETE}"
    )
    r = parse(text)
    assert r.format == "lightrag"
    assert r.graph.relationships == []
    dropped = [i for i in r.format_report.issues if i.dropped]
    assert [i.code for i in dropped] == ["too-few-fields"]
    assert r.format_report.records_seen == 3 and r.format_report.records_parsed == 2


def test_lightrag_relation_with_five_fields_is_kept() -> None:
    r = parse("relation<|#|>ALPHA<|#|>BETA<|#|>employment<|#|>Alpha flies for Beta\n" + COMPLETE)
    assert [(x.source, x.target, x.keywords, x.description) for x in r.graph.relationships] == [
        ("ALPHA", "BETA", "employment", "Alpha flies for Beta")
    ]
    assert r.format_report.records_dropped == 0


def test_bare_completion_delimiter_is_a_valid_empty_extraction() -> None:
    r = parse(COMPLETE)
    assert codes(r) == {"empty-extraction"}
    assert not has_format_errors(r)


def test_graphrag_quoted_tuples_with_the_delimiter_inside_a_description() -> None:
    text = (
        '("entity"<|>"ALPHA"<|>"person"<|>"A pilot")##\n'
        '("relationship"<|>"ALPHA"<|>"BETA"<|>"Alpha joined Beta<|>in 2019"<|>8)##\n'
        '("relationship"<|>"BETA"<|>"ALPHA"<|>"Beta employs Alpha<|>for 3 years"<|>6)\n'
        f"{COMPLETE}"
    )
    r = parse(text)
    assert r.format == "graphrag"
    assert [(x.source, x.target, x.description, x.strength, x.keywords) for x in r.graph.relationships] == [
        ("ALPHA", "BETA", "Alpha joined Beta<|>in 2019", 8.0, ""),
        ("BETA", "ALPHA", "Beta employs Alpha<|>for 3 years", 6.0, ""),
    ]


def test_nul_characters_do_not_leak_into_excerpts() -> None:
    text = 'Sure\x00 here:\n("entity"<|><|>person<|>x\x00y)\n("entity"<|>A\x00<|>person<|>z)\nBye\x00' + COMPLETE
    r = parse(text)
    assert r.format_report.issues
    assert all("\x00" not in i.excerpt for i in r.format_report.issues)


def test_unreadable_later_json_value_is_a_counted_drop() -> None:
    tail = '\nAnd more: {"relationships": ' + "[" * 300 + '"x" :'
    for fmt, first in (("json", '[{"name": "A", "type": "t", "description": "d"}]'),
                       ("report", '{"title": "T", "summary": "S", "rating": 1, "rating_explanation": "r", "findings": []}')):
        fr = parse(first + tail, fmt).format_report
        assert [i.code for i in fr.issues if i.dropped] == ["json-invalid"], fmt
        assert (fr.records_seen, fr.records_parsed, fr.records_dropped) == (2, 1, 1), fmt
