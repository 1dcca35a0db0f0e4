"""Citation rules enforced in full (issue 12.5)."""

from __future__ import annotations

import json

from harness.checks import check_citations, citation_issues
from harness.cli import main

from ..support.community_report import report_text as _report


def codes(issues) -> list[str]:  # type: ignore[no-untyped-def]
    return [i.code if hasattr(i, "code") else i["code"] for i in issues]


def test_six_ids_before_more_are_too_many() -> None:
    issues = citation_issues("[Data: Relationships (20, 21, 22, 23, 24, 25, +more)]")
    assert codes(issues) == ["citation-too-many-ids"]


def test_five_ids_before_more_are_fine() -> None:
    assert citation_issues("[Data: Relationships (20, 21, 22, 23, 24, +more)]") == []


def test_citations_in_rating_explanation_are_read() -> None:
    text = _report(rating_explanation="High impact [Data: Stuff (1, 2, 3, 4, 5, 6, 7)].")
    out = check_citations(text)
    assert {"citation-unknown-dataset", "citation-too-many-ids"} <= {i.code for i in out.issues}
    assert any(c.text.startswith("[Data: Stuff") for c in out.citations)
    assert not out.ok
    printed = out.to_json()
    assert printed["ok"] is False and printed["mode"] == "report"
    assert any(c["text"].startswith("[Data: Stuff") for c in printed["citations"])
    assert set(codes(printed["issues"])) == {i.code for i in out.issues}


def test_rating_explanation_without_citation_is_fine() -> None:
    assert check_citations(_report()).ok


def _map(points: list[dict[str, object]]) -> str:
    return json.dumps({"points": points})


def test_map_point_without_citation_fails() -> None:
    text = _map([
        {"description": "Alpha leads Beta [Data: Reports (1, 2)]", "score": 80},
        {"description": "Gamma is large", "score": 60},
    ])
    out = check_citations(text)
    assert out.mode == "map"
    assert [i.code for i in out.issues] == ["citation-missing"]
    assert "Point 2" in out.issues[0].message
    assert not out.ok


def test_map_points_all_cited_pass_and_score_zero_needs_none() -> None:
    text = _map([
        {"description": "Alpha leads Beta [Data: Reports (1, 2)]", "score": 80},
        {"description": "I do not know.", "score": 0},
    ])
    out = check_citations(text)
    assert out.mode == "map" and out.ok, out


def test_cli_citations_fails_on_an_uncited_map_point(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "map.json"
    path.write_text(_map([
        {"description": "Alpha leads Beta [Data: Reports (1)]", "score": 80},
        {"description": "Gamma is large", "score": 60},
    ]), encoding="utf-8")
    assert main(["citations", str(path)]) == 1
    capsys.readouterr()
