from __future__ import annotations

import json

import pytest

from harness.checks import check_drift_response, check_map_response, check_rate_response, check_summary, count_words


def codes(issues) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(i.code for i in issues)


def test_map_points_good() -> None:
    text = json.dumps({"points": [{"description": "Ferries run daily [Data: Reports (1, 2)]", "score": 80}]})
    assert check_map_response(text) == []
    assert check_map_response("```json\n" + text + "\n```") == []


def test_map_points_problems() -> None:
    text = json.dumps(
        {
            "points": [
                {"description": "No source", "score": 50},
                {"description": "Too high [Data: Reports (1)]", "score": 150},
                {"description": "x [Data: Reports (9)]", "score": "high"},
                {"score": 10},
                "oops",
            ]
        }
    )
    assert codes(check_map_response(text, context_ids={"Reports": [1]})) == [
        "citation-missing", "citation-unknown-id", "query-field-type", "query-field-type",
        "query-missing-field", "query-score-range",
    ]


def test_map_zero_score_point_needs_no_citation() -> None:
    assert check_map_response('{"points": [{"description": "I do not know.", "score": 0}]}') == []


def test_map_invalid() -> None:
    assert codes(check_map_response("no json")) == ["query-invalid-json"]
    assert codes(check_map_response('{"answer": 1}')) == ["query-missing-field"]


@pytest.mark.parametrize(
    "kind,obj,expected",
    [
        ("primer", {"intermediate_answer": "x", "score": 60, "follow_up_queries": ["a", "b"]}, []),
        ("local", {"response": "x", "score": 60, "follow_up_queries": []}, []),
        ("primer", {"response": "x", "score": 60, "follow_up_queries": []}, ["query-missing-field"]),
        ("local", {"response": "x", "score": 160, "follow_up_queries": "a"}, ["query-field-type", "query-score-range"]),
        ("local", {"response": "x", "score": 1}, ["query-missing-field"]),
    ],
)
def test_drift(kind: str, obj: dict[str, object], expected: list[str]) -> None:
    assert codes(check_drift_response(json.dumps(obj), kind=kind)) == expected


def test_rate() -> None:
    assert check_rate_response('{"reason": "relevant", "rating": 4}') == []
    assert codes(check_rate_response('{"reason": "x", "rating": 6}')) == ["query-score-range"]
    assert codes(check_rate_response('{"rating": 3}')) == ["query-missing-field"]
    assert codes(check_rate_response("<think>hm</think>{'reason': 'x', 'rating': 2,}")) == ["json-repaired"]


def test_summary() -> None:
    assert check_summary("Mara Okafor keeps the Ebbrin Rock light.", "MARA OKAFOR", max_words=10) == []
    assert codes(check_summary("She keeps the light.", "Mara Okafor")) == ["summary-missing-entity"]
    assert codes(check_summary("word " * 20 + "Mara", "Mara", max_words=10)) == ["summary-too-long"]
    assert codes(check_summary("  ", "Mara")) == ["summary-empty"]
    assert codes(check_summary("A knows B", ["A", "C"])) == ["summary-missing-entity"]


def test_count_words() -> None:
    assert count_words("The ferry's route, re-opened in 2024.") == 6
    assert count_words("孙悟空是猴王") == 6
    assert count_words("Müller GmbH baut 3 Maschinen") == 5
