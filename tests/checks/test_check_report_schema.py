from __future__ import annotations

import json

from harness.checks import check_report, report_schema_issues


def good(**over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "title": "T",
        "summary": "S [Data: Entities (1)]",
        "rating": 4.5,
        "rating_explanation": "why",
        "findings": [{"summary": f"s{i}", "explanation": f"e{i} [Data: Relationships ({i})]"} for i in range(5)],
    }
    base.update(over)
    return base


def codes(issues) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(i.code for i in issues)


def test_conforming_report() -> None:
    assert report_schema_issues(good()) == []
    assert check_report(json.dumps(good())) == []


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
    assert codes(check_report("no json")) == ["report-not-object"]


def test_check_report_from_fenced_text_with_citation_problems() -> None:
    obj = good()
    obj["findings"][0]["explanation"] = "no citation"  # type: ignore[index]
    text = "```json\n" + json.dumps(obj) + "\n```"
    assert codes(check_report(text)) == ["citation-missing"]
    assert check_report(text, require_citations=False) == []
