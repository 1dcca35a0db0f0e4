"""Typed relationship and ontology metrics: pooled only over the cases that have them, n/a without."""

from __future__ import annotations

import pytest

from harness.model import (
    Entity,
    ExtractedGraph,
    GoldCase,
    GoldEntity,
    GoldRelationship,
    Ontology,
    OntologyRelation,
    Relationship,
)
from harness.metrics import get
from harness.scoring import score_case
from tests.support.pooling import pooled

ONTOLOGY = Ontology(entity_types=["company", "person"],
                    relations=[OntologyRelation(name="founded by", domain="company", range="person"),
                               OntologyRelation(name="works for")])


def case(case_id: str, *triples: tuple[str, str, str]) -> GoldCase:
    names = list(dict.fromkeys(n for s, _, o in triples for n in (s, o)))
    return GoldCase(id=case_id, text=" ".join(names), entities=[GoldEntity(name=n) for n in names],
                    relationships=[GoldRelationship(source=s, type=p, target=o) for s, p, o in triples])


def answer(*triples: tuple[str, str, str], types: dict[str, str] | None = None) -> ExtractedGraph:
    names = list(dict.fromkeys(n for s, _, o in triples for n in (s, o)))
    return ExtractedGraph(entities=[Entity(name=n, type=(types or {}).get(n, "")) for n in names],
                          relationships=[Relationship(source=s, type=p, target=o) for s, p, o in triples])


def test_labels_say_the_mode() -> None:
    assert get("relationship_f1").label == "Relationship F1 (endpoints)"  # type: ignore[union-attr]
    assert get("relationship_typed_f1").label == "Relationship F1 (typed)"  # type: ignore[union-attr]


def test_typed_metrics_pool_only_typed_gold_cases() -> None:
    # case a, typed gold: 2 gold triples, 3 predicted, 1 right -> tp 1, gold 2, pred 3
    a = score_case(case("a", ("A", "founded by", "B"), ("A", "works for", "C")),
                   answer(("A", "founded by", "B"), ("A", "owns", "C"), ("B", "knows", "C")))
    # case b, typed gold: 1 gold, 1 predicted, right -> tp 1, gold 1, pred 1
    b = score_case(case("b", ("D", "works for", "E")), answer(("E", "works for", "D")))
    # case c, untyped gold: no typed scores; pools nothing typed (its endpoints would add tp 1)
    c = score_case(case("c", ("F", "", "G")), answer(("F", "likes", "G")))
    assert c.typed is None
    suite = pooled([a, b, c])
    typed = suite.metrics["relationship_typed_recall"]
    # micro R = (1 + 1) / (2 + 1) = 2/3; macro = mean(1/2, 1/1) = 0.75; over 2 cases
    assert typed.micro == pytest.approx(2 / 3) and typed.macro == pytest.approx(0.75) and typed.cases == 2
    # micro P = 2 / (3 + 1) = 0.5; micro F1 = 2*2 / (4 + 3) = 4/7
    assert suite.metrics["relationship_typed_precision"].micro == pytest.approx(0.5)
    assert suite.metrics["relationship_typed_f1"].micro == pytest.approx(4 / 7)
    assert suite.counts["relationship_typed_tp"] == 2 and suite.pooled["relationship_typed_tp"] == 2
    # endpoints pool all three: tp 1 (A-B) + 1 (A-C) + 1 + 1 = 4 of gold 2 + 1 + 1 = 4 -> 1.0
    assert suite.metrics["relationship_recall"].micro == 1.0
    # only untyped gold: typed figures n/a, never 0 or 1
    alone = pooled([c])
    assert alone.metrics["relationship_typed_f1"].micro is None
    assert alone.metrics["relationship_typed_f1"].macro is None


def test_ontology_metrics_pool_cases_with_a_value() -> None:
    types = {"A": "company", "B": "person", "C": "person"}
    # case 1: 3 records, 2 conforming (founded by, works for); founded by checked and right -> 1/1
    one = score_case(case("1", ("A", "founded by", "B")),
                     answer(("A", "founded by", "B"), ("A", "works for", "C"), ("B", "knows", "C"), types=types),
                     None, ONTOLOGY)
    # case 2: 1 record, conforming; founded by with the types swapped: checked, wrong -> 0/1
    two = score_case(case("2", ("A", "founded by", "B")), answer(("B", "founded by", "A"), types=types),
                     None, ONTOLOGY)
    # case 3: scored without an ontology -> pools nothing
    three = score_case(case("3", ("A", "founded by", "B")), answer(("A", "founded by", "B")))
    suite = pooled([one, two, three])
    conf = suite.metrics["ontology_conformance"]
    # micro = (2 + 1) / (3 + 1) = 0.75; macro = mean(2/3, 1) = 5/6; 2 cases
    assert conf.micro == pytest.approx(0.75) and conf.macro == pytest.approx(5 / 6) and conf.cases == 2
    dr = suite.metrics["domain_range_conformance"]
    # micro = (1 + 0) / (1 + 1) = 0.5; macro = mean(1, 0) = 0.5
    assert dr.micro == pytest.approx(0.5) and dr.macro == pytest.approx(0.5)
    # a suite without an ontology: n/a
    assert pooled([three]).metrics["ontology_conformance"].micro is None
