from __future__ import annotations

import json

from harness.checks import check_citations
from harness.formats.report import report_from_text, report_schema_issues
from harness.formats.answer import parse

from ..support.community_report import report_object as good


def codes(issues) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(i.code for i in issues)


def test_conforming_report() -> None:
    assert report_schema_issues(good()) == []
    assert parse(json.dumps(good()), "report").format_report.issues == []


def test_missing_and_extra_fields() -> None:
    obj = good(extra=1)
    del obj["rating_explanation"]
    assert codes(report_schema_issues(obj)) == ["report-extra-field", "report-missing-field"]


def test_rating() -> None:
    assert codes(report_schema_issues(good(rating=11))) == ["report-rating-range"]
    assert codes(report_schema_issues(good(rating="high"))) == ["report-rating-invalid"]
    assert codes(report_schema_issues(good(rating="7"))) == ["report-field-type"]
    assert codes(report_schema_issues(good(rating=True))) == ["report-rating-invalid"]


def test_findings() -> None:
    assert codes(report_schema_issues(good(findings=[]))) == ["report-findings-count"]
    eleven = [{"summary": "s", "explanation": "e"}] * 11
    assert codes(report_schema_issues(good(findings=eleven))) == ["report-findings-count"]
    bad = [{"summary": "s"}, "text", {"summary": "s", "explanation": "e"}, {"summary": "", "explanation": "e"}, {}]
    assert codes(report_schema_issues(good(findings=bad))) == ["report-finding-invalid"] * 5
    assert codes(report_schema_issues(good(findings="none"))) == ["report-field-type"]


def test_not_an_object() -> None:
    assert codes(report_schema_issues([1, 2])) == ["report-not-object"]
    assert report_from_text("no json") is None


def test_fenced_report_parses_clean_and_its_citation_problems_are_found() -> None:
    obj = good()
    obj["findings"][0]["explanation"] = "no citation"  # type: ignore[index]
    text = "```json\n" + json.dumps(obj) + "\n```"
    assert parse(text, "report").format_report.issues[0].code == "fence-stripped"
    assert not any(i.code.startswith("report-") for i in parse(text, "report").format_report.issues)
    assert [i.code for i in check_citations(text).issues] == ["citation-missing"]
