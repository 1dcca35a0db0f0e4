"""Ontology conformance and domain/range conformance of one answer (`harness.scoring.ontology`)."""

from __future__ import annotations

from harness.model import Entity, ExtractedGraph, GoldCase, MatchingConfig, Ontology, OntologyRelation, Relationship
from harness.scoring import score_case
from harness.scoring.ontology import ontology_scores, ontology_types

ONTOLOGY = Ontology(
    name="companies",
    entity_types=["company", "person", "city"],
    relations=[
        OntologyRelation(name="foundedBy", domain="company", range="person"),
        OntologyRelation(name="locatedIn", domain="company", range="city"),
        OntologyRelation(name="knows"),  # no domain, no range: conformance only
    ],
)


def graph(*triples: tuple[str, str, str], types: dict[str, str] | None = None) -> ExtractedGraph:
    types = types or {}
    names = list(dict.fromkeys(n for s, _, o in triples for n in (s, o)))
    return ExtractedGraph(
        entities=[Entity(name=n, type=types.get(n, "")) for n in names],
        relationships=[Relationship(source=s, type=p, target=o) for s, p, o in triples],
    )


TYPES = {"Philz": "company", "Phil Jaber": "person", "Berkeley": "city", "Jacob": "person"}


def test_conformance_counts_records_whose_predicate_is_a_relation() -> None:
    g = graph(
        ("Philz", "founded_by", "Phil Jaber"),  # foundedBy after normalisation: conforms, domain/range right
        ("Philz", "located in", "Berkeley"),  # conforms, right
        ("Berkeley", "located in", "Philz"),  # conforms, domain and range wrong
        ("Phil Jaber", "knows", "Jacob"),  # conforms, nothing to check
        ("Phil Jaber", "father of", "Jacob"),  # not a relation
        types=TYPES,
    )
    scores = ontology_scores(g, ONTOLOGY, MatchingConfig())
    # conformance: 4 of 5 records -> 0.8; domain/range: checked 3 (knows declares neither), right 2 -> 2/3
    assert (scores.records, scores.conforming, scores.conformance) == (5, 4, 0.8)
    assert (scores.checked, scores.domain_range_ok) == (3, 2)
    assert scores.domain_range is not None and abs(scores.domain_range - 2 / 3) < 1e-12


def test_duplicates_count_per_record_and_blank_endpoints_are_left_out() -> None:
    g = graph(("Philz", "father of", "Jacob"), ("Philz", "father of", "Jacob"), ("Philz", "foundedBy", "Phil Jaber"),
              types=TYPES)
    g.relationships.append(Relationship(source=" ", type="foundedBy", target="Phil Jaber"))
    scores = ontology_scores(g, ONTOLOGY, MatchingConfig())
    # 3 records (the blank one is out), 1 conforming -> 1/3
    assert (scores.records, scores.conforming) == (3, 1)


def test_synonyms_reach_the_ontology() -> None:
    matching = MatchingConfig(predicate_synonyms={"founded by": ["founder"]},
                              type_synonyms={"company": ["organization"]})
    g = graph(("Philz", "founder", "Phil Jaber"), types={"Philz": "ORGANIZATION", "Phil Jaber": "person"})
    scores = ontology_scores(g, ONTOLOGY, matching)
    # founder -> founded by == foundedBy: conforms; organization -> company matches the domain -> 1/1 and 1/1
    assert (scores.conformance, scores.domain_range) == (1.0, 1.0)
    # without synonyms: "founder" is no relation -> 0/1, nothing checked -> domain/range None
    plain = ontology_scores(g, ONTOLOGY, MatchingConfig())
    assert (plain.conformance, plain.domain_range) == (0.0, None)


def test_untyped_endpoints_and_untyped_predicates() -> None:
    # a triple without entity types: conforms on its predicate; domain/range has nothing to compare -> n/a
    scores = ontology_scores(graph(("Philz", "foundedBy", "Phil Jaber")), ONTOLOGY, MatchingConfig())
    assert (scores.conformance, scores.checked, scores.domain_range) == (1.0, 0, None)
    # one endpoint typed, the other constrained and untyped: not checked either
    half = ontology_scores(graph(("Philz", "foundedBy", "Phil Jaber"), types={"Philz": "company"}), ONTOLOGY,
                           MatchingConfig())
    assert half.checked == 0
    # a blank range constrains only the subject: typing the subject is enough to be checked
    onto = Ontology(relations=[OntologyRelation(name="docked on", domain="spacecraft", range="")])
    docked = ontology_scores(graph(("Soyuz", "docked on", "1 May"), types={"Soyuz": "module"}), onto, MatchingConfig())
    assert (docked.checked, docked.domain_range) == (1, 0.0)  # module != spacecraft
    # a GraphRAG relationship has no predicate: it never conforms
    untyped = ExtractedGraph(entities=[Entity(name="Philz")], relationships=[Relationship(source="Philz", target="Jacob")])
    assert ontology_scores(untyped, ONTOLOGY, MatchingConfig()).conformance == 0.0
    # no relationships: conformance undefined, never perfect
    empty = ontology_scores(ExtractedGraph(), ONTOLOGY, MatchingConfig())
    assert (empty.records, empty.conformance, empty.domain_range) == (0, None, None)


def test_score_case_fills_ontology_only_when_given() -> None:
    case = GoldCase(id="c", text="Philz was founded by Phil Jaber.")
    g = graph(("Philz", "foundedBy", "Phil Jaber"), types=TYPES)
    assert score_case(case, g).ontology is None
    scored = score_case(case, g, None, ONTOLOGY)
    assert scored.ontology is not None and scored.ontology.conformance == 1.0


def test_ontology_types_are_its_entity_types_else_its_domains_and_ranges() -> None:
    # entity types listed: they are the list (a datatype range such as Date is no entity type)
    onto = Ontology(entity_types=["company", "company"],
                    relations=[OntologyRelation(name="r", domain="company", range="Date")])
    assert ontology_types(onto) == ["company"]
    # none listed: the domains and ranges, in order, once each
    bare = Ontology(relations=[OntologyRelation(name="r", domain="company", range="city"),
                               OntologyRelation(name="s", domain="city", range="")])
    assert ontology_types(bare) == ["company", "city"]
    assert ontology_types(ONTOLOGY) == ["company", "person", "city"]


def test_a_blank_range_is_not_declared() -> None:
    onto = Ontology(relations=[OntologyRelation(name="docked on", domain="spacecraft", range="")])
    g = graph(("Soyuz", "docked on", "1 May 2001"), types={"Soyuz": "spacecraft", "1 May 2001": "date"})
    scores = ontology_scores(g, onto, MatchingConfig())
    # conforms; checked on its domain only (spacecraft == spacecraft) -> 1/1
    assert (scores.conformance, scores.checked, scores.domain_range) == (1.0, 1, 1.0)


def test_repeated_relation_names_match_either_declaration() -> None:
    onto = Ontology(relations=[OntologyRelation(name="part of", domain="city", range="country"),
                               OntologyRelation(name="partOf", domain="company", range="company")])
    g = graph(("Lyon", "part of", "France"), ("Acme EU", "part of", "Acme"),
              types={"Lyon": "city", "France": "country", "Acme EU": "company", "Acme": "country"})
    scores = ontology_scores(g, onto, MatchingConfig())
    # both conform; Lyon -> France fits the first declaration, Acme EU -> Acme (country) neither -> 1/2
    assert (scores.conforming, scores.checked, scores.domain_range_ok) == (2, 2, 1)
