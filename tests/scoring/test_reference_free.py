"""Reference-free figures (issue 15): every definition with numbers worked out by hand.

The worked example is the one in docs/scoring.md, "Reference-free figures".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.model import Entity, ExtractedGraph, GoldCase, Relationship
from harness.scoring import REFERENCE_FREE_KEYS, reference_free, reference_free_to_json, score_case
from harness.scoring.reference_free import PLACEHOLDER_DESCRIPTIONS, is_placeholder_description

REPO = Path(__file__).resolve().parents[2]

CHUNK = "José Núñez, mayor of Lowbridge, met the Harbor Trust."
# GraphRAG's default extract_graph prompt's first example names Martin Smith and the Central Institution.
EXAMPLES = "Example 1: Martin Smith, Chair of the Central Institution, will take questions at a press conference."


def E(name: str, type: str = "", description: str = "described") -> Entity:  # noqa: A002
    return Entity(name=name, type=type, description=description)


def R(source: str, target: str, description: str = "linked", strength: float | None = None) -> Relationship:
    return Relationship(source=source, target=target, description=description, strength=strength)


WORKED = ExtractedGraph(
    entities=[
        E("JOSÉ NÚÑEZ", "person", "Mayor of Lowbridge"),
        E("José Núñez", "organization", "n/a"),  # duplicate with another type, placeholder description
        E("LOWBRIDGE", "geo", "A river town"),
        E("MARTIN SMITH", "person", "Chair of the Central Institution"),  # leaked from the examples
        E("JOSE NUNEZ", "person", "Mayor"),  # accents are kept: another name, not in the chunk
    ],
    relationships=[
        R("JOSÉ NÚÑEZ", "LOWBRIDGE", "Mayor of the town", 8),
        R("LOWBRIDGE", "José Núñez", "Same link written back", 12),  # same pair; strength out of 1..10
        R("JOSÉ NÚÑEZ", "HARBOR TRUST", "<relationship_description>", 5),  # dangling; placeholder
        R("LOWBRIDGE", "lowbridge", "Itself", 3),  # self-loop
    ],
)


def test_the_worked_example_of_the_docs():
    rf = reference_free(WORKED, CHUNK, entity_types=["person", "geo"], examples=EXAMPLES)
    assert rf.entities == 4  # josé núñez, lowbridge, martin smith, jose nunez
    assert rf.relationships == 2  # {josé núñez, lowbridge}, {josé núñez, harbor trust}; the self-loop is not one
    assert rf.grounded == 2
    assert rf.ungrounded == ["MARTIN SMITH", "JOSE NUNEZ"]
    assert rf.type_conformance == pytest.approx(4 / 5)  # "organization" is not listed
    assert rf.duplicate_records == 1
    assert rf.type_conflicts == 1  # josé núñez: person and organization
    assert rf.dangling == 1  # HARBOR TRUST is no predicted entity
    assert rf.self_loops == 1
    assert rf.example_leaks == 1 and rf.example_leak_names == ["MARTIN SMITH"]
    assert rf.empty_descriptions == 2  # "n/a" and "<relationship_description>"
    assert rf.strengths_out_of_scale == 1  # 12
    assert (rf.entity_records, rf.relationship_records, rf.conforming_records) == (5, 4, 4)
    # "Chair of the Central Institution": five words of the example text the chunk does not hold
    assert rf.example_descriptions == 1
    # every endpoint (HARBOR TRUST too, though undeclared) is in the chunk
    assert (rf.ungrounded_endpoints, rf.example_relationships, rf.example_endpoint_names) == (0, 0, [])


def test_json_has_exactly_the_issue_keys_in_order():
    data = reference_free_to_json(reference_free(WORKED, CHUNK))
    assert list(data) == list(REFERENCE_FREE_KEYS) == [
        "entities", "relationships", "grounded", "ungrounded", "type_conformance", "duplicate_records",
        "type_conflicts", "dangling", "self_loops", "example_leaks", "example_leak_names", "empty_descriptions",
        "type_word_names", "type_word_names_found",  # issue 27: a swapped name is its own finding
        # issue 28: relationships and descriptions copied from the examples, endpoints not in the chunk
        "example_relationships", "example_endpoint_names", "example_descriptions", "ungrounded_endpoints",
    ]
    assert data["type_conformance"] is None and data["example_leaks"] is None and data["type_word_names"] is None
    assert data["example_relationships"] is None and data["example_descriptions"] is None
    assert data["ungrounded_endpoints"] == 0


# ---------------------------------------------------------------- issue 28: what leaks besides declared entities

COPIED_EXAMPLE = ExtractedGraph(  # a real model's answer: the prompt's worked example, as relationships only
    entities=[E("JOSÉ NÚÑEZ", "person", "Mayor of Lowbridge")],
    relationships=[
        R("MARTIN SMITH", "CENTRAL INSTITUTION", "Martin Smith, Chair of the Central Institution, will take questions"),
        R("JOSÉ NÚÑEZ", "MARTIN SMITH", "met"),
        R("JOSÉ NÚÑEZ", "HARBOR TRUST", "met the trust"),
        R("JOSÉ NÚÑEZ", "person", "type word, not a leak"),
    ],
)


def test_relationships_copied_from_the_example_are_counted_though_no_entity_declares_them():
    rf = reference_free(COPIED_EXAMPLE, CHUNK, entity_types=["person"], examples=EXAMPLES)
    assert rf.example_leaks == 0  # the declared entity is the chunk's: the leak count alone saw nothing
    assert rf.example_relationships == 2  # records 1 and 2: an endpoint from the example, not in the chunk
    assert rf.example_endpoint_names == ["MARTIN SMITH", "CENTRAL INSTITUTION"]
    assert rf.ungrounded_endpoints == 3  # records 1, 2 and 4 (`person` is not in the chunk)
    assert rf.example_descriptions == 1  # record 1 copies eight words of the example text


def test_the_new_figures_are_na_without_example_text_and_descriptions():
    rf = reference_free(COPIED_EXAMPLE, CHUNK, entity_types=["person"])
    assert (rf.example_relationships, rf.example_descriptions, rf.example_endpoint_names) == (None, None, [])
    assert rf.ungrounded_endpoints == 3  # grounding needs no example text
    triples = reference_free(COPIED_EXAMPLE, CHUNK, examples=EXAMPLES, descriptions=False)
    assert triples.example_descriptions is None and triples.example_relationships == 2


def test_a_description_the_chunk_holds_is_not_copied_though_the_prompt_holds_it_too():
    chunk = "At noon Martin Smith, Chair of the Central Institution, said he will take questions at a press conference."
    graph = ExtractedGraph(entities=[E("MARTIN SMITH", "person", "Chair of the Central Institution")],
                           relationships=[R("MARTIN SMITH", "CENTRAL INSTITUTION", "will take questions at a press conference")])
    rf = reference_free(graph, chunk, examples=EXAMPLES)
    assert (rf.example_descriptions, rf.example_relationships, rf.ungrounded_endpoints) == (0, 0, 0)


def test_copied_descriptions_are_na_when_the_chunk_is_one_of_the_examples():
    """Its own example answer is in the prompt: copying it cannot be told from extracting."""
    chunk = "Martin Smith, Chair of the Central Institution, will take questions at a press conference."
    graph = ExtractedGraph(entities=[E("MARTIN SMITH", "person", "The chair, who spoke")])
    examples = EXAMPLES + '\n("entity"<|>MARTIN SMITH<|>person<|>The chair, who spoke)'
    assert reference_free(graph, chunk, examples=examples).example_descriptions is None
    assert reference_free(graph, "Martin Smith spoke.", examples=examples).example_descriptions == 1


def test_accents_are_kept_case_is_folded():
    graph = ExtractedGraph(entities=[E("José Núñez"), E("JOSÉ NÚÑEZ"), E("jose nunez")])
    rf = reference_free(graph, "JOSE NUNEZ spoke.")
    assert rf.entities == 2 and rf.duplicate_records == 1
    assert rf.grounded == 1  # only the unaccented name occurs in this chunk
    assert rf.ungrounded == ["José Núñez"]  # as first predicted


def test_case_and_punctuation_variants_are_one_entity_and_ground():
    graph = ExtractedGraph(entities=[E("Osei-Landry", "PERSON"), E('"OSEI LANDRY"', "person"), E("the Harbor Trust", "org")])
    rf = reference_free(graph, "Dr. Osei‑Landry chairs Harbor Trust.")
    assert (rf.entities, rf.duplicate_records, rf.type_conflicts, rf.grounded) == (2, 1, 0, 2)


def test_a_name_is_grounded_only_as_whole_words():
    rf = reference_free(ExtractedGraph(entities=[E("Low"), E("Lowbridge")]), "Lowbridge is a town.")
    assert rf.grounded == 1 and rf.ungrounded == ["Low"]


def test_type_conformance_is_none_for_an_untyped_prompt():
    graph = ExtractedGraph(entities=[E("Ana", "person")])
    assert reference_free(graph, "Ana").type_conformance is None
    assert reference_free(graph, "Ana", entity_types=[]).type_conformance is None
    assert reference_free(graph, "Ana", entity_types=[]).conforming_records is None
    assert reference_free(ExtractedGraph(), "Ana", entity_types=["person"]).type_conformance is None  # no record
    assert reference_free(ExtractedGraph(), "Ana", entity_types=["person"]).conforming_records == 0


def test_type_conformance_is_case_insensitive_and_goes_through_the_synonyms():
    graph = ExtractedGraph(entities=[E("A", "PERSON"), E("B", "Location"), E("C", "geo"), E("D", ""), E("E", "event")])
    synonyms = {"location": ["geo", "place"]}
    rf = reference_free(graph, "A B C D E", entity_types=["person", "geo"], type_synonyms=synonyms)
    assert rf.type_conformance == pytest.approx(3 / 5)  # PERSON, Location ~ geo, geo; not "" nor event
    assert reference_free(graph, "", entity_types=["person", "geo"]).type_conformance == pytest.approx(2 / 5)


def test_type_conflicts_count_names_with_two_canonical_types_not_records():
    graph = ExtractedGraph(entities=[E("Ana", "person"), E("ANA", "PERSON"), E("ana", ""), E("Ana", "org"),
                                     E("Bo", "geo"), E("Bo", "location"), E("Cy", "person")])
    assert reference_free(graph, "").type_conflicts == 2  # ana {person, org}; bo {geo, location}
    assert reference_free(graph, "", type_synonyms={"location": ["geo"]}).type_conflicts == 1  # bo is one type
    assert reference_free(graph, "").duplicate_records == 4


def test_relationships_are_distinct_undirected_pairs_of_normalised_endpoints():
    graph = ExtractedGraph(
        entities=[E("A"), E("B"), E("C")],
        relationships=[R("A", "B"), R("b", "a"), R("A", "C"), R("C", "c"), R("A", "Zed"), R(" ", "A")],
    )
    rf = reference_free(graph, "")
    assert rf.relationships == 3  # {a,b}, {a,c}, {a,zed}; the self-loop and the blank endpoint are not
    assert rf.self_loops == 1 and rf.dangling == 1  # Zed is no predicted entity
    assert rf.relationship_records == 5  # the blank endpoint is left out, as scoring drops it


def test_a_dangling_self_loop_counts_in_both():
    rf = reference_free(ExtractedGraph(relationships=[R("Zed", "ZED")]), "")
    assert (rf.relationships, rf.dangling, rf.self_loops) == (0, 1, 1)


def test_example_leaks_are_names_in_the_examples_and_not_in_the_chunk():
    graph = ExtractedGraph(entities=[E("MARTIN SMITH"), E("Central Institution"), E("Lowbridge"), E("Nobody")])
    rf = reference_free(graph, "Martin Smith visited Lowbridge.", examples=EXAMPLES)
    assert rf.example_leaks == 1 and rf.example_leak_names == ["Central Institution"]  # Martin Smith is in the chunk
    assert rf.ungrounded == ["Central Institution", "Nobody"]
    assert reference_free(graph, "", examples="").example_leaks == 0  # examples known, none there
    none_given = reference_free(graph, "")
    assert none_given.example_leaks is None and none_given.example_leak_names == []


@pytest.mark.parametrize("description", ["", "  ", "n/a", "N/A", "none", "None.", "unknown", "-", "...", "…",
                                         "<entity_description>", "<relationship_description>", "entity_description",
                                         "Description", '"n/a"', "(none)", "TBD", "not available"])
def test_placeholder_descriptions(description):
    assert is_placeholder_description(description)


@pytest.mark.parametrize("description", ["Mayor", "None of the above apply to the mayor", "N/A, says the mayor",
                                         "Unknown soldier of the war", "Na"])
def test_real_descriptions(description):
    assert is_placeholder_description(description) == (description == "Na")


def test_the_placeholder_list_is_what_the_docs_say():
    text = (REPO / "docs" / "scoring.md").read_text(encoding="utf-8")
    for word in PLACEHOLDER_DESCRIPTIONS:
        assert f"`{word}`" in text, word


def test_strengths_outside_the_scale():
    graph = ExtractedGraph(entities=[E("A"), E("B")],
                           relationships=[R("A", "B", strength=s) for s in (None, 0, 1, 10, 10.5, 7.5, -2)])
    assert reference_free(graph, "").strengths_out_of_scale == 3  # 0, 10.5, -2
    assert reference_free(graph, "", strength_scale=(0, 10)).strengths_out_of_scale == 2
    assert reference_free(graph, "", strength_scale=None).strengths_out_of_scale == 0  # LightRAG asks for none


def test_empty_descriptions_count_entity_and_relationship_records():
    graph = ExtractedGraph(entities=[E("A", description=""), E("a", description="n/a"), E("B")],
                           relationships=[R("A", "B", description="-"), R("A", "B", description="ok")])
    assert reference_free(graph, "").empty_descriptions == 3


def test_an_empty_answer():
    rf = reference_free(ExtractedGraph(), "Anything.", entity_types=["person"], examples=EXAMPLES)
    assert (rf.entities, rf.relationships, rf.grounded, rf.ungrounded, rf.example_leaks) == (0, 0, 0, [], 0)


# ---------------------------------------------------------------- agreement with today's scoring

AGREEMENT = [
    (WORKED, CHUNK),
    (ExtractedGraph(entities=[E("北京 大学"), E("Straße"), E("STRASSE"), E("The Caldera Institute"), E("  ")],
                    relationships=[R("北京大学", "Straße"), R("strasse", "STRASSE"), R("Caldera Institute", "X")]),
     "Der Weg zur Strasse am 北京大学 und das Caldera Institute."),
    (ExtractedGraph(entities=[E("Alzheimer's"), E("C. lunaris"), E("Johnson &amp; Johnson")]),
     "Alzheimers in c lunaris, by Johnson & Johnson."),
]


@pytest.mark.parametrize("graph,text", AGREEMENT, ids=["worked", "cjk-and-folding", "punctuation"])
def test_grounding_counts_agree_with_case_score(graph, text):
    rf = reference_free(graph, text)
    score = score_case(GoldCase(id="c", text=text), graph)
    assert rf.grounded == score.grounding.grounded
    assert rf.entities - rf.grounded == score.grounding.ungrounded
    assert rf.entities == score.entities.pred
    assert rf.duplicate_records == score.dropped["duplicate_entities"]
    assert rf.relationships == score.relationships.pred  # without gold, edges map to their own names
    assert rf.self_loops == score.dropped["self_loops"]


@pytest.mark.parametrize("suite", ["biomed", "news-es", "podcast"])
def test_grounding_agrees_with_the_shipped_golden_results(suite):
    from harness.suites import load_suite

    texts = {case.id: case.text for case in load_suite(REPO / "suites" / f"{suite}.yaml").cases}
    lines = (REPO / "tests" / "golden" / suite / "results.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]  # timings are masked: read only what is needed
    checked = 0
    for row in rows:
        if row.get("score") is None:
            continue
        rf = reference_free(ExtractedGraph.model_validate(row["graph"]), texts[row["case_id"]])
        assert rf.grounded == row["score"]["grounding"]["grounded"], row["case_id"]
        assert rf.entities == row["score"]["entities"]["pred"], row["case_id"]
        checked += 1
    assert checked


# --------------------------------------------------------------------------- formats without types or descriptions


def test_an_answer_of_plain_triples_has_no_type_conformance_and_no_empty_description_count() -> None:
    # `(Philz, founded in, Berkeley)` read as triples: two entities with no type, one relationship,
    # no description anywhere. A triple format writes no descriptions (n/a, not "3 empty") and its
    # types are optional: an answer that types nothing has no conformance (n/a, not 0 of 2)
    graph = ExtractedGraph(entities=[Entity(name="Philz"), Entity(name="Berkeley")],
                           relationships=[Relationship(source="Philz", target="Berkeley", type="founded in")])
    plain = reference_free(graph, "Philz was founded in Berkeley.", entity_types=["organization", "geo"],
                           descriptions=False, types_optional=True)
    assert plain.type_conformance is None and plain.conforming_records is None
    assert plain.empty_descriptions is None
    assert reference_free_to_json(plain)["empty_descriptions"] is None
    # the same records read as GraphRAG's (types and descriptions required): 0 of 2 conform, 3 empty
    strict = reference_free(graph, "Philz was founded in Berkeley.", entity_types=["organization", "geo"])
    assert (strict.type_conformance, strict.empty_descriptions) == (0.0, 3)
    # one typed triple entity is enough for conformance to stand on: 1 conforming of 2 records
    typed = ExtractedGraph(entities=[Entity(name="Philz", type="organization"), Entity(name="Berkeley")],
                           relationships=graph.relationships)
    assert reference_free(typed, "Philz was founded in Berkeley.", entity_types=["organization", "geo"],
                          descriptions=False, types_optional=True).type_conformance == 0.5


def _placeholder_description_as_defined(description: str) -> bool:
    """The definition, written plainly (no shortcut on the first character)."""
    import unicodedata

    from harness.parsing.fields import is_placeholder
    from harness.scoring.reference_free import _WRAPPERS

    text = description.strip()
    if not text or is_placeholder(text) or all(unicodedata.category(ch)[0] in "PSZ" for ch in text):
        return True
    key = " ".join(text.strip(_WRAPPERS).casefold().replace("_", " ").rstrip(".").split())
    return not key or key in PLACEHOLDER_DESCRIPTIONS


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("aN/ .…-?_<>'\"«» \t$€é1") + ["n/a", "none", "NULL"]), max_size=8).map("".join))
def test_placeholder_description_shortcut_changes_nothing(description: str) -> None:
    assert is_placeholder_description(description) == _placeholder_description_as_defined(description)


def test_example_text_normalised_once_still_counts_leaks_per_text() -> None:
    # the examples' normalisation is cached per text: two example texts must not share a result
    graph = ExtractedGraph(entities=[Entity(name="Martin Smith", type="person")])
    assert reference_free(graph, CHUNK, examples=EXAMPLES).example_leaks == 1
    assert reference_free(graph, CHUNK, examples="Example 1: nobody.").example_leaks == 0
    assert reference_free(graph, CHUNK, examples=EXAMPLES).example_leak_names == ["Martin Smith"]


def test_a_name_that_is_a_type_word_is_not_an_example_leak():
    """Issue 27, item 10: a small model swapped the name and type fields; the type list is part of
    the prompt's text, so each such name counted as an example leak (17 in a LightRAG cache, none
    from an example). It is its own finding; a real leak stays a leak."""
    examples = "Entity types: person, organization\nExample: MARTIN SMITH chairs the Central Institution."
    graph = ExtractedGraph(entities=[E("PERSON", "Alice"), E("Organization", "Harbor Trust"), E("MARTIN SMITH", "person")])
    rf = reference_free(graph, "Alice chairs Harbor Trust.", entity_types=["person", "organization"], examples=examples)
    assert (rf.example_leaks, rf.example_leak_names) == (1, ["MARTIN SMITH"])
    assert (rf.type_word_names, rf.type_word_names_found) == (2, ["PERSON", "Organization"])
    assert rf.rounds[0].example_leaks == 1
    # through the suite's synonyms; and n/a, not 0, without a type list
    org = reference_free(ExtractedGraph(entities=[E("company", "x")]), "x", entity_types=["organization"],
                         type_synonyms={"organization": ["company"]})
    assert org.type_word_names == 1
    assert reference_free(graph, "Alice chairs Harbor Trust.", examples=examples).type_word_names is None
