"""Suite aggregates: micro pools counts, macro averages cases, and both are labelled."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.model import CaseScore, Entity, ExtractedGraph, GoldCase, GoldEntity, GoldRelationship, Relationship
from harness.metrics import metric_names
from harness.scoring import score_case, score_to_json
from tests.support.pooling import pooled

Pairs = list[tuple[str, str]]


def scored(gold: Pairs, pred: Pairs, gold_edges: Pairs | None = None, pred_edges: Pairs | None = None,
           text: str = "") -> CaseScore:
    """Score (name, type) lists and (source, target) edge lists."""
    case = GoldCase(
        id="c",
        text=text,
        entities=[GoldEntity(name=n, type=t) for n, t in gold],
        relationships=[GoldRelationship(source=s, target=t) for s, t in gold_edges or []],
    )
    graph = ExtractedGraph(
        entities=[Entity(name=n, type=t) for n, t in pred],
        relationships=[Relationship(source=s, target=t) for s, t in pred_edges or []],
    )
    return score_case(case, graph)


def test_micro_and_macro_worked_example() -> None:
    # case 1: gold {A}, pred {A}: P 1, R 1, F1 1, typed 1
    one = scored([("A", "x")], [("A", "x")], text="A")
    # case 2: gold {B,C,D,E}, pred {B (wrong type), Z}: tp 1, P 1/2, R 1/4, F1 2/6, typed 0
    two = scored([("B", "x"), ("C", "x"), ("D", "x"), ("E", "x")], [("B", "y"), ("Z", "x")], text="B Z")
    m = pooled([one, two])
    assert m.cases == 2
    ep = m.metrics["entity_precision"]
    assert ep.micro == pytest.approx(2 / 3)  # (1 + 1) / (1 + 2)
    assert ep.macro == pytest.approx((1 + 1 / 2) / 2)
    assert ep.cases == 2
    er = m.metrics["entity_recall"]
    assert er.micro == pytest.approx(2 / 5)
    assert er.macro == pytest.approx((1 + 1 / 4) / 2)
    ef = m.metrics["entity_f1"]
    assert ef.micro == pytest.approx(2 * 2 / (5 + 3))
    assert ef.macro == pytest.approx((1 + 2 / 6) / 2)
    sf = m.metrics["entity_strict_f1"]
    assert sf.micro == pytest.approx(2 * 1 / (5 + 3))
    assert sf.macro == pytest.approx((1 + 0) / 2)
    ta = m.metrics["entity_type_accuracy"]
    assert (ta.micro, ta.macro) == pytest.approx((1 / 2, 1 / 2))
    gr = m.metrics["grounding_rate"]
    assert gr.micro == pytest.approx(3 / 3)
    assert m.counts["entity_tp"] == 2 and m.counts["entity_gold"] == 5 and m.counts["entity_pred"] == 3
    assert m.get("entity_recall", "macro") == er.macro
    assert m.get("entity_recall") == er.micro
    assert set(m.metrics) == set(metric_names())


def test_macro_skips_undefined_values() -> None:
    # case 1 has no match: type accuracy and endpoint recall undefined
    one = scored([("A", "x")], [("Q", "x")], gold_edges=[("A", "B")])
    # case 2: both endpoints found, edge found: endpoint recall 1; the second gold edge has an unfound endpoint
    two = scored([("A", "x"), ("B", "x")], [("A", "x"), ("B", "y")], gold_edges=[("A", "B"), ("A", "C")],
                 pred_edges=[("B", "A")])
    m = pooled([one, two])
    ta = m.metrics["entity_type_accuracy"]
    assert (ta.micro, ta.macro, ta.cases) == (0.5, 0.5, 1)
    epr = m.metrics["relationship_endpoint_recall"]
    assert (epr.micro, epr.macro, epr.cases) == (1.0, 1.0, 1)
    rr = m.metrics["relationship_recall"]
    assert rr.micro == pytest.approx(1 / 3)  # gold edges 1 + 2, found 0 + 1
    assert rr.macro == pytest.approx((0 + 1 / 2) / 2)
    dr = m.metrics["relationship_directed_recall"]
    assert dr.micro == pytest.approx(0.0)  # the only found edge was reversed


def test_cases_without_gold_are_left_out_of_the_pools_and_counted() -> None:
    """Issue 12.1: a case without gold adds neither hits nor misses; with none annotated, nothing is 1.0."""
    empty = scored([], [("Q", "x")], pred_edges=[("Q", "R")])  # not annotated: its predictions judge nothing
    silent = scored([("A", "x")], [])
    found = scored([("A", "x")], [("A", "x"), ("B", "x")])
    m = pooled([empty, silent, found])
    assert m.annotated == {"entities": 2, "relationships": 0}
    # pooled over silent + found: tp 1, gold 2, pred 2
    assert m.metrics["entity_recall"].micro == pytest.approx(1 / 2)
    assert m.metrics["entity_precision"].micro == pytest.approx(1 / 2)
    assert m.counts["entity_pred"] == 2
    # macro precision: silent has none (no prediction), found has 1/2
    assert (m.metrics["entity_precision"].macro, m.metrics["entity_precision"].cases) == (0.5, 1)
    for name in ("relationship_recall", "relationship_precision", "relationship_f1"):
        assert (m.metrics[name].micro, m.metrics[name].macro) == (None, None), name
    only_empty = pooled([empty])
    assert only_empty.annotated == {"entities": 0, "relationships": 0}
    assert all(only_empty.metrics[name].micro is None for name in metric_names() if name != "grounding_rate")


def test_aggregate_of_nothing() -> None:
    m = pooled([])
    assert m.cases == 0
    assert m.metrics["entity_f1"].macro is None
    assert m.metrics["entity_f1"].micro is None  # nothing to stand on is not perfect
    assert m.metrics["entity_type_accuracy"].micro is None
    assert m.metrics["grounding_rate"].micro is None


def test_score_to_json_has_exactly_the_documented_keys() -> None:
    doc = score_to_json(scored([("A", "x")], [("A", "x"), ("B", "y")], gold_edges=[("A", "C")], text="A"))
    assert list(doc) == ["entities", "relationships", "grounding"]
    assert list(doc["entities"]) == [
        "precision", "recall", "f1", "strict_f1", "type_accuracy", "tp", "gold", "pred", "exact", "fuzzy",
        "missed", "unmatched",
    ]
    assert list(doc["relationships"]) == [
        "precision", "recall", "f1", "directed_recall", "endpoint_recall", "tp", "gold", "pred", "missed",
    ]
    assert doc["grounding"] == {"grounded": 1, "ungrounded": 1, "unverified": [], "rate": 0.5}
    assert doc["entities"]["unmatched"] == ["B"]
    assert doc["relationships"]["missed"] == [["A", "C"]]


names = st.lists(st.sampled_from(["A", "B", "C", "D"]), max_size=4, unique=True)


@given(st.lists(st.tuples(names, names), min_size=1, max_size=5), st.lists(names, max_size=4))
def test_cases_without_gold_never_change_gold_based_aggregates(annotated: list[tuple[list[str], list[str]]],
                                                               unannotated: list[list[str]]) -> None:
    """Adding cases without gold (whatever they predict) leaves every gold-based figure as it was."""
    base = [scored([(n, "") for n in gold], [(n, "") for n in pred]) for gold, pred in annotated]
    extra = [scored([], [(n, "") for n in pred], pred_edges=list(zip(pred, pred[1:]))) for pred in unannotated]
    before, after = pooled(base), pooled(base + extra)
    for name in metric_names():
        if name != "grounding_rate":
            assert after.metrics[name] == before.metrics[name], name
    assert after.annotated["entities"] == before.annotated["entities"] == sum(1 for gold, _ in annotated if gold)


# --------------------------------------------------------------------------- reference-free metrics


def with_figures(score: CaseScore, **figures: object) -> CaseScore:
    """`score` with reference-free figures (the runner's job); unset ones are 0 / empty."""
    from harness.model import ReferenceFreeScores

    base = {"entities": 0, "relationships": 0, "grounded": 0}
    return score.model_copy(update={"reference_free": ReferenceFreeScores(**{**base, **figures})})


def test_reference_free_counts_pool_only_the_cases_that_have_them() -> None:
    # the worked example of docs/scoring.md, "Reference-free metrics"
    a = with_figures(scored([], [("A", "x")], text="A"), example_leaks=2, duplicate_records=1,
                     entity_records=5, conforming_records=4, type_conformance=0.8, entities=4)
    b = with_figures(scored([], [("B", "x")], text="B"), example_leaks=None, duplicate_records=3,
                     entity_records=2, conforming_records=2, type_conformance=1.0, entities=2)
    c = scored([], [("C", "x")], text="C")  # an old row: no reference-free figures at all
    m = pooled([a, b, c])
    leaks = m.metrics["example_leaks"]
    assert (leaks.micro, leaks.macro, leaks.cases) == (2, 2.0, 1)  # A only: B has no example text, C nothing
    assert m.pooled["example_leaks"] == 1
    dup = m.metrics["duplicate_records"]
    assert (dup.micro, dup.macro, dup.cases) == (4, 2.0, 2)  # 1 + 3; (1 + 3) / 2; C adds nothing
    assert isinstance(dup.micro, int)  # a total stays an int in summary.json
    conf = m.metrics["type_conformance"]
    assert conf.micro == pytest.approx(6 / 7)  # (4 + 2) / (5 + 2)
    assert conf.macro == pytest.approx(0.9)  # (0.8 + 1.0) / 2
    assert conf.cases == 2
    ents = m.metrics["distinct_entities"]
    assert (ents.micro, ents.macro, ents.cases) == (6, 3.0, 2)  # 4 + 2
    # grounding comes from scoring itself: every case pools it, C too
    assert m.metrics["grounding_rate"].cases == 3 and m.metrics["grounding_rate"].micro == 1.0


def test_a_count_no_case_has_is_na_never_zero() -> None:
    untyped = with_figures(scored([], [("A", "x")], text="A"), entity_records=1)  # no type list: conforming None
    m = pooled([untyped, scored([], [("B", "x")], text="B")])
    assert m.metrics["example_leaks"].micro is None and m.metrics["example_leaks"].macro is None
    assert m.metrics["example_leaks"].cases == 0
    assert m.metrics["type_conformance"].micro is None and m.metrics["type_conformance"].cases == 0
    # a count the one case with figures has is its value, 0 included; the old row adds nothing
    assert (m.metrics["dangling"].micro, m.metrics["dangling"].cases) == (0, 1)
    none = pooled([scored([], [("A", "x")], text="A")])
    assert all(none.metrics[name].micro is None for name in ("distinct_entities", "dangling", "self_loops"))
    assert none.counts["dangling"] == 0 and none.pooled["dangling"] == 0
