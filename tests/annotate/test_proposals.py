"""Proposal merging, worked out by hand: aliases, type votes, grounding, relationships."""

from __future__ import annotations

from harness.annotate.proposals import graphs_by_case, merge_key, propose_case
from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, MatchingConfig, Relationship

TEXT = "Dr. Ana Ruiz met Bob Stone in Lowbridge. Ruiz thanked Stone Corp."
MATCHING = MatchingConfig(type_synonyms={"location": ["geo", "city"]})


def _graph(entities: list[tuple[str, str]], relationships: list[tuple[str, str]] = (), typed: str = "") -> ExtractedGraph:
    return ExtractedGraph(entities=[Entity(name=n, type=t) for n, t in entities],
                          relationships=[Relationship(source=s, target=t, type=typed) for s, t in relationships])


GRAPHS = {
    "a": _graph([("Dr. Ana Ruiz", "person"), ("Bob Stone", "PERSON"), ("Lowbridge", "geo")],
                [("Dr. Ana Ruiz", "Bob Stone"), ("Bob Stone", "Lowbridge")]),
    "b": _graph([("ANA RUIZ", "person"), ("BOB STONE", "organization"), ("Lowbrige", "city"), ("Atlantis", "")],
                [("BOB STONE", "ANA RUIZ"), ("BOB STONE", "Atlantis"), ("Atlantis", "Ghost"), ("Ana Ruiz", "ana ruiz")]),
    "c": _graph([("Bob Stone", "person")]),
}


def _proposal():
    return propose_case(GoldCase(id="t", text=TEXT), GRAPHS, MATCHING)


def test_a_title_is_set_aside_for_merging_only():
    assert merge_key("Dr. Ana Ruiz") == "ana ruiz" == merge_key("ANA RUIZ")
    assert merge_key("Dr") == "dr"  # a title alone stays a name


def test_spellings_of_one_entity_become_one_proposal_with_aliases():
    entities = _proposal().case.entities
    assert [e.name for e in entities] == ["Dr. Ana Ruiz", "Bob Stone", "Lowbridge", "Atlantis"]
    ruiz, stone, town, atlantis = entities
    # "ANA RUIZ" normalises to "ana ruiz", not "dr ana ruiz": an alias; "BOB STONE" is "bob stone": none
    assert ruiz.aliases == ["ANA RUIZ"] and stone.aliases == []
    # "lowbrige" against "lowbridge": Indel similarity 2 * 8 / (8 + 9) = 0.941 >= 0.90: merged, an alias
    assert town.aliases == ["Lowbrige"]
    assert [e.found_by for e in entities] == [["a", "b"], ["a", "b", "c"], ["a", "b"], ["b"]]


def test_type_votes_are_canonical_and_the_majority_wins():
    ruiz, stone, town, atlantis = _proposal().case.entities
    # Bob Stone: a PERSON -> person, b organization, c person: person 2, organization 1
    assert (stone.type, stone.type_votes) == ("person", {"person": 2, "organization": 1})
    # geo and city are both `location` through type_synonyms
    assert (town.type, town.type_votes) == ("location", {"location": 2})
    assert (atlantis.type, atlantis.type_votes) == ("", {})  # no variant typed it


def test_grounding_follows_the_reference_free_rule():
    ruiz, stone, town, atlantis = _proposal().case.entities
    assert (ruiz.grounded, stone.grounded, town.grounded, atlantis.grounded) == (True, True, True, False)


def test_relationships_merge_on_mapped_endpoints():
    proposal = _proposal()
    rels = [(r.source, r.target, r.found_by, r.grounded) for r in proposal.case.relationships]
    assert rels == [
        ("Dr. Ana Ruiz", "Bob Stone", ["a", "b"], True),  # b wrote it the other way round: undirected
        ("Bob Stone", "Lowbridge", ["a"], True),
        ("Bob Stone", "Atlantis", ["b"], False),  # Atlantis is not in the chunk
    ]
    assert (proposal.dangling, proposal.self_loops) == (1, 1)  # Atlantis-Ghost; Ana Ruiz-ana ruiz
    assert proposal.case.review == "pending"


def test_a_directed_suite_keeps_both_directions_and_predicates_split_edges():
    graphs = {"a": _graph([("Ana", ""), ("Bob", "")], [("Ana", "Bob")], typed="knows"),
              "b": _graph([("Ana", ""), ("Bob", "")], [("Bob", "Ana")], typed="Knows")}
    undirected = propose_case(GoldCase(id="t", text="Ana, Bob"), graphs, MatchingConfig())
    assert [(r.source, r.target, r.type, r.found_by) for r in undirected.case.relationships] == [
        ("Ana", "Bob", "knows", ["a", "b"])]
    directed = propose_case(GoldCase(id="t", text="Ana, Bob"), graphs, MatchingConfig(directed=True))
    assert [(r.source, r.target) for r in directed.case.relationships] == [("Ana", "Bob"), ("Bob", "Ana")]


def test_a_name_in_capitals_is_given_as_the_chunk_writes_it():
    graphs = {"a": _graph([("NORTHGATE ROBOTICS", "organization")]), "b": _graph([("NORTHGATE ROBOTICS", "")])}
    (entity,) = propose_case(GoldCase(id="t", text="at Northgate Robotics today"), graphs, MatchingConfig()).case.entities
    assert (entity.name, entity.aliases) == ("Northgate Robotics", [])


def test_rows_are_read_from_sample_zero_without_errors():
    rows = [CaseResult(suite="s", variant="a", case_id="x", graph=GRAPHS["a"]),
            CaseResult(suite="s", variant="a", case_id="x", graph=GRAPHS["b"], sample=1),
            CaseResult(suite="s", variant="b", case_id="x", error="timeout"),
            CaseResult(suite="s", variant="c", case_id="x", graph=GRAPHS["c"])]
    assert graphs_by_case(rows, ["a", "b", "c"]) == {"x": {"a": GRAPHS["a"], "c": GRAPHS["c"]}}


def test_a_suite_naming_its_engine_proposes_from_the_graph_the_harness_recovered():
    """The engine's graph lost a record (say, glued after <|COMPLETE|>): gold still proposes it."""
    from harness.model import RecoveredResult

    row = CaseResult(suite="s", variant="a", case_id="x", graph=GRAPHS["b"], recovered=RecoveredResult(graph=GRAPHS["a"]))
    assert graphs_by_case([row], ["a"]) == {"x": {"a": GRAPHS["a"]}}
