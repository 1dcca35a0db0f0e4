"""Gleaning yield (issue 15): per answer, the new entities and relationships and how many of the
new entities are grounded or leaked; pooled per variant. Numbers worked out by hand
(docs/scoring.md, "Gleaning yield")."""

from __future__ import annotations

import pytest

from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, Relationship, Round
from harness.scoring import reference_free, score_case
from harness.scoring.gleaning import gleaning_yield, grounding_drops, has_gleaning

CHUNK = "Holmes and Watson walked down Baker Street."
EXAMPLES = "Example 1: Martin Smith, chair of the Global Exchange, spoke."


def E(name: str, round: int) -> Entity:  # noqa: A002
    return Entity(name=name, type="person", description="d", round=round)


def R(source: str, target: str, round: int) -> Relationship:  # noqa: A002
    return Relationship(source=source, target=target, description="d", round=round)


# Answers at call indices 0 (first answer), 1 and 3 (gleaning; the loop check took 2); index 5 said nothing.
GLEANED = ExtractedGraph(
    entities=[
        E("Holmes", 0), E("Watson", 0),
        E("HOLMES", 1),  # repeated: a duplicate record, not new
        E("Martin Smith", 1),  # leaked from the examples
        E("Moriarty", 1),  # in neither the chunk nor the examples
        E("Global Exchange", 3),  # leaked
    ],
    relationships=[
        R("Holmes", "Watson", 0),
        R("Watson", "holmes", 1),  # the same pair, reversed: not new
        R("Holmes", "Moriarty", 1),
        R("Moriarty", "MORIARTY", 1),  # a self-loop is no relationship
    ],
)


def test_each_answer_counts_only_what_no_earlier_answer_had():
    rf = reference_free(GLEANED, CHUNK, examples=EXAMPLES, rounds=[0, 1, 3, 5])
    got = [(y.round, y.index, y.entities, y.relationships, y.grounded, y.example_leaks) for y in rf.rounds]
    assert got == [
        (0, 0, 2, 1, 2, 0),  # holmes, watson; {holmes, watson}; both in the chunk
        (1, 1, 2, 1, 0, 1),  # martin smith, moriarty; {holmes, moriarty}; none grounded, martin smith leaked
        (2, 3, 1, 0, 0, 1),  # global exchange, leaked
        (3, 5, 0, 0, 0, 0),  # an answer with no record still counts
    ]
    assert sum(y.entities for y in rf.rounds) == rf.entities == 5
    assert sum(y.relationships for y in rf.rounds) == rf.relationships == 2


def test_without_the_answer_list_the_records_name_the_rounds():
    rf = reference_free(GLEANED, CHUNK)
    assert [(y.round, y.index) for y in rf.rounds] == [(0, 0), (1, 1), (2, 3)]
    assert all(y.example_leaks is None for y in rf.rounds)  # no example text: leaks unknown


def test_a_record_of_an_unlisted_round_makes_that_round_an_answer_after_the_listed_ones():
    rf = reference_free(GLEANED, CHUNK, rounds=[0, 1])
    assert [(y.round, y.index, y.entities) for y in rf.rounds] == [(0, 0, 2), (1, 1, 2), (2, 3, 1)]


def test_accents_and_case_across_rounds():
    graph = ExtractedGraph(entities=[E("José Núñez", 0), E("JOSÉ NÚÑEZ", 1), E("Jose Nunez", 1)])
    rf = reference_free(graph, "José Núñez spoke.")
    # round 1 repeats josé núñez (case folded) and adds jose nunez (accents kept), which the chunk does not hold
    assert [(y.entities, y.grounded) for y in rf.rounds] == [(1, 1), (1, 0)]


def _row(case_id: str, graph: ExtractedGraph, text: str, calls: list[tuple[int, str]], *,
         examples: str | None = None, scored: bool = True, free: bool = True) -> CaseResult:
    score = None
    answers = [i for i, kind in calls if kind != "loop"]
    if scored:
        score = score_case(GoldCase(id=case_id, text=text), graph)
        if free:  # as the runner computes it: with the case's answers, loop checks left out
            score = score.model_copy(update={"reference_free": reference_free(graph, text, examples=examples,
                                                                              rounds=answers)})
    rounds = [Round(index=i, kind=kind, output="") for i, kind in calls]  # type: ignore[arg-type]
    return CaseResult(suite="s", variant="v", case_id=case_id, graph=graph, score=score, rounds=rounds)


GLEANING_CALLS = [(0, "extract"), (1, "continue"), (2, "loop"), (3, "continue"), (4, "loop"), (5, "continue")]
LESTRADE = ExtractedGraph(entities=[E("Lestrade", 0), E("Moriarty", 0)])


def test_pooled_per_answer_position():
    rows = [
        _row("a", GLEANED, CHUNK, GLEANING_CALLS, examples=EXAMPLES),
        _row("b", LESTRADE, "Lestrade arrived.", [(0, "extract")]),  # no gleaning, examples unknown
        _row("c", LESTRADE, "x", [(0, "extract")], scored=False),  # failed: left out
        _row("d", LESTRADE, "x", [(0, "extract")], free=False),  # no reference-free figures: left out
    ]
    pooled = gleaning_yield(rows)
    got = [(g.round, g.cases, g.entities, g.relationships, g.grounded, g.grounding_rate, g.example_leaks, g.leak_rate)
           for g in pooled]
    assert got == [
        # a: 2 new, 2 grounded, 0 leaks; b: lestrade (grounded), moriarty: 4 new, 3 grounded; leaks over a only: 0 / 2
        (0, 2, 4, 1, 3, 0.75, 0, 0.0),
        (1, 1, 2, 1, 0, 0.0, 1, 0.5),  # a's first gleaning
        (2, 1, 1, 0, 0, 0.0, 1, 1.0),  # a's second gleaning (call index 3)
        (3, 1, 0, 0, 0, None, 0, None),  # a's third gleaning (call 5) added nothing: rates undefined
    ]
    assert has_gleaning(pooled)
    assert [g.round for g in grounding_drops(pooled)] == [1, 2]  # 0% against 75%


def test_no_reference_free_figures_no_yield():
    assert gleaning_yield([_row("a", GLEANED, CHUNK, GLEANING_CALLS, free=False)]) == []
    only_first = gleaning_yield([_row("b", LESTRADE, "Lestrade arrived.", [(0, "extract")])])
    assert not has_gleaning(only_first)
    assert only_first[0].example_leaks is None and only_first[0].leak_rate is None
    assert only_first[0].grounding_rate == pytest.approx(0.5)
