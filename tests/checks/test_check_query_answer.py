"""check_query_answer: one query-phase answer read as map, drift, rate or summary."""

from __future__ import annotations

import pytest

from harness.checks.query import QUERY_FORMATS, SummaryAnswer, check_query_answer


def test_map_answer_is_returned_with_its_issues() -> None:
    out = check_query_answer('{"points": [{"description": "x", "score": 10}]}', "map")
    assert out.answer == {"points": [{"description": "x", "score": 10}]}
    assert [i.code for i in out.issues] == ["citation-missing"] and out.ok is False
    assert out.to_json() == {"format": "map", "answer": out.answer, "ok": False,
                             "issues": [{"code": "citation-missing", "message": out.issues[0].message,
                                         "excerpt": out.issues[0].excerpt}]}


def test_repaired_json_is_still_ok() -> None:
    out = check_query_answer('{"reason": "fine", "rating": 3,}', "rate")  # trailing comma: repaired
    assert [i.code for i in out.issues] == ["json-repaired"] and out.ok is True


def test_drift_kind_follows_the_answer() -> None:
    primer = check_query_answer('{"intermediate_answer": "a", "score": 1, "follow_up_queries": []}', "drift")
    local = check_query_answer('{"intermediate_answer": "a", "score": 1}', "drift")
    assert primer.ok and [i.code for i in local.issues] == ["query-missing-field"]


def test_summary() -> None:
    out = check_query_answer("  Alice runs Acme Lab.  ", "summary", names=["ALICE"], max_words=3)
    # Alice, runs, Acme, Lab = 4 words > 3
    assert out.answer == SummaryAnswer("Alice runs Acme Lab.", 4)
    assert out.to_json()["answer"] == {"text": "Alice runs Acme Lab.", "words": 4}
    assert [i.code for i in out.issues] == ["summary-too-long"] and out.ok is False


def test_unknown_format() -> None:
    assert QUERY_FORMATS == ("map", "drift", "rate", "summary")
    with pytest.raises(ValueError):
        check_query_answer("x", "reduce")
