"""Typed relationship scores (`CaseScore.typed`) beside the endpoint scores, worked out by hand."""

from __future__ import annotations

import pytest

from harness.model import Entity, ExtractedGraph, GoldCase, GoldEntity, GoldRelationship, MatchingConfig, Relationship
from harness.scoring import score_case, score_to_json
from harness.scoring.case_score import has_typed_gold
from harness.scoring.normalize import canonical_predicate, normalize_predicate, predicate_table

TEXT = "Philz Coffee was founded in Berkeley by Phil Jaber. Jacob Jaber runs Philz Coffee."


def gold(*triples: tuple[str, str, str], directed: bool = False) -> GoldCase:
    names = ["Philz Coffee", "Berkeley", "Phil Jaber", "Jacob Jaber"]
    return GoldCase(
        id="philz", text=TEXT,
        entities=[GoldEntity(name=n) for n in names],
        relationships=[GoldRelationship(source=s, type=p, target=o, directed=directed) for s, p, o in triples],
    )


def predicted(*triples: tuple[str, str, str]) -> ExtractedGraph:
    names = list(dict.fromkeys(n for s, _, o in triples for n in (s, o)))
    return ExtractedGraph(
        entities=[Entity(name=n) for n in names],
        relationships=[Relationship(source=s, type=p, target=o) for s, p, o in triples],
    )


def test_normalize_predicate_folds_case_separators_and_camel_case() -> None:
    assert normalize_predicate("foundedBy") == "founded by"
    assert normalize_predicate("FOUNDED_BY") == "founded by"
    assert normalize_predicate("  founded-by ") == "founded by"
    assert normalize_predicate("founded   by") == "founded by"
    assert normalize_predicate("HTTPServerOf") == "http server of"
    assert normalize_predicate("birthPlace2") == "birth place2"
    assert normalize_predicate("---") == ""
    table = predicate_table({"founded_by": ["founder", "established by"]})
    assert canonical_predicate("Founder", table) == "founded by"
    assert canonical_predicate("establishedBy", table) == "founded by"
    assert canonical_predicate("located in", table) == "located in"


def test_right_endpoints_wrong_predicate_scores_one_endpoints_zero_typed() -> None:
    case = gold(("Philz Coffee", "founded in", "Berkeley"), ("Philz Coffee", "founded by", "Phil Jaber"))
    graph = predicted(("Philz Coffee", "located in", "Berkeley"), ("Philz Coffee", "owned by", "Phil Jaber"))
    score = score_case(case, graph)
    # endpoints: 2 of 2 gold edges found, 2 predicted -> P = R = F1 = 2/2 = 1.0
    assert (score.relationships.precision, score.relationships.recall, score.relationships.f1) == (1.0, 1.0, 1.0)
    # typed: no (edge, predicate) pair agrees -> tp 0 of 2 gold, 2 predicted -> 0.0 throughout
    assert score.typed is not None
    assert (score.typed.precision, score.typed.recall, score.typed.f1) == (0.0, 0.0, 0.0)
    assert (score.typed.tp, score.typed.gold, score.typed.pred) == (0, 2, 2)
    assert score.typed.missed == [["Philz Coffee", "founded in", "Berkeley"], ["Philz Coffee", "founded by", "Phil Jaber"]]


def test_typed_matches_after_normalisation_and_synonyms() -> None:
    case = gold(("Philz Coffee", "founded_in", "Berkeley"), ("Philz Coffee", "founded by", "Phil Jaber"),
                ("Jacob Jaber", "ceo of", "Philz Coffee"))
    graph = predicted(
        ("Philz Coffee", "foundedIn", "Berkeley"),  # camelCase of founded_in: right
        ("Philz Coffee", "founder", "Phil Jaber"),  # synonym of founded by: right
        ("Jacob Jaber", "works for", "Philz Coffee"),  # endpoints right, predicate wrong
        ("Phil Jaber", "father of", "Jacob Jaber"),  # not in gold
    )
    matching = MatchingConfig(predicate_synonyms={"founded by": ["founder"]})
    score = score_case(case, graph, matching)
    # typed: tp 2, gold 3, pred 4 -> P = 2/4 = 0.5, R = 2/3, F1 = 2*2/(4+3) = 4/7
    assert score.typed is not None
    assert score.typed.precision == 0.5
    assert score.typed.recall == pytest.approx(2 / 3)
    assert score.typed.f1 == pytest.approx(4 / 7)
    # endpoints: tp 3, gold 3, pred 4 -> P = 3/4, R = 1, F1 = 6/7
    assert score.relationships.precision == 0.75 and score.relationships.recall == 1.0
    assert score.relationships.f1 == pytest.approx(6 / 7)
    # without the synonym table, "founder" is another predicate: tp 1 -> R = 1/3
    assert score_case(case, graph).typed.recall == pytest.approx(1 / 3)  # type: ignore[union-attr]


def test_direction_per_suite_and_per_gold_edge() -> None:
    triples = (("Philz Coffee", "founded by", "Phil Jaber"),)
    reversed_graph = predicted(("Phil Jaber", "founded by", "Philz Coffee"))
    # undirected (the default): the reversed triple matches -> typed recall 1/1
    assert score_case(gold(*triples), reversed_graph).typed.recall == 1.0  # type: ignore[union-attr]
    # directed suite: a reversed edge is another edge -> 0/1 (and precision 0/1)
    directed = score_case(gold(*triples), reversed_graph, MatchingConfig(directed=True))
    assert (directed.typed.recall, directed.typed.precision) == (0.0, 0.0)  # type: ignore[union-attr]
    # a gold edge marked directed asks for its direction even in an undirected suite -> 0/1
    assert score_case(gold(*triples, directed=True), reversed_graph).typed.recall == 0.0  # type: ignore[union-attr]
    # ... and the right direction matches -> 1/1
    right = predicted(("Philz Coffee", "founded by", "Phil Jaber"))
    assert score_case(gold(*triples, directed=True), right).typed.recall == 1.0  # type: ignore[union-attr]


def test_two_predicates_on_one_edge_are_two_typed_edges() -> None:
    case = gold(("Phil Jaber", "founded", "Philz Coffee"), ("Phil Jaber", "owns", "Philz Coffee"))
    graph = predicted(("Phil Jaber", "owns", "Philz Coffee"), ("Phil Jaber", "Owns", "Philz Coffee"))
    score = score_case(case, graph)
    # endpoints: one gold edge, one predicted edge -> 1/1
    assert (score.relationships.gold, score.relationships.recall) == (1, 1.0)
    # typed: gold {founded, owns}, predicted {owns} (the second record is a duplicate after folding)
    # -> tp 1, gold 2, pred 1: R = 1/2, P = 1/1
    assert score.typed is not None
    assert (score.typed.tp, score.typed.gold, score.typed.pred) == (1, 2, 1)
    assert (score.typed.recall, score.typed.precision) == (0.5, 1.0)


def test_untyped_predictions_against_typed_gold_find_nothing_typed() -> None:
    case = gold(("Philz Coffee", "founded in", "Berkeley"))
    graph = ExtractedGraph(entities=[Entity(name="Philz Coffee"), Entity(name="Berkeley")],
                           relationships=[Relationship(source="Philz Coffee", target="Berkeley")])
    score = score_case(case, graph)
    assert score.relationships.recall == 1.0
    assert score.typed is not None and score.typed.recall == 0.0


def test_typed_gold_rule_all_relationships_typed() -> None:
    typed = gold(("Philz Coffee", "founded in", "Berkeley"))
    mixed = gold(("Philz Coffee", "founded in", "Berkeley"), ("Philz Coffee", "", "Phil Jaber"))
    untyped = gold(("Philz Coffee", "", "Berkeley"))
    empty = gold()
    assert has_typed_gold(typed) and not has_typed_gold(mixed) and not has_typed_gold(untyped)
    assert not has_typed_gold(empty)  # no relationship: nothing says the gold is typed
    graph = predicted(("Philz Coffee", "founded in", "Berkeley"))
    assert score_case(mixed, graph).typed is None
    assert score_case(untyped, graph).typed is None
    assert score_case(typed, graph).typed is not None


def test_nothing_predicted_leaves_precision_undefined() -> None:
    score = score_case(gold(("Philz Coffee", "founded in", "Berkeley")), ExtractedGraph())
    # tp 0, gold 1, pred 0: P undefined (None), R = 0/1, F1 = 0/(0+1) = 0
    assert score.typed is not None
    assert (score.typed.precision, score.typed.recall, score.typed.f1) == (None, 0.0, 0.0)


def test_score_json_adds_the_typed_figures_only_for_typed_gold() -> None:
    graph = predicted(("Philz Coffee", "located in", "Berkeley"))
    typed = score_to_json(score_case(gold(("Philz Coffee", "founded in", "Berkeley")), graph))
    assert list(typed) == ["entities", "relationships", "grounding", "relationships_typed"]
    assert typed["relationships_typed"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "gold": 1, "pred": 1,
                                            "missed": [["Philz Coffee", "founded in", "Berkeley"]]}
    assert "relationships_typed" not in score_to_json(score_case(gold(("Philz Coffee", "", "Berkeley")), graph))
