"""Each supported output format, written by hand, parsed explicitly and auto-detected."""

from __future__ import annotations

import json

import pytest

from harness.parsing import has_format_errors, parse_result_to_json
from harness.formats import detect_format
from harness.formats.answer import parse


def codes(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {i.code for i in result.format_report.issues}


# --------------------------------------------------------------------------- LightRAG

LIGHTRAG_NEW = (
    "entity<|#|>Aldermoor Trust<|#|>organization<|#|>A charity that restores canal boats.\n"
    "entity<|#|>Pell Wharf<|#|>location<|#|>The yard where the trust works.\n"
    "relation<|#|>Aldermoor Trust<|#|>Pell Wharf<|#|>restoration, workplace<|#|>The trust restores boats there.\n"
    "<|COMPLETE|>"
)


@pytest.mark.parametrize("fmt", ["auto", "lightrag"])
def test_lightrag_new_format(fmt: str) -> None:
    r = parse(LIGHTRAG_NEW, fmt)
    assert r.format == "lightrag"
    assert [(e.name, e.type) for e in r.graph.entities] == [("Aldermoor Trust", "organization"), ("Pell Wharf", "location")]
    rel = r.graph.relationships[0]
    assert (rel.source, rel.target, rel.keywords, rel.description, rel.strength) == (
        "Aldermoor Trust", "Pell Wharf", "restoration, workplace", "The trust restores boats there.", None,
    )
    fr = r.format_report
    assert (fr.records_seen, fr.records_parsed, fr.records_dropped, fr.completion) == (3, 3, 0, "present")
    assert not has_format_errors(r)


def test_lightrag_new_with_malformed_delimiters_and_bullets() -> None:
    text = "- entity<|#>Pell Wharf<#|>location<|#|>A yard\n2. relation<|#|>A<|#|>B<|#|>kw<|#|>desc\n<|COMPLETE|>"
    r = parse(text)
    assert r.format == "lightrag"
    assert [e.name for e in r.graph.entities] == ["Pell Wharf"]
    assert [(x.source, x.target, x.keywords) for x in r.graph.relationships] == [("A", "B", "kw")]
    assert "delimiter-inferred" in codes(r)


def test_lightrag_old_six_field_relationships() -> None:
    text = (
        '("entity"<|>"Aldermoor Trust"<|>"organization"<|>"A charity.")##\n'
        '("relationship"<|>"Aldermoor Trust"<|>"Pell Wharf"<|>"Restores boats there."<|>"restoration, canal"<|>8)##\n'
        '("content_keywords"<|>"canal restoration, charity")<|COMPLETE|>'
    )
    r = parse(text)
    assert r.format == "lightrag"
    rel = r.graph.relationships[0]
    assert (rel.description, rel.keywords, rel.strength) == ("Restores boats there.", "restoration, canal", 8.0)
    assert r.format_report.records_seen == 3 and r.format_report.records_parsed == 3
    assert "content-keywords" in codes(r)


def test_lightrag_old_layout_detected_without_keywords_record() -> None:
    text = "\n".join(
        f'("relationship"<|>A{i}<|>B{i}<|>desc {i}<|>kw{i}<|>{i})' for i in range(1, 4)
    )
    r = parse(text, "lightrag")
    assert [(x.description, x.keywords, x.strength) for x in r.graph.relationships][0] == ("desc 1", "kw1", 1.0)


# --------------------------------------------------------------------------- JSON

def test_graphrag_json_template() -> None:
    text = json.dumps(
        [
            {"name": "ALDER BANK", "type": "organization", "description": "A lender"},
            {"source": "ALDER BANK", "target": "NORA VANCE", "relationship": "Employs her", "relationship_strength": 7},
        ]
    )
    r = parse(text)
    assert r.format == "json"
    assert [(e.name, e.type, e.description) for e in r.graph.entities] == [("ALDER BANK", "organization", "A lender")]
    assert [(x.source, x.target, x.description, x.strength) for x in r.graph.relationships] == [
        ("ALDER BANK", "NORA VANCE", "Employs her", 7.0)
    ]
    assert r.format_report.completion == "present"
    assert r.format_report.issues == []


def test_lightrag_json_mode_in_fence_with_prose_and_trailing_commas() -> None:
    text = (
        "Here is the JSON:\n```json\n"
        '{"entities": [{"entity_name": "Alder Bank", "entity_type": "organization", "entity_description": "A lender",},],\n'
        ' "relationships": [{"source_entity": "Alder Bank", "target_entity": "Nora Vance",'
        ' "relationship_description": "Employs her", "relationship_keywords": ["employment", "bank"],'
        ' "relationship_strength": "8"}],\n'
        ' "content_keywords": ["banking"]}\n```\nHope this helps.'
    )
    r = parse(text)
    assert r.format == "json"
    assert [e.name for e in r.graph.entities] == ["Alder Bank"]
    rel = r.graph.relationships[0]
    assert (rel.description, rel.keywords, rel.strength) == ("Employs her", "employment, bank", 8.0)
    assert {"fence-stripped", "json-repaired", "preamble", "closing-note"} <= codes(r)


def test_json_single_quotes() -> None:
    r = parse("{'entities': [{'name': 'A', 'type': 'person', 'description': 'x'}], 'relationships': []}")
    assert [e.name for e in r.graph.entities] == ["A"]
    assert "json-repaired" in codes(r)


def test_json_truncated_is_repaired_and_marked_incomplete() -> None:
    text = '{"entities": [{"name": "A", "type": "person", "description": "x"}, {"name": "B", "type": "pe'
    r = parse(text, "json")
    assert [e.name for e in r.graph.entities][:1] == ["A"]
    assert "json-truncated" in codes(r)
    assert r.format_report.completion == "missing"


def test_json_garbage_is_dropped_with_reason() -> None:
    r = parse("no json at all", "json")
    assert r.format_report.records_dropped == 1
    assert [i.code for i in r.format_report.issues if i.dropped] == ["json-invalid"]


def test_json_items_that_are_neither_kind_are_dropped() -> None:
    r = parse('[{"name": "A"}, 42, "text"]', "json")
    assert [e.name for e in r.graph.entities] == ["A"]
    assert r.format_report.records_seen == 3 and r.format_report.records_dropped == 2


def test_json_answers_glued_together() -> None:
    r = parse('[{"name": "A", "type": "t"}]\n[{"name": "B", "type": "t"}]', "json")
    assert [e.name for e in r.graph.entities] == ["A", "B"]
    assert "json-multiple" in codes(r)


# --------------------------------------------------------------------------- claims

CLAIMS = (
    "(COMPANY A<|>GOVERNMENT AGENCY B<|>ANTI-COMPETITIVE PRACTICES<|>TRUE<|>2022-01-10T00:00:00<|>"
    "2022-01-10T00:00:00<|>Company A was fined for bid rigging<|>The agency fined Company A on 10 January.)\n##\n"
    "(PERSON C<|>NONE<|>FRAUD<|>suspected<|>NONE<|>NONE<|>Suspected of fraud<|>Quote here)\n<|COMPLETE|>"
)


@pytest.mark.parametrize("fmt", ["auto", "claims"])
def test_claims(fmt: str) -> None:
    r = parse(CLAIMS, fmt)
    assert r.format == "claims"
    a, b = r.graph.claims
    assert (a.subject, a.object, a.type, a.status) == ("COMPANY A", "GOVERNMENT AGENCY B", "ANTI-COMPETITIVE PRACTICES", "TRUE")
    assert (a.start_date, a.end_date) == ("2022-01-10T00:00:00", "2022-01-10T00:00:00")
    assert a.source_text == "The agency fined Company A on 10 January."
    assert (b.status, b.start_date, b.end_date) == ("SUSPECTED", None, None)
    assert r.format_report.completion == "present"
    assert r.format_report.issues == []


def test_claims_out_of_format() -> None:
    text = "(PERSON C<|>NONE<|>BRIBERY<|>MAYBE<|>last year<|>NONE<|>Desc with <|> inside<|>Quote)\n(X<|>Y)"
    r = parse(text, "claims")
    (c,) = r.graph.claims
    assert c.description == "Desc with <|> inside" and c.source_text == "Quote"
    assert c.start_date == "last year"
    assert {"claim-fields", "claim-status-invalid", "claim-date-invalid"} <= codes(r)
    assert r.format_report.records_dropped == 1


# --------------------------------------------------------------------------- community reports

def _report(findings: int = 5, **over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "title": "Harbour Council and Ferry Line",
        "summary": "The council governs the harbour [Data: Entities (1, 2)].",
        "rating": 6.5,
        "rating_explanation": "Moderate local impact.",
        "findings": [
            {"summary": f"Finding {i}", "explanation": f"Explained [Data: Relationships ({i})]."} for i in range(findings)
        ],
    }
    base.update(over)
    return base


def test_report_clean() -> None:
    r = parse(json.dumps(_report()))
    assert r.format == "report"
    rep = r.graph.report
    assert rep is not None and rep.title == "Harbour Council and Ferry Line" and rep.rating == 6.5
    assert len(rep.findings) == 5 and rep.findings[0].explanation.startswith("Explained")
    fr = r.format_report
    assert (fr.records_seen, fr.records_parsed, fr.completion, fr.issues) == (1, 1, "present", [])
    assert not has_format_errors(r)


def test_report_in_fence_with_prose_and_string_rating() -> None:
    text = "Sure, here is the report:\n```json\n" + json.dumps(_report(rating="7")) + "\n```\n"
    r = parse(text, "report")
    assert r.graph.report is not None and r.graph.report.rating == 7.0
    assert {"fence-stripped", "preamble", "report-field-type"} <= codes(r)


def test_report_schema_problems_are_reported() -> None:
    r = parse(json.dumps(_report(findings=2, rating=12)), "report")
    assert {"report-findings-count", "report-rating-range"} <= codes(r)
    # The report is still read (nothing dropped), but a schema violation is a format error.
    assert r.graph.report is not None and r.format_report.records_parsed == 1
    assert has_format_errors(r)


def test_report_truncated() -> None:
    text = json.dumps(_report())[:-60]
    r = parse(text, "report")
    assert r.graph.report is not None and r.graph.report.title
    assert "json-truncated" in codes(r) and r.format_report.completion == "missing"


def test_report_not_json() -> None:
    r = parse("The community is about ferries.", "report")
    assert r.graph.report is None
    assert r.format_report.records_dropped == 1
    assert has_format_errors(r)


# --------------------------------------------------------------------------- detection and output

@pytest.mark.parametrize(
    "text,expected",
    [
        ('("entity"<|>A<|>person<|>x)', "graphrag"),
        ("entity<|#|>A<|#|>person<|#|>x", "lightrag"),
        ('("entity"<|>A<|>t<|>x)##("content_keywords"<|>k)', "lightrag"),
        ('[{"name": "A"}]', "json"),
        ('{"title": "T", "findings": []}', "report"),
        ("(A<|>B<|>FRAUD<|>TRUE<|>NONE<|>NONE<|>d<|>s)", "claims"),
        ("just prose", "graphrag"),
    ],
)
def test_detect_format(text: str, expected: str) -> None:
    assert detect_format(text) == expected
    assert parse(text).format == expected


def test_parse_result_to_json_shape() -> None:
    r = parse('("entity"<|>A<|>person<|>x)##\n("relationship"<|>A<|>B<|>y<|>5)\n<|COMPLETE|>')
    out = parse_result_to_json(r)
    assert list(out) == ["format", "entities", "relationships", "claims", "report", "format_report"]
    assert out["entities"] == [{"name": "A", "type": "person", "description": "x"}]
    assert out["relationships"] == [{"source": "A", "target": "B", "description": "y", "strength": 5.0, "keywords": ""}]
    assert out["report"] is None
    assert list(out["format_report"]) == ["records_seen", "records_parsed", "records_dropped", "completion", "issues"]
    json.dumps(out)


def test_parse_result_to_json_issue_shape() -> None:
    out = parse_result_to_json(parse('("entity")'))
    assert out["format_report"]["issues"]
    assert all(list(i) == ["code", "message", "excerpt"] for i in out["format_report"]["issues"])


def test_has_format_errors() -> None:
    assert not has_format_errors(parse('("entity"<|>A<|>person<|>x)\n<|COMPLETE|>'))
    assert has_format_errors(parse('("entity"<|>A<|>person<|>x)'))  # completion missing
    assert has_format_errors(parse('("entity")\n<|COMPLETE|>'))  # a dropped record
    assert has_format_errors(parse(""))


def test_explicit_format_overrides_detection() -> None:
    r = parse('("entity"<|>A<|>person<|>x)', "json")
    assert r.format == "json" and r.graph.entities == []


def test_claims_detected_by_width_when_status_is_odd() -> None:
    text = "Here are the claims:\n(SUN WUKONG<|>NONE<|>THEFT<|>CLAIMED<|>NONE<|>NONE<|>Took the weapons<|>quote)\n<|COMPLETE|>"
    r = parse(text)
    assert r.format == "claims" and r.graph.claims[0].type == "THEFT"
