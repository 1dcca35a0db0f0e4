"""Per-case formulas, with every number worked out by hand in the comments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.model import (
    Entity,
    ExtractedGraph,
    GoldCase,
    GoldEntity,
    GoldRelationship,
    MatchingConfig,
    Relationship,
)
from harness.scoring import explain_case, score_case
from harness.scoring.case_score import entity_matches

TEXT = (
    "Velaprotin, also called VLP-12, inhibits KRX-7 kinase in Harrow pulmonary fibrosis. "
    "Meridian Therapeutics funds the trial at the Caldera Institute."
)
MATCHING = MatchingConfig(type_synonyms={"organization": ["company"]})


def gold_case() -> GoldCase:
    return GoldCase(
        id="velaprotin",
        text=TEXT,
        entities=[
            GoldEntity(name="Velaprotin", type="compound", aliases=["VLP-12"]),  # g0
            GoldEntity(name="KRX-7 kinase", type="protein", aliases=["KRX-7"]),  # g1
            GoldEntity(name="Harrow pulmonary fibrosis", type="disease", aliases=["HPF"]),  # g2
            GoldEntity(name="Meridian Therapeutics", type="organization", aliases=["Meridian"]),  # g3
            GoldEntity(name="Caldera Institute", type="organization"),  # g4
        ],
        relationships=[
            GoldRelationship(source="Velaprotin", target="KRX-7 kinase"),  # r0
            GoldRelationship(source="Velaprotin", target="Harrow pulmonary fibrosis"),  # r1
            GoldRelationship(source="KRX-7 kinase", target="Harrow pulmonary fibrosis"),  # r2
            GoldRelationship(source="Meridian Therapeutics", target="Velaprotin"),  # r3
            GoldRelationship(source="Caldera Institute", target="Meridian Therapeutics"),  # r4
        ],
    )


def prediction() -> ExtractedGraph:
    return ExtractedGraph(
        entities=[
            Entity(name="VELAPROTIN", type="COMPOUND"),  # exact g0
            Entity(name="velaprotin", type="compound"),  # case variant: duplicate, dropped
            Entity(name="VLP-12", type="compound"),  # alias of g0, already taken: unmatched, grounded
            Entity(name="KRX-7", type="GENE"),  # alias, exact g1, wrong type
            Entity(name="Meridian", type="company"),  # alias, exact g3, company == organization
            Entity(name="Caldera Institut", type="organization"),  # fuzzy g4 (32/33), not in the text
            Entity(name="Zentrix Labs", type="organization"),  # unmatched, not in the text
        ],
        relationships=[
            Relationship(source="KRX-7", target="VELAPROTIN"),  # r0 reversed
            Relationship(source="krx-7", target="Velaprotin"),  # same mapped edge: duplicate
            Relationship(source="Meridian", target="VELAPROTIN"),  # r3, same direction
            Relationship(source="Caldera Institut", target="Meridian"),  # r4 through the fuzzy match
            Relationship(source="VELAPROTIN", target="Zentrix Labs"),  # edge to an unmatched entity
            Relationship(source="Velaprotin", target="VELAPROTIN"),  # self-loop: dropped
            Relationship(source="Velaprotin", target="Harrow Pulmonary Fibrosis"),  # r1, undeclared endpoint
        ],
    )


def test_entities_worked_example() -> None:
    e = score_case(gold_case(), prediction(), MATCHING).entities
    # de-duplicated predictions: VELAPROTIN, VLP-12, KRX-7, Meridian, Caldera Institut, Zentrix Labs
    assert (e.gold, e.pred, e.tp, e.exact, e.fuzzy) == (5, 6, 4, 3, 1)
    assert e.precision == pytest.approx(4 / 6)
    assert e.recall == pytest.approx(4 / 5)
    assert e.f1 == pytest.approx(2 * 4 / (5 + 6))  # = 8/11, the harmonic mean of 2/3 and 4/5
    # typed: g0 compound ok, g1 protein vs gene wrong, g3 company -> organization ok, g4 ok
    assert e.typed_tp == 3
    assert e.strict_f1 == pytest.approx(2 * 3 / (5 + 6))
    assert e.type_accuracy == pytest.approx(3 / 4)
    assert e.missed == ["Harrow pulmonary fibrosis"]
    assert e.unmatched == ["VLP-12", "Zentrix Labs"]


def test_grounding_worked_example() -> None:
    g = score_case(gold_case(), prediction(), MATCHING).grounding
    # in the text: velaprotin, vlp 12, krx 7, meridian; not: "caldera institut" (the text has
    # "institute": token boundary), "zentrix labs"
    assert (g.grounded, g.ungrounded) == (4, 2)
    assert g.rate == pytest.approx(4 / 6)
    assert g.unverified == ["VLP-12"]  # unmatched by gold but in the text: unverified, not false


def test_relationships_worked_example() -> None:
    r = score_case(gold_case(), prediction(), MATCHING).relationships
    # predicted edges after mapping and de-duplication:
    # {g0,g1} {g3,g0} {g4,g3} {g0,zentrix} {g0,g2} -> 5 ; gold: r0..r4 -> 5
    # matched (undirected): r0, r1, r3, r4 -> 4
    assert (r.gold, r.pred, r.tp) == (5, 5, 4)
    assert (r.precision, r.recall, r.f1) == pytest.approx((0.8, 0.8, 0.8))
    # direction as in gold: r1, r3, r4 (r0 was predicted reversed)
    assert r.directed_tp == 3
    assert r.directed_recall == pytest.approx(3 / 5)
    # both endpoints found as entities: r0, r3, r4 (g2 was never declared); all three matched
    assert r.endpoint_gold == 3
    assert r.endpoint_recall == pytest.approx(1.0)
    assert r.missed == [["KRX-7 kinase", "Harrow pulmonary fibrosis"]]
    assert r.unmatched == [["VELAPROTIN", "Zentrix Labs"]]


def test_dropped_counts() -> None:
    detail = explain_case(gold_case(), prediction(), MATCHING)
    assert detail.dropped == {
        "duplicate_entities": 1,
        "blank_entities": 0,
        "duplicate_relationships": 1,
        "blank_relationships": 0,
        "self_loops": 1,
        "gold_self_loops": 0,
        "undeclared_endpoints": 1,
    }
    assert [m[:3] for m in detail.matches] == [
        ("Velaprotin", "VELAPROTIN", "exact"),
        ("KRX-7 kinase", "KRX-7", "exact"),
        ("Meridian Therapeutics", "Meridian", "exact"),
        ("Caldera Institute", "Caldera Institut", "fuzzy"),
    ]
    assert detail.matches[3][3] == pytest.approx(32 / 33)


def test_directed_mode() -> None:
    r = score_case(gold_case(), prediction(), MatchingConfig(directed=True)).relationships
    # ordered predicted edges: (g1,g0) (g3,g0) (g4,g3) (g0,zentrix) (g0,g2) -> 5
    # gold: (g0,g1) (g0,g2) (g1,g2) (g3,g0) (g4,g3); matched: (g0,g2) (g3,g0) (g4,g3) -> 3
    assert (r.gold, r.pred, r.tp, r.directed_tp) == (5, 5, 3, 3)
    assert (r.precision, r.recall, r.directed_recall) == pytest.approx((0.6, 0.6, 0.6))
    # endpoints found: r0, r3, r4; matched among them: r3, r4
    assert r.endpoint_recall == pytest.approx(2 / 3)


def test_matching_threshold_changes_fuzzy_matches() -> None:
    e = score_case(gold_case(), prediction(), MatchingConfig(fuzzy_threshold=0.98)).entities
    # 32/33 = 0.9697 < 0.98: Caldera Institut no longer matches
    assert (e.tp, e.exact, e.fuzzy) == (3, 3, 0)
    assert "Caldera Institute" in e.missed


def test_without_synonyms_company_is_not_organization() -> None:
    e = score_case(gold_case(), prediction()).entities
    assert e.typed_tp == 2
    assert e.type_accuracy == pytest.approx(2 / 4)


# --------------------------------------------------------------------------- small cases


def case(entities: list[GoldEntity], relationships: list[GoldRelationship] | None = None) -> GoldCase:
    return GoldCase(id="c", text="", entities=entities, relationships=relationships or [])


def graph(names: list[str], edges: list[tuple[str, str]] | None = None) -> ExtractedGraph:
    return ExtractedGraph(
        entities=[Entity(name=n) for n in names],
        relationships=[Relationship(source=s, target=t) for s, t in edges or []],
    )


AB = [GoldEntity(name="Alpha"), GoldEntity(name="Beta")]


def test_a_case_without_gold_has_no_gold_based_metric() -> None:
    """Issue 12.1: empty gold is "not annotated", whatever was predicted: every gold-based rate is None, never 1.0."""
    for predicted in (graph([]), graph(["Alpha", "Beta"], [("Alpha", "Beta")])):
        s = score_case(case([]), predicted)
        e, r = s.entities, s.relationships
        assert (e.precision, e.recall, e.f1, e.strict_f1, e.type_accuracy) == (None,) * 5
        assert (r.precision, r.recall, r.f1, r.directed_recall, r.endpoint_recall) == (None,) * 5
        assert not e.annotated and not r.annotated
        assert e.missed == e.unmatched == [] and r.missed == r.unmatched == []
    assert score_case(case([]), graph([])).grounding.rate is None  # nothing predicted: nothing to ground


def test_empty_prediction_against_gold_scores_zero_recall_and_no_precision() -> None:
    s = score_case(case(AB, [GoldRelationship(source="Alpha", target="Beta")]), graph([]))
    assert (s.entities.precision, s.entities.recall, s.entities.f1) == (None, 0.0, 0.0)
    assert s.entities.missed == ["Alpha", "Beta"]
    assert (s.relationships.precision, s.relationships.recall, s.relationships.f1) == (None, 0.0, 0.0)
    assert s.relationships.endpoint_recall is None  # no gold edge had its endpoints found
    assert s.grounding.rate is None  # nothing predicted


def test_annotated_case_with_empty_gold_counts_false_positives() -> None:
    """`annotated: true` says "nothing here": predictions are false positives, recall stays undefined."""
    negative = GoldCase(id="neg", text="Alpha and Beta", annotated=True)
    s = score_case(negative, graph(["Alpha", "Beta"], [("Alpha", "Beta")]))
    assert s.entities.annotated and s.relationships.annotated
    assert (s.entities.precision, s.entities.recall, s.entities.f1) == (0.0, None, 0.0)
    assert (s.relationships.precision, s.relationships.recall, s.relationships.f1) == (0.0, None, 0.0)
    assert s.entities.unmatched == ["Alpha", "Beta"]
    silent = score_case(negative, graph([]))
    assert (silent.entities.precision, silent.entities.recall, silent.entities.f1) == (None, None, None)


def test_edges_when_gold_has_entities_but_no_edges() -> None:
    """Entities annotated, relationships not: relationship metrics are undefined, unless `annotated: true`."""
    s = score_case(case(AB), graph(["Alpha", "Beta"], [("Alpha", "Beta")]))
    assert s.entities.f1 == 1.0 and s.entities.annotated
    assert not s.relationships.annotated
    assert (s.relationships.precision, s.relationships.recall, s.relationships.f1) == (None, None, None)
    marked = case(AB).model_copy(update={"annotated": True})
    r = score_case(marked, graph(["Alpha", "Beta"], [("Alpha", "Beta")])).relationships
    assert (r.precision, r.recall, r.f1) == (0.0, None, 0.0)


def test_a_draft_case_has_no_gold_based_metric() -> None:
    draft = case(AB, [GoldRelationship(source="Alpha", target="Beta")]).model_copy(update={"annotated": False})
    s = score_case(draft, graph(["Alpha"]))
    assert (s.entities.recall, s.relationships.recall) == (None, None)


def test_duplicates_and_case_variants_count_once() -> None:
    s = score_case(case(AB), graph(["ALPHA", "alpha", " Alpha ", "The Alpha", "Gamma", "GAMMA"]))
    # distinct normalised names: alpha, gamma -> pred 2, tp 1
    assert (s.entities.pred, s.entities.tp) == (2, 1)
    assert s.entities.precision == 0.5
    assert s.entities.recall == 0.5
    assert s.entities.unmatched == ["Gamma"]  # the first spelling is reported


def test_first_nonempty_type_of_duplicates_is_used() -> None:
    gold = case([GoldEntity(name="Alpha", type="person")])
    pred = ExtractedGraph(entities=[Entity(name="Alpha"), Entity(name="ALPHA", type="PERSON"), Entity(name="alpha", type="org")])
    assert score_case(gold, pred).entities.typed_tp == 1


def test_untyped_gold_accepts_any_type() -> None:
    gold = case([GoldEntity(name="Alpha")])
    pred = ExtractedGraph(entities=[Entity(name="Alpha", type="whatever")])
    assert score_case(gold, pred).entities.type_accuracy == 1.0


def test_blank_names_are_dropped() -> None:
    detail = explain_case(case(AB), graph(["Alpha", "  ", ""], [("Alpha", " "), ("Alpha", "Beta")]))
    assert detail.score.entities.pred == 1
    assert detail.dropped["blank_entities"] == 2
    assert detail.dropped["blank_relationships"] == 1


def test_self_loops_dropped_on_both_sides() -> None:
    gold = case(
        [GoldEntity(name="Alpha", aliases=["A1"]), GoldEntity(name="Beta")],
        [GoldRelationship(source="Alpha", target="A1"), GoldRelationship(source="Alpha", target="Beta")],
    )
    detail = explain_case(gold, graph(["Alpha", "Beta"], [("Alpha", "ALPHA"), ("Beta", "Alpha")]))
    r = detail.score.relationships
    assert (r.gold, r.pred, r.tp) == (1, 1, 1)  # both self-loops gone, Alpha-Beta matched
    assert detail.dropped["self_loops"] == 1
    assert detail.dropped["gold_self_loops"] == 1


def test_reversed_edge_counts_undirected_but_not_directed() -> None:
    gold = case(AB, [GoldRelationship(source="Alpha", target="Beta")])
    r = score_case(gold, graph(["Alpha", "Beta"], [("Beta", "Alpha")])).relationships
    assert (r.tp, r.recall, r.directed_recall) == (1, 1.0, 0.0)
    r = score_case(gold, graph(["Alpha", "Beta"], [("Beta", "Alpha")]), MatchingConfig(directed=True)).relationships
    assert (r.tp, r.recall, r.precision, r.directed_recall) == (0, 0.0, 0.0, 0.0)


def test_both_directions_are_one_undirected_edge() -> None:
    gold = case(AB, [GoldRelationship(source="Alpha", target="Beta")])
    r = score_case(gold, graph(["Alpha", "Beta"], [("Beta", "Alpha"), ("Alpha", "Beta")])).relationships
    assert (r.pred, r.tp, r.precision, r.directed_tp) == (1, 1, 1.0, 1)
    r = score_case(
        gold, graph(["Alpha", "Beta"], [("Beta", "Alpha"), ("Alpha", "Beta")]), MatchingConfig(directed=True)
    ).relationships
    assert (r.pred, r.tp, r.precision) == (2, 1, 0.5)


def test_gold_edge_marked_directed_needs_its_direction() -> None:
    gold = case(AB, [GoldRelationship(source="Alpha", target="Beta", directed=True)])
    r = score_case(gold, graph(["Alpha", "Beta"], [("Beta", "Alpha")])).relationships
    assert (r.tp, r.precision, r.recall) == (0, 0.0, 0.0)
    assert r.unmatched == [["Beta", "Alpha"]]
    r = score_case(gold, graph(["Alpha", "Beta"], [("Alpha", "Beta")])).relationships
    assert (r.tp, r.precision, r.recall) == (1, 1.0, 1.0)


def test_edge_to_unmatched_entity_is_a_false_edge() -> None:
    gold = case(AB, [GoldRelationship(source="Alpha", target="Beta")])
    r = score_case(gold, graph(["Alpha", "Beta", "Gamma"], [("Alpha", "Gamma"), ("Alpha", "Beta")])).relationships
    assert (r.tp, r.pred, r.gold) == (1, 2, 1)
    assert r.precision == 0.5
    assert r.unmatched == [["Alpha", "Gamma"]]


def test_edge_through_fuzzy_alignment_and_endpoint_recall() -> None:
    gold = case(
        [GoldEntity(name="Castellobacter lunaris"), GoldEntity(name="Lake Serel"), GoldEntity(name="Torvanase")],
        [
            GoldRelationship(source="Castellobacter lunaris", target="Lake Serel"),
            GoldRelationship(source="Castellobacter lunaris", target="Torvanase"),
        ],
    )
    # "castelobacter lunaris" is 2*21/43 = 0.977 from the gold name; Torvanase is not found
    pred = graph(["Castelobacter lunaris", "Lake Serel"], [("Lake Serel", "Castelobacter lunaris")])
    s = score_case(gold, pred)
    assert (s.entities.exact, s.entities.fuzzy) == (1, 1)
    r = s.relationships
    assert (r.tp, r.recall, r.endpoint_gold, r.endpoint_recall) == (1, 0.5, 1, 1.0)


def test_endpoint_recall_counts_found_but_unlinked() -> None:
    gold = case(AB, [GoldRelationship(source="Alpha", target="Beta")])
    r = score_case(gold, graph(["Alpha", "Beta"])).relationships
    assert (r.endpoint_gold, r.endpoint_recall, r.recall) == (1, 0.0, 0.0)


def test_undeclared_endpoint_resolves_by_alias_not_fuzzily() -> None:
    gold = case(
        [GoldEntity(name="Velaprotin", aliases=["VLP-12"]), GoldEntity(name="Nintarone")],
        [GoldRelationship(source="Velaprotin", target="Nintarone"), GoldRelationship(source="VLP-12", target="Beta")],
    )
    # VLP-12 resolves to Velaprotin by alias; "Nintaron" is not declared and is not looked up fuzzily
    r = score_case(gold, graph([], [("vlp 12", "NINTARONE"), ("Velaprotin", "Nintaron")])).relationships
    assert (r.tp, r.pred, r.gold) == (1, 2, 2)
    assert r.missed == [["VLP-12", "Beta"]]  # gold endpoints not among gold entities stay as named


def test_gold_endpoint_outside_entities_matches_same_name() -> None:
    gold = case([GoldEntity(name="Alpha")], [GoldRelationship(source="Alpha", target="Omega")])
    s = score_case(gold, graph(["Alpha", "Omega"], [("Alpha", "omega")]))
    assert (s.entities.pred, s.entities.tp) == (2, 1)
    assert (s.relationships.tp, s.relationships.endpoint_gold) == (1, 1)


def test_duplicate_gold_edges_count_once() -> None:
    gold = case(AB, [GoldRelationship(source="Alpha", target="Beta"), GoldRelationship(source="Beta", target="Alpha")])
    r = score_case(gold, graph(["Alpha", "Beta"], [("Beta", "Alpha")])).relationships
    assert (r.gold, r.tp, r.directed_tp) == (1, 1, 1)  # either written direction satisfies directed recall


def test_tie_in_alignment_inside_a_case() -> None:
    gold = case([GoldEntity(name="Crane Institute", aliases=["CI"]), GoldEntity(name="Caldera Institute", aliases=["CI"])])
    s = score_case(gold, graph(["CI"]))
    assert s.entities.missed == ["Caldera Institute"]  # the earlier gold entity wins the tie


def test_score_is_deterministic() -> None:
    assert score_case(gold_case(), prediction(), MATCHING) == score_case(gold_case(), prediction(), MATCHING)


# --------------------------------------------------------------------------- robustness

any_name = st.text(max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(any_name, st.lists(any_name, max_size=2)), max_size=6),
    st.lists(st.tuples(any_name, any_name), max_size=6),
    st.lists(any_name, max_size=8),
    st.lists(st.tuples(any_name, any_name), max_size=8),
    st.text(max_size=80),
)
def test_untrusted_output_never_raises_and_stays_in_range(
    gold_ents: list[tuple[str, list[str]]],
    gold_edges: list[tuple[str, str]],
    names: list[str],
    edges: list[tuple[str, str]],
    text: str,
) -> None:
    gold = GoldCase(
        id="h",
        text=text,
        entities=[GoldEntity(name=n or "x", aliases=a) for n, a in gold_ents],
        relationships=[GoldRelationship(source=s, target=t) for s, t in gold_edges],
    )
    s = score_case(gold, graph(names, edges))
    for value in (s.entities.precision, s.entities.recall, s.entities.f1, s.entities.strict_f1,
                  s.relationships.precision, s.relationships.recall, s.relationships.f1,
                  s.relationships.directed_recall, s.grounding.rate):
        assert value is None or 0.0 <= value <= 1.0
    # undefined exactly when there is nothing to stand on
    assert (s.entities.recall is None) == (not gold.entities)
    assert (s.entities.precision is None) == (not gold.entities or s.entities.pred == 0)
    assert (s.relationships.recall is None) == (s.relationships.gold == 0)
    assert s.entities.tp == s.entities.exact + s.entities.fuzzy <= min(s.entities.gold, s.entities.pred)
    assert s.relationships.tp <= min(s.relationships.gold, s.relationships.pred)
    assert s.relationships.directed_tp <= s.relationships.gold
    if s.entities.annotated:
        assert len(s.entities.missed) == s.entities.gold - s.entities.tp
        assert len(s.entities.unmatched) == s.entities.pred - s.entities.tp
    assert s.grounding.grounded + s.grounding.ungrounded == s.entities.pred
    assert score_case(gold, graph(names, edges)) == s


def test_entity_matches_is_the_alignment_explain_case_reports() -> None:
    # fragmentation reads only the alignment: the cheaper function must give exactly explain_case's
    assert entity_matches(gold_case(), prediction(), MATCHING) == explain_case(gold_case(), prediction(), MATCHING).matches


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(any_name, st.lists(any_name, max_size=2)), max_size=6),
    st.lists(any_name, max_size=8),
    st.sampled_from([0.0, 0.5, 0.85, 1.0]),
)
def test_entity_matches_equals_explain_case_matches(
    gold_ents: list[tuple[str, list[str]]], names: list[str], threshold: float,
) -> None:
    gold = GoldCase(id="h", text="", entities=[GoldEntity(name=n or "x", aliases=a) for n, a in gold_ents])
    matching = MatchingConfig(fuzzy_threshold=threshold)
    prediction_graph = graph(names, [])
    assert entity_matches(gold, prediction_graph, matching) == explain_case(gold, prediction_graph, matching).matches
