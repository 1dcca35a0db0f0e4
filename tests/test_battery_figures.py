"""Battery (issue 28, items 17-19): figures a real model's garbage makes wrong.

Invented variants of what weak models answer, one parametrized test per surface:

- tune answers (item 17): whatever `harness tune` takes from an answer into a prompt is checked
  against the tuning prompt's own text (its answer shape, its instructions, its example passages);
- reference-free figures (item 18): relationships whose endpoints come from the prompt's examples,
  descriptions copied from the prompt, endpoints not in the chunk;
- community reports (item 19): citations to ids the community's tables do not hold, counted per
  dataset, in every citation form GraphRAG's prompts use; names copied from the prompt's own example
  report; the same citations in `harness audit-cache`; `harness evaluate --examples`.

Every variant states what must hold; the controls (answers that must NOT be flagged) are part of
each surface, so a check that flags everything breaks them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cache_audit.classify import Kind
from harness.cache_audit.entry import CacheEntry
from harness.cache_audit.kind_checks import audit_entry
from harness.cli import main
from harness.errors import ModelCallError
from harness.model import GoldCase
from harness.formats.answer import parse
from harness.prompts.leakage import prompt_without_chunk
from harness.prompts.loading import load_prompt
from harness.prompts.resolve import resolve_prompt
from harness.prompts.yaml_template import load_yaml_text
from harness.scoring.reference_free import reference_free
from harness.scoring.report_score import GRAPH_DATASETS, TEXT_UNIT_DATASETS, score_report
from harness.tune.assemble import FORMAT_BASES, base_delimiters, builtin_doc, dump, example_entity_names, extraction_doc
from harness.tune.examples import judge_example
from harness.tune.steps import clean_entity_types, clean_line, clean_persona, clean_rating

STOCK = Path(__file__).parent / "fixtures" / "stock_prompts"

# --------------------------------------------------------------------------- tune: entity types

GOOD_TYPES = ["person", "organization", "podcast"]


def types_answer(*items: Any) -> str:
    return json.dumps({"entity_types": list(items)})


# (id, answer, the items that must not reach the prompt); an empty tuple: a control, nothing dropped
ENTITY_TYPE_VARIANTS: list[tuple[str, str, tuple[str, ...]]] = [
    ("type-echoed", types_answer("type", *GOOD_TYPES), ("type",)),
    ("Type-capital", types_answer("Type", *GOOD_TYPES), ("type",)),
    ("TYPE-upper", types_answer("TYPE", *GOOD_TYPES), ("type",)),
    ("type-quoted", types_answer('"type"', *GOOD_TYPES), ("type",)),
    ("type-angle", types_answer("<type>", *GOOD_TYPES), ("type",)),
    ("type-last", types_answer(*GOOD_TYPES, "type"), ("type",)),
    ("types-plural", types_answer("types", *GOOD_TYPES), ("types",)),
    ("schema-key", types_answer("entity_types", *GOOD_TYPES), ("entity_types",)),
    ("schema-key-spaced", types_answer("entity types", *GOOD_TYPES), ("entity_types",)),
    ("schema-key-singular", types_answer("entity_type", *GOOD_TYPES), ("entity_type",)),
    ("placeholder-entity", types_answer("entity", *GOOD_TYPES), ("entity",)),
    ("instruction-echo", types_answer("short lower-case general types", *GOOD_TYPES),
     ("short_lower_case_general_types",)),
    ("instruction-echo-2", types_answer("such as person", *GOOD_TYPES), ("such_as_person",)),
    ("instruction-echo-3", types_answer("the passages below", *GOOD_TYPES), ("the_passages_below",)),
    ("dict-items", json.dumps({"entity_types": [{"name": "type"}, {"name": "person"}, {"name": "podcast"}]}),
     ("type",)),
    ("types-key", json.dumps({"types": ["type", "person", "podcast"]}), ("type",)),
    ("bare-list", json.dumps(["type", "person", "podcast"]), ("type",)),
    ("fenced", "```json\n" + types_answer("type", "person", "podcast") + "\n```", ("type",)),
    ("think-block", "<think>the schema says type</think>" + types_answer("type", "person"), ("type",)),
    ("two-echoes", types_answer("type", "entity_types", "person"), ("type", "entity_types")),
    # controls: the prompt's own example types are real types; a word that holds "type" is not "type"
    ("control-example-types", types_answer("person", "organization", "location"), ()),
    ("control-domain-types", types_answer("podcast_host", "startup", "product"), ()),
    ("control-blood-type", types_answer("blood_type", "patient"), ()),
    ("control-event-type", types_answer("event_type", "venue"), ()),
    ("control-typeface", types_answer("typeface", "font_designer"), ()),
]

# answers whose every type is an echo: refused as an empty list is, never an empty prompt
ALL_ECHO_TYPES = [
    ("only-type", types_answer("type")),
    ("type-and-ellipsis", types_answer("type", "...")),
    ("type-twice", types_answer("type", "Type")),
    ("schema-words", types_answer("type", "entity_types", "types")),
    ("dict-type", json.dumps({"entity_types": [{"type": "type"}]})),
]


@pytest.mark.parametrize(("answer", "echoed"), [v[1:] for v in ENTITY_TYPE_VARIANTS],
                         ids=[v[0] for v in ENTITY_TYPE_VARIANTS])
def test_tune_entity_types(answer: str, echoed: tuple[str, ...]) -> None:
    types, notes = clean_entity_types(answer)
    for item in echoed:
        assert item not in types
        assert any(item in note.lower().replace("-", "_").replace(" ", "_") for note in notes), notes
    if not echoed:
        assert not any("tuning prompt" in note for note in notes), notes
        assert len(types) == len(json.loads(answer)["entity_types"])


@pytest.mark.parametrize("answer", [v[1] for v in ALL_ECHO_TYPES], ids=[v[0] for v in ALL_ECHO_TYPES])
def test_tune_entity_types_all_echoed(answer: str) -> None:
    with pytest.raises(ModelCallError, match="tuning prompt"):
        clean_entity_types(answer)


# --------------------------------------------------------------------------- tune: rating, domain, persona

RATING_EXAMPLE = ("A float score between 0 and 10 for how much the community affects public health, "
                  "0 being trivial and 10 being a matter of national policy.")
RATING_VARIANTS: list[tuple[str, str, bool]] = [  # (id, answer, refused)
    ("word-for-word", RATING_EXAMPLE, True),
    ("quoted", f'"{RATING_EXAMPLE}"', True),
    ("prefixed", f"Rating: {RATING_EXAMPLE}", True),
    ("rating-description-prefix", f"Rating description: {RATING_EXAMPLE}", True),
    ("with-for-example", f'for example: "{RATING_EXAMPLE}"', True),
    ("lower-case", RATING_EXAMPLE.lower(), True),
    ("no-full-stop", RATING_EXAMPLE.rstrip("."), True),
    ("think-block", f"<think>copy it</think>{RATING_EXAMPLE}", True),
    ("fenced", f"```\n{RATING_EXAMPLE}\n```", True),
    ("spaced", "  " + RATING_EXAMPLE.replace(" ", "   ") + "\n", True),
    ("domain-swapped", RATING_EXAMPLE.replace("public health", "technology podcasts"), True),
    ("instruction-echo", "In one or two sentences, say what the rating measures for this domain and what a 0 "
                         "and a 10 mean.", True),
    ("instruction-echo-2", "Community reports rate how much a group of related entities from technology "
                           "podcasts texts matters, from 0 to 10.", True),
    ("control-adapted", "A float score between 0 and 10 for how much the community shapes the technology "
                        "podcast landscape, 0 being an offhand mention and 10 being an industry-defining shift.", False),
    ("control-own-words", "0 means the community barely matters to listeners; 10 means it changes how the "
                          "industry builds and sells its products.", False),
    ("control-short", "From 0, a passing mention, to 10, a story that reshapes the technology industry.", False),
]


@pytest.mark.parametrize(("answer", "refused"), [v[1:] for v in RATING_VARIANTS], ids=[v[0] for v in RATING_VARIANTS])
def test_tune_rating(answer: str, refused: bool) -> None:
    if refused:
        with pytest.raises(ModelCallError, match="tuning prompt"):
            clean_rating(answer)
    else:
        assert clean_rating(answer)


DOMAIN_VARIANTS: list[tuple[str, str, bool]] = [
    ("example-list", "technology podcasts, clinical pharmacology, regional news", True),
    ("example-list-parenthesised", "(for example: technology podcasts, clinical pharmacology, regional news)", True),
    ("instruction", "Answer with the domain only", True),
    ("instruction-2", "in a few words", True),
    ("instruction-3", "The domain they come from", True),
    ("control-one-example", "technology podcasts", False),
    ("control-other-example", "clinical pharmacology", False),
    ("control-own", "Formula 1 motorsport journalism", False),
    ("control-with-texts", "technology podcast transcripts", False),
]


@pytest.mark.parametrize(("answer", "refused"), [v[1:] for v in DOMAIN_VARIANTS], ids=[v[0] for v in DOMAIN_VARIANTS])
def test_tune_domain(answer: str, refused: bool) -> None:
    if refused:
        with pytest.raises(ModelCallError, match="tuning prompt"):
            clean_line(answer, "domain")
    else:
        assert clean_line(answer, "domain")


PERSONA_ECHO = ('You are an expert who builds knowledge graphs from technology podcasts texts: two or three '
                'sentences in the second person, starting with "You are", saying what the expert knows and '
                'which entities and relationships they care about.')
PERSONA_VARIANTS: list[tuple[str, str, bool]] = [
    ("instruction-echo", PERSONA_ECHO, True),
    ("instruction-echo-answer-only", PERSONA_ECHO + " Answer with the persona only.", True),
    ("instruction-echo-persona-prefix", "Persona: " + PERSONA_ECHO, True),
    ("instruction-echo-lower", PERSONA_ECHO.lower(), True),
    ("control-real", "You are an expert who builds knowledge graphs from technology podcasts. You know the "
                     "hosts, guests, companies and products they discuss, and you care about who founded, funded, "
                     "built or criticised what.", False),
    ("control-short", "You are a technology journalist who tracks startups, their founders and their investors.", False),
]


@pytest.mark.parametrize(("answer", "refused"), [v[1:] for v in PERSONA_VARIANTS], ids=[v[0] for v in PERSONA_VARIANTS])
def test_tune_persona(answer: str, refused: bool) -> None:
    if refused:
        with pytest.raises(ModelCallError, match="tuning prompt"):
            clean_persona(answer)
    else:
        assert clean_persona(answer)


# --------------------------------------------------------------------------- tune: example answers

TUNE_CHUNK = ("Maya Chen hosts the Circuit Breakers podcast. In episode 12 she interviews Omar Haddad, "
              "founder of the robotics startup Gearloose, about its new warehouse robot.")
TUNE_TYPES = ["person", "organization", "product"]


def _extractor_text() -> str:
    base = builtin_doc(FORMAT_BASES["graphrag"])
    doc = extraction_doc(name="t", domain="technology podcasts", language="English", persona="You are an expert.",
                         entity_types=TUNE_TYPES, format="graphrag", examples=base.get("examples", []))
    template = load_yaml_text(dump(doc), "<tune extractor>")
    return prompt_without_chunk(template, {"entity_types": ",".join(TUNE_TYPES), "language": "English",
                                           **base_delimiters(base)})


EXTRACTOR_TEXT = _extractor_text()
SHOWN_NAMES = example_entity_names(builtin_doc(FORMAT_BASES["graphrag"]))


def records(*rows: tuple[str, ...]) -> str:
    return "##".join("(" + "<|>".join(f'"{r[0]}"' if i == 0 else r[i] for i in range(len(r))) + ")" for r in rows) \
        + "<|COMPLETE|>"


def ent(name: str, kind: str, description: str) -> tuple[str, ...]:
    return ("entity", name, kind, description)


def rel(source: str, target: str, description: str, strength: str = "8") -> tuple[str, ...]:
    return ("relationship", source, target, description, strength)


MAYA = ent("MAYA CHEN", "person", "Host of the Circuit Breakers podcast")
OMAR = ent("OMAR HADDAD", "person", "Founder of Gearloose who was interviewed in episode 12")
GEAR = ent("GEARLOOSE", "organization", "Robotics startup that built a new warehouse robot")
GOOD_REL = rel("MAYA CHEN", "OMAR HADDAD", "Maya Chen interviews Omar Haddad in episode 12")
FOUNDED = rel("OMAR HADDAD", "GEARLOOSE", "Omar Haddad founded the robotics startup Gearloose")

EXAMPLE_ANSWER_VARIANTS: list[tuple[str, str, str]] = [  # (id, answer, the verdict kind)
    ("entity-description-copied", records(ent("MAYA CHEN", "person", "Chair of the Marlow Valley Water Board who "
                                              "announced when work would start"), OMAR, GEAR, GOOD_REL, FOUNDED), "copied"),
    ("relationship-description-copied", records(MAYA, OMAR, GEAR, rel("MAYA CHEN", "OMAR HADDAD", "The firm will draw "
                                                "up the plans for the board's reservoir"), FOUNDED), "copied"),
    ("instruction-copied", records(ent("MAYA CHEN", "person", "what the passage tells us about the entity, its "
                                       "attributes and what it does"), OMAR, GEAR, GOOD_REL, FOUNDED), "copied"),
    ("relationship-instruction", records(MAYA, OMAR, GEAR, rel("MAYA CHEN", "OMAR HADDAD", "how the passage connects "
                                         "the two"), FOUNDED), "copied"),
    ("copied-plus-tail", records(ent("GEARLOOSE", "organization", "The engineering firm that will draw up the "
                                     "reservoir plans, and a robotics startup"), MAYA, OMAR, GOOD_REL, FOUNDED), "copied"),
    ("copied-upper", records(ent("OMAR HADDAD", "person", "UNION LEADER WHO WARNED THAT THE CUT WOULD COST TWO "
                                 "HUNDRED JOBS"), MAYA, GEAR, GOOD_REL, FOUNDED), "copied"),
    ("placeholder-angle", records(ent("MAYA CHEN", "person", "<entity_description>"), OMAR, GEAR, GOOD_REL, FOUNDED),
     "placeholder"),
    ("placeholder-bare", records(ent("MAYA CHEN", "person", "entity_description"), OMAR, GEAR, GOOD_REL, FOUNDED),
     "placeholder"),
    ("placeholder-relationship", records(MAYA, OMAR, GEAR, rel("MAYA CHEN", "OMAR HADDAD", "<relationship_description>"),
                                         FOUNDED), "placeholder"),
    ("placeholder-na", records(MAYA, OMAR, ent("GEARLOOSE", "organization", "N/A"), GOOD_REL, FOUNDED), "placeholder"),
    ("control-good", records(MAYA, OMAR, GEAR, GOOD_REL, FOUNDED), "ok"),
    ("control-generic-phrase", records(MAYA, OMAR, ent("GEARLOOSE", "organization", "The startup that Omar Haddad "
                                       "founded, which the passage names"), GOOD_REL, FOUNDED), "ok"),
]


@pytest.mark.parametrize(("answer", "kind"), [v[1:] for v in EXAMPLE_ANSWER_VARIANTS],
                         ids=[v[0] for v in EXAMPLE_ANSWER_VARIANTS])
def test_tune_example_answers(answer: str, kind: str) -> None:
    verdict = judge_example(answer, chunk=TUNE_CHUNK, prompt_example_names=SHOWN_NAMES, entity_types=TUNE_TYPES,
                            prompt_text=EXTRACTOR_TEXT)
    assert verdict.kind == kind, verdict.reason


# --------------------------------------------------------------------------- reference-free figures

GRAPHRAG_PROMPT = resolve_prompt("builtin:graphrag.extract_graph").load()
EXAMPLES = prompt_without_chunk(GRAPHRAG_PROMPT, {"entity_types": "organization,person,geo,event", "language": "English",
                                                  "tuple_delimiter": "<|>", "record_delimiter": "##",
                                                  "completion_delimiter": "<|COMPLETE|>"})
TYPES = ["organization", "person", "geo", "event"]
CHUNK = TUNE_CHUNK

WATER = "MARLOW VALLEY WATER BOARD"
# (id, answer, expected figures: example_relationships, example_descriptions, ungrounded_endpoints)
FIGURE_VARIANTS: list[tuple[str, str, dict[str, int | None]]] = [
    ("example-relationship", records(MAYA, OMAR, GOOD_REL, rel(WATER, "ASHCOMBE", "The board will build its reservoir")),
     {"example_relationships": 1, "ungrounded_endpoints": 1}),
    ("example-relationships-only", records(rel(WATER, "ASHCOMBE", "x builds above y"),
                                           rel("PRIYA NATARAJAN", WATER, "she chairs it"),
                                           rel("COLDHARBOUR & FINCH", WATER, "draws plans")),
     {"example_relationships": 3, "ungrounded_endpoints": 3}),
    ("example-endpoint-mixed-case", records(MAYA, rel("Maya Chen", "Marlow Valley Water Board", "she reported on it")),
     {"example_relationships": 1, "ungrounded_endpoints": 1}),
    ("example-endpoint-article", records(MAYA, rel("MAYA CHEN", "the Marlow Valley Water Board", "she reported on it")),
     {"example_relationships": 1}),
    ("example-endpoint-possessive-free", records(MAYA, rel("TOMASZ WIERZBICKI", "MAYA CHEN", "he spoke to her")),
     {"example_relationships": 1, "ungrounded_endpoints": 1}),
    ("example-whole-copied", records(ent(WATER, "organization", "The public board that voted to build a reservoir above "
                                         "Ashcombe"), ent("ASHCOMBE", "geo", "The village below the site of the planned "
                                         "reservoir"), rel(WATER, "ASHCOMBE", "The board will build its reservoir above "
                                         "Ashcombe")),
     {"example_relationships": 1, "example_descriptions": 3, "ungrounded_endpoints": 1}),
    ("entity-description-copied", records(ent("MAYA CHEN", "person", "Chair of the Marlow Valley Water Board who "
                                          "announced when work would start"), OMAR, GOOD_REL),
     {"example_descriptions": 1, "example_relationships": 0}),
    ("relationship-description-copied", records(MAYA, OMAR, rel("MAYA CHEN", "OMAR HADDAD", "The firm will draw up "
                                                "the plans for the board's reservoir")),
     {"example_descriptions": 1}),
    ("description-instruction", records(ent("MAYA CHEN", "person", "what the passage tells us about the entity, its "
                                        "attributes and what it does"), OMAR, GOOD_REL),
     {"example_descriptions": 1}),
    ("description-copied-with-tail", records(ent("OMAR HADDAD", "person", "Union leader who warned that the cut would "
                                             "cost two hundred jobs; he also founded Gearloose"), MAYA, GOOD_REL),
     {"example_descriptions": 1}),
    ("description-short-copy", records(MAYA, OMAR, rel("MAYA CHEN", "OMAR HADDAD", "Natarajan chairs the board")),
     {"example_descriptions": 1}),
    ("description-copied-twice", records(ent("MAYA CHEN", "person", "The regulator that cut the herring quota"),
                                         ent("OMAR HADDAD", "person", "The regulator that cut the herring quota"), GOOD_REL),
     {"example_descriptions": 2}),
    ("hallucinated-endpoint", records(MAYA, rel("MAYA CHEN", "ELON MUSK", "she mentions him")),
     {"ungrounded_endpoints": 1, "example_relationships": 0}),
    ("two-ungrounded-endpoints", records(MAYA, rel("ADA LOVELACE", "ALAN TURING", "they met")),
     {"ungrounded_endpoints": 1, "example_relationships": 0}),
    ("control-good", records(MAYA, OMAR, GEAR, GOOD_REL, FOUNDED),
     {"example_relationships": 0, "example_descriptions": 0, "ungrounded_endpoints": 0}),
    ("control-generic-words", records(ent("MAYA CHEN", "person", "The host of the podcast, who interviews the founder "
                                          "of the startup"), OMAR, GOOD_REL),
     {"example_descriptions": 0}),
    ("control-type-word-endpoint", records(MAYA, rel("MAYA CHEN", "PERSON", "swapped fields")),
     {"example_relationships": 0}),
]


@pytest.mark.parametrize(("answer", "expected"), [v[1:] for v in FIGURE_VARIANTS], ids=[v[0] for v in FIGURE_VARIANTS])
def test_reference_free_figures(answer: str, expected: dict[str, int | None]) -> None:
    graph = parse(answer, "graphrag").graph
    scores = reference_free(graph, CHUNK, entity_types=TYPES, examples=EXAMPLES)
    assert {key: getattr(scores, key) for key in expected} == expected


def test_reference_free_figures_controls_without_examples_or_descriptions() -> None:
    graph = parse(records(ent(WATER, "organization", "The public board that voted to build a reservoir above Ashcombe"),
                          rel(WATER, "ASHCOMBE", "x")), "graphrag").graph
    unknown = reference_free(graph, CHUNK, entity_types=TYPES, examples=None)
    assert (unknown.example_relationships, unknown.example_descriptions) == (None, None)
    assert unknown.ungrounded_endpoints == 1  # grounding needs no examples
    triples = reference_free(graph, CHUNK, entity_types=TYPES, examples=EXAMPLES, descriptions=False)
    assert triples.example_descriptions is None and triples.example_relationships == 1


def test_reference_free_figures_control_chunk_in_the_prompt() -> None:
    """The case's chunk is the prompt's own example text: its names are extracted, not leaked, and
    whether a description copies its own example answer cannot be told (n/a)."""
    chunk = ("The Marlow Valley Water Board voted on Monday to build a reservoir above the village of Ashcombe. Board "
             "chair Priya Natarajan said work would start after the spring floods.")
    graph = parse(records(ent(WATER, "organization", "Voted on Monday to build a reservoir above the village of "
                              "Ashcombe"), ent("ASHCOMBE", "geo", "village"),
                          rel(WATER, "ASHCOMBE", "The Marlow Valley Water Board voted on Monday to build a reservoir")),
                  "graphrag").graph
    scores = reference_free(graph, chunk, entity_types=TYPES, examples=EXAMPLES)
    assert (scores.example_relationships, scores.example_descriptions, scores.ungrounded_endpoints) == (0, None, 0)


# --------------------------------------------------------------------------- community reports: citations

CONTEXT = """-----Entities-----
human_readable_id,title,description,degree
1,GEARLOOSE,Robotics startup,2
2,OMAR HADDAD,Founder of Gearloose,1


-----Relationships-----
human_readable_id,source,target,description,combined_degree
7,OMAR HADDAD,GEARLOOSE,Haddad founded Gearloose,3
"""


def report_json(cite: str, *, title: str = "Gearloose and its founder", body: str = "Omar Haddad founded Gearloose.",
                base: str = "[Data: Entities (1)]") -> str:
    """A report whose findings all cite `base` (valid in its context) but the last, which cites `cite`."""
    findings = [{"summary": f"Finding {i}", "explanation": f"{body} {base}"} for i in range(4)]
    findings.append({"summary": "Cited", "explanation": f"{body} {cite}"})
    return json.dumps({"title": title, "summary": f"{body} {base}", "rating": 4.0,
                       "rating_explanation": "A small startup.", "findings": findings})


HUGE = "9" * 5000
# (id, the citation, the invalid ids per dataset it must add)
CITATION_VARIANTS: list[tuple[str, str, dict[str, int]]] = [
    ("example-ids-more", "[Data: Entities (5), Relationships (37, 38, 39, 40, 41,+more)]",
     {"Entities": 1, "Relationships": 5}),
    ("example-ids-more-spaced", "[Data: Relationships (37, 38, 39, 40, 41, +more)]", {"Relationships": 5}),
    ("example-no-space", "[Data: Entities(6), Relationships (38, 43)]", {"Entities": 1, "Relationships": 2}),
    ("range", "[Data: Relationships (37-41)]", {"Relationships": 5}),
    ("range-en-dash", "[Data: Relationships (37–41)]", {"Relationships": 5}),
    ("range-reversed", "[Data: Relationships (41-37)]", {"Relationships": 1}),
    ("range-huge", "[Data: Relationships (1-1000000)]", {"Relationships": 1}),
    ("negative", "[Data: Relationships (-1)]", {"Relationships": 1}),
    ("huge-number", "[Data: Relationships (99999999999999999999999)]", {"Relationships": 1}),
    ("number-past-int-limit", f"[Data: Relationships ({HUGE})]", {"Relationships": 1}),
    ("range-past-int-limit", f"[Data: Relationships (1-{HUGE})]", {"Relationships": 1}),
    ("leading-zeros-past-int-limit", f"[Data: Relationships (0000{HUGE})]", {"Relationships": 1}),
    ("non-numeric", "[Data: Relationships (seven)]", {"Relationships": 1}),
    ("exponent", "[Data: Relationships (1e9)]", {"Relationships": 1}),
    ("hash-id", "[Data: Entities (#9)]", {"Entities": 1}),
    ("many-ids", "[Data: Relationships (" + ", ".join(str(i) for i in range(1, 201)) + ")]", {"Relationships": 199}),
    ("id-more-glued", "[Data: Relationships (64+more)]", {"Relationships": 1}),
    ("missing-table", "[Data: Claims (0, 1)]", {"Claims": 2}),
    ("missing-reports-table", "[Data: Reports (4)]", {"Reports": 1}),
    ("unknown-dataset", "[Data: Sources (2)]", {"Sources": 1}),
    ("semicolon-continuation", "[Data: Relationships (7), (8, 9)]", {"Relationships": 2}),
    ("comma-between-datasets", "[Data: Entities (1, 3), Relationships (7, 12)]", {"Entities": 1, "Relationships": 1}),
    ("in-summary-too", "[Data: Entities (2)] and [Data: Relationships (38)]", {"Relationships": 1}),
    # controls: every id is one the community holds
    ("control-valid", "[Data: Entities (1, 2); Relationships (7)]", {}),
    ("control-more-only", "[Data: Relationships (7, +more)]", {}),
    ("control-more-no-comma", "[Data: Relationships (7 +more)]", {}),
    ("control-more-glued", "[Data: Relationships (7+more)]", {}),
    ("control-more-word", "[Data: Relationships (7, more)]", {}),
    ("control-bare-more", "[Data: Relationships (+more)]", {}),
    ("control-range-inside", "[Data: Entities (1-2)]", {}),
    ("control-leading-zero", "[Data: Relationships (007)]", {}),
    ("control-singular-dataset", "[Data: Relationship (7); Entity (1)]", {}),
    ("control-upper-dataset", "[Data: RELATIONSHIPS (7)]", {}),
]


@pytest.mark.parametrize(("cite", "invalid"), [v[1:] for v in CITATION_VARIANTS], ids=[v[0] for v in CITATION_VARIANTS])
def test_report_citations_per_dataset(cite: str, invalid: dict[str, int]) -> None:
    text = report_json(cite)
    score = score_report(GoldCase(id="c", text=CONTEXT), text, parse(text, "report").graph, datasets=GRAPH_DATASETS)
    assert score.citations_invalid_by_dataset == invalid
    assert score.citations_invalid == sum(invalid.values())


TEXT_CONTEXT = """----REPORTS-----
community,full_content
4,"# Sub-community"


-----SOURCES-----
id,text,entity_degree
11,"Gearloose builds a warehouse robot.",6
12,Omar Haddad founded it.,2
"""
# GraphRAG's own text-unit report example cites `Date_Range ((2000, 01, 01), (2000, 07, 12))` and `Source (5)`
DATE_VARIANTS: list[tuple[str, str, dict[str, int]]] = [
    ("date-range", "[Data: Sources (11, 12), Date_Range ((2000, 01, 01), (2000, 07, 12))]", {}),
    ("date-range-singular-source", "[Data: Source (11), Date_Range ((2000, 04, 01), (2000, 07, 12))]", {}),
    ("date-range-and-reports", "[Data: Reports (4), Sources (7, 23), Date_Range ((2001, 05, 15), (2001, 05, 18))]",
     {"Sources": 2}),
    ("date-range-bad-source", "[Data: Sources (99), Date_Range ((2000, 01, 01), (2000, 07, 12))]", {"Sources": 1}),
    ("control-sources", "[Data: Sources (11); Reports (4)]", {}),
]


@pytest.mark.parametrize(("cite", "invalid"), [v[1:] for v in DATE_VARIANTS], ids=[v[0] for v in DATE_VARIANTS])
def test_report_citations_graphrag_text_forms(cite: str, invalid: dict[str, int]) -> None:
    text = report_json(cite, base="[Data: Sources (11)]")
    score = score_report(GoldCase(id="c", text=TEXT_CONTEXT), text, parse(text, "report").graph,
                         datasets=TEXT_UNIT_DATASETS)
    assert score.citations_invalid_by_dataset == invalid


# --------------------------------------------------------------------------- community reports: example names

def _report_examples(path: Path) -> str:
    return prompt_without_chunk(load_prompt(path), {"max_report_length": "1500", "language": "English"})


STOCK_REPORT_EXAMPLES = _report_examples(STOCK / "graphrag-3" / "prompts" / "community_report_graph.txt")
STOCK_0_REPORT_EXAMPLES = _report_examples(STOCK / "graphrag-0" / "prompts" / "community_report.txt")
BUILTIN_REPORT_EXAMPLES = prompt_without_chunk(resolve_prompt("builtin:graphrag.community_report").load(),
                                               {"language": "English"})
# (id, prompt's example text, report title, report body, leaked names expected)
LEAK_VARIANTS: list[tuple[str, str, str, str, int]] = [
    ("stock-title", STOCK_REPORT_EXAMPLES, "Verdant Oasis Plaza and Unity March", "Omar Haddad founded Gearloose.", 2),
    ("stock-upper", STOCK_REPORT_EXAMPLES, "Gearloose", "VERDANT OASIS PLAZA hosts Gearloose.", 1),
    ("stock-possessive", STOCK_REPORT_EXAMPLES, "Gearloose", "Harmony Assembly's role in Gearloose.", 1),
    ("stock-all-names", STOCK_REPORT_EXAMPLES, "Verdant Oasis Plaza",
     "Harmony Assembly, Unity March, Tribune Spotlight and Bailey Asadi meet Gearloose.", 5),
    ("stock-0.x", STOCK_0_REPORT_EXAMPLES, "Verdant Oasis Plaza", "Gearloose.", 1),
    ("builtin", BUILTIN_REPORT_EXAMPLES, "Brightwater Shipping and the Essel estuary fine",
     "The Harbour Safety Office fined Gearloose.", 3),
    ("builtin-lower", BUILTIN_REPORT_EXAMPLES, "gearloose", "brightwater shipping met omar haddad.", 1),
    ("control-clean", STOCK_REPORT_EXAMPLES, "Gearloose and its founder", "Omar Haddad founded Gearloose.", 0),
    ("control-common-words", STOCK_REPORT_EXAMPLES, "A march of robots", "Gearloose plans a unity of purpose.", 0),
    ("control-clean-builtin", BUILTIN_REPORT_EXAMPLES, "Gearloose", "Omar Haddad founded Gearloose.", 0),
]


@pytest.mark.parametrize(("examples", "title", "body", "leaks"), [v[1:] for v in LEAK_VARIANTS],
                         ids=[v[0] for v in LEAK_VARIANTS])
def test_report_example_names(examples: str, title: str, body: str, leaks: int) -> None:
    text = report_json("[Data: Relationships (7)]", title=title, body=body)
    score = score_report(GoldCase(id="c", text=CONTEXT), text, parse(text, "report").graph, datasets=GRAPH_DATASETS,
                         examples=examples)
    assert score.example_names == leaks, score.example_names_found


def test_report_example_names_controls() -> None:
    text = report_json("[Data: Relationships (7)]", title="Verdant Oasis Plaza")
    graph = parse(text, "report").graph
    assert score_report(GoldCase(id="c", text=CONTEXT), text, graph, datasets=GRAPH_DATASETS).example_names is None
    # the community itself holds the name: using it is reporting, not copying
    context = CONTEXT.replace("1,GEARLOOSE,Robotics startup,2", "1,VERDANT OASIS PLAZA,A plaza,2")
    score = score_report(GoldCase(id="c", text=context), text, graph, datasets=GRAPH_DATASETS,
                         examples=STOCK_REPORT_EXAMPLES)
    assert score.example_names == 0


# --------------------------------------------------------------------------- audit-cache: report entries

def _request(context: str) -> str:
    return (STOCK / "graphrag-3" / "prompts" / "community_report_graph.txt").read_text(encoding="utf-8") \
        .replace("{input_text}", context).replace("{max_report_length}", "1500").replace("{{", "{").replace("}}", "}")


AUDIT_VARIANTS: list[tuple[str, str, str | None, bool]] = [  # (id, citation, request, flagged)
    ("example-ids", "[Data: Entities (5), Relationships (37, 38, 39, 40, 41,+more)]", _request(CONTEXT), True),
    ("range", "[Data: Relationships (37-41)]", _request(CONTEXT), True),
    ("missing-table", "[Data: Claims (3)]", _request(CONTEXT), True),
    ("control-valid", "[Data: Entities (1, 2); Relationships (7)]", _request(CONTEXT), False),
    ("control-no-request", "[Data: Relationships (37-41)]", None, False),
    ("control-request-without-tables", "[Data: Relationships (37-41)]", "Write a report about Gearloose.", False),
]


@pytest.mark.parametrize(("cite", "request_text", "flagged"), [v[1:] for v in AUDIT_VARIANTS],
                         ids=[v[0] for v in AUDIT_VARIANTS])
def test_audit_cache_report_citations(cite: str, request_text: str | None, flagged: bool) -> None:
    entry = CacheEntry(id="r1", engine="graphrag", layout="graphrag-3.x", answer=report_json(cite), request=request_text)
    audit = audit_entry(entry, Kind("report", "metadata"))
    found = [c for c in audit.content if c.startswith("citation-unknown-id")]
    assert bool(found) == flagged, audit.content


# --------------------------------------------------------------------------- harness evaluate --examples

EVAL_SUITE = """\
name: imported
variants:
  project:
    prompt: prompts/extract_graph.txt
thresholds:
  grounded_rate: 0.85
  example_leaks: 0
  dangling: 0
  type_conformance: 0.9
cases:
  - id: c1
    text: "Maya Chen hosts the Circuit Breakers podcast. In episode 12 she interviews Omar Haddad."
  - id: c2
    text: "Omar Haddad founded the robotics startup Gearloose in Lisbon."
"""
PROJECT_PROMPT = ("-Goal-\nFind entities of types [{entity_types}] and relationships.\n-Examples-\nText: The Marlow "
                  "Valley Water Board met Priya Natarajan.\nOutput: (\"entity\"{tuple_delimiter}MARLOW VALLEY WATER "
                  "BOARD{tuple_delimiter}organization{tuple_delimiter}a board)\n-Real Data-\nEntity_types: "
                  "{entity_types}\nText: {input_text}\nOutput:")
CLEAN_ROWS = [
    {"id": "c1", "output": records(ent("MAYA CHEN", "person", "Podcast host"), ent("OMAR HADDAD", "person", "Guest"),
                                   rel("MAYA CHEN", "OMAR HADDAD", "interviews"))},
    {"id": "c2", "output": records(ent("OMAR HADDAD", "person", "Founder"), ent("GEARLOOSE", "organization", "Startup"),
                                   ent("LISBON", "geo", "City"), rel("OMAR HADDAD", "GEARLOOSE", "founded"))},
]
LEAKY_ROWS = [
    {"id": "c1", "output": records(ent("MAYA CHEN", "person", "Podcast host"), ent(WATER, "organization", "a board"),
                                   rel("MAYA CHEN", WATER, "she met it"))},
    CLEAN_ROWS[1],
]
OFF_TYPE_ROWS = [
    {"id": "c1", "output": records(ent("MAYA CHEN", "podcaster", "Podcast host"), ent("OMAR HADDAD", "guest", "Guest"),
                                   rel("MAYA CHEN", "OMAR HADDAD", "interviews"))},
    CLEAN_ROWS[1],
]


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    (tmp_path / "suites").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "suites" / "imported.yaml").write_text(EVAL_SUITE, encoding="utf-8")
    (tmp_path / "prompts" / "extract_graph.txt").write_text(PROJECT_PROMPT, encoding="utf-8")
    return tmp_path


def run_evaluate(capsys: pytest.CaptureFixture[str], project: Path, rows: list[dict[str, str]], *args: str) -> tuple[int, dict, str]:
    outputs = project / "other.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = main(["evaluate", str(project / "suites" / "imported.yaml"), "--outputs", str(outputs),
                 "--reports", str(project / "reports"), "--json", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code in (0, 1) and out.strip() else {}), err


EVALUATE_VARIANTS: list[tuple[str, list[dict[str, str]], tuple[str, ...], dict[str, Any]]] = [
    ("leak-counted", LEAKY_ROWS, ("--examples", "prompts/extract_graph.txt"), {"example_leaks": 1}),
    ("leak-builtin", [{"id": "c1", "output": records(MAYA, ent("PRIYA NATARAJAN", "person", "chair"),
                                                     rel("MAYA CHEN", "PRIYA NATARAJAN", "met"))}],
     ("--examples", "builtin:graphrag.extract_graph"), {"example_leaks": 1}),
    ("types-checked", OFF_TYPE_ROWS, ("--examples", "prompts/extract_graph.txt"), {"type_conformance": 0.6}),
    ("example-relationships", LEAKY_ROWS, ("--examples", "prompts/extract_graph.txt"), {"example_relationships": 1}),
    ("clean-passes-gate", CLEAN_ROWS, ("--examples", "prompts/extract_graph.txt", "--gate"),
     {"example_leaks": 0, "type_conformance": 1.0, "exit": 0}),
    ("suite-variant-by-default", LEAKY_ROWS, ("--variant", "project"), {"example_leaks": 1}),
    ("control-without-examples-na", LEAKY_ROWS, (), {"example_leaks": None, "example_relationships": None}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("rows", "args", "expected"), [v[1:] for v in EVALUATE_VARIANTS],
                         ids=[v[0] for v in EVALUATE_VARIANTS])
def test_evaluate_examples(imported: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                           rows: list[dict[str, str]], args: tuple[str, ...], expected: dict[str, Any]) -> None:
    monkeypatch.chdir(imported)
    code, result, err = run_evaluate(capsys, imported, rows, *args)
    assert code == expected.get("exit", code) and code in (0, 1), err
    metrics = result["metrics"]
    for key, value in expected.items():
        if key != "exit":
            assert metrics[key] == (pytest.approx(value) if isinstance(value, float) else value), (key, metrics[key])


@pytest.mark.slow
@pytest.mark.parametrize("given", ["missing.txt", "prompts", "builtin:graphrag.nothing"])
def test_evaluate_examples_bad_file_is_one_line(imported: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    monkeypatch.chdir(imported)
    code, _, err = run_evaluate(capsys, imported, CLEAN_ROWS, "--examples", given)
    assert code == 2 and err.count("\n") == 1 and "--examples" in err and "Traceback" not in err, err
