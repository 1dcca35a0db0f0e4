"""Description-summary metrics: pooled over summary cases only, n/a elsewhere, and the key figures
of a summarize_descriptions suite (console, gate, regression defaults) instead of recall."""

from __future__ import annotations

from harness.gate import regression_metrics
from harness.metrics import get
from harness.metrics.registry import console_columns, key_figures
from harness.model import ExtractedGraph, GoldCase, GoldEntity
from harness.scoring import score_case
from harness.scoring.summary_score import score_summary
from harness.gate_settings import Regression, Thresholds
from tests.support.pooling import pooled

A = GoldCase(id="a", text="[]", entity_name="ACME", max_length=10,
             descriptions=["Acme makes rockets in Ohio.", "Acme was founded in 1990; it employs 200 people."],
             facts=["Acme makes rockets", "Acme builds 200 engines"])
B = GoldCase(id="b", text="[]", entity_name="BO", descriptions=["Bo bakes bread.", "Bo lives in Porto."])


def summary_case(gold: GoldCase, text: str):  # type: ignore[no-untyped-def]
    score = score_case(gold, ExtractedGraph())
    return score.with_figures("summary", score_summary(gold, text))


def test_summary_metrics_pool_over_summary_cases() -> None:
    # a: 16 words > 10, "we", kept 2 of 3, added 1 of 3, gold 1 of 2 (tests/scoring/test_summary_score.py)
    a = summary_case(A, "Acme makes rockets in Ohio. It was founded in 1990. We think Acme is the best.")
    # b: 5 words, third person, kept 1 of 2 ({bake, bread} yes, {live, porto} no), added 0 of 1, no gold facts
    b = summary_case(B, "Bo bakes bread daily.")
    suite = pooled([a, b])
    assert suite.get("facts_kept") == 3 / 5  # (2 + 1) / (3 + 2)
    assert suite.get("facts_kept", "macro") == (2 / 3 + 1 / 2) / 2
    assert suite.get("facts_added") == 1 / 4  # (1 + 0) / (3 + 1)
    assert suite.get("within_length") == 1 / 2 and suite.get("third_person") == 1 / 2
    assert suite.get("names_entity") == 1.0
    assert suite.get("summary_words") == 16 + 4  # "Bo bakes bread daily"
    assert suite.get("gold_facts_recall") == 1 / 2  # only a gives facts: b pools nothing
    assert suite.pooled["gold_facts"] == 1
    # no entity gold in a summary case: recall is n/a, never 0 or perfect
    assert suite.get("entity_recall") is None and suite.get("grounding_rate") is None


def test_an_extraction_case_has_no_summary_figures() -> None:
    score = score_case(GoldCase(id="x", text="Ana", entities=[GoldEntity(name="Ana")]), ExtractedGraph())
    suite = pooled([score])
    for name in ("facts_kept", "facts_added", "within_length", "names_entity", "third_person", "gold_facts_recall"):
        assert suite.get(name) is None and suite.get(name, "macro") is None
        assert get(name).only_where_defined  # type: ignore[union-attr]


def test_a_summary_suite_leads_with_its_own_figures() -> None:
    names = [m.name for m in key_figures("summarize_descriptions")]
    assert names == ["facts_kept", "facts_added", "within_length", "names_entity", "third_person"]
    assert [m.name for m in key_figures()] == ["entity_recall", "relationship_recall"]  # extraction: as before
    columns = [m.name for m in console_columns(gold=False, kind="summarize_descriptions")]
    assert columns == names  # gold or not: summaries need none
    assert not {m.name for m in console_columns(gold=True)} & set(names)
    assert regression_metrics(Regression(), has_gold=False, kind="summarize_descriptions") == names
    assert get("facts_added").higher_is_better is False and get("facts_added").threshold == "<="  # type: ignore[union-attr]


def test_summary_thresholds_are_thresholds() -> None:
    limits = Thresholds.model_validate({"facts_kept": 0.8, "within_length": 1.0, "facts_added": 0.1})
    assert (limits.facts_kept, limits.within_length, limits.facts_added) == (0.8, 1.0, 0.1)  # type: ignore[attr-defined]
