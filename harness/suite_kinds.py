"""The suite-kind registry: per kind of suite (harness.model.SuiteKind), what a case must give,
the variables its prompt is filled with, the format its answers are read in, whether GraphRAG
gleans it, and how a case is scored.

`harness.suites` validates each case against its kind's entry (`case_problem`), and the runner
asks it for the variables (`VariantPlan.variables`), the answer format and the scoring
(`evaluate_case`). A new suite kind is one entry in `KINDS` (docs/architecture.md, "Where a new
suite kind goes").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .formats.base import Delimiters
from .model import CaseResult, CaseScore, ExtractedGraph, GoldCase, MatchingConfig, Ontology, Round, SuiteKind
from .scoring.claims_score import score_claims
from .scoring.map_score import MAP_DATASETS, score_map
from .scoring.report_score import GRAPH_DATASETS, score_report
from .scoring.summary_score import DEFAULT_MAX_LENGTH, entity_names, score_summary

# GraphRAG's defaults for what a case may leave out (config/defaults.py, 2.x and 3.x)
DEFAULT_REPORT_LENGTH = 2000  # community_reports.max_length, words: fills {max_report_length}
DEFAULT_CLAIM_DESCRIPTION = "Any claims or facts that could be relevant to information discovery."
DEFAULT_MAP_LENGTH = 1000  # global_search.map_max_length, words: fills {max_length} of the map prompt (2.x, 3.x)


class Plan(Protocol):
    """What a kind reads of a variant's plan (harness.run.plan.VariantPlan; structural, so that this
    module need not import the runner)."""

    entity_types: list[str]
    delimiters: Delimiters
    language: str


@dataclass(frozen=True)
class ScoreInput:
    """Everything a kind's scorer may read for one case of one variant."""

    case: GoldCase
    graph: ExtractedGraph
    rounds: list[Round]
    matching: MatchingConfig
    ontology: Ontology | None
    language: str
    datasets: list[str] | None  # the suite's citation datasets (`citations.datasets`) when it sets them
    # the variant's prompt as sent without the case's input (its instructions and worked examples);
    # None when the prompt is not known (another pipeline's answers)
    examples: str | None = None


@dataclass(frozen=True)
class KindSpec:
    """One suite kind."""

    name: SuiteKind
    # the case inputs it needs and the ones it refuses (CaseSpec field names; `source`: chunk or text)
    needs_source: bool
    inputs: tuple[str, ...]  # inputs it may give besides the source
    gold: tuple[str, ...]  # gold lists it may give
    variables: Callable[[Plan, GoldCase], dict[str, str]]  # what the case and the variant give
    # what the engine fills when neither the case nor the template says (its settings' defaults):
    # a template's declared value (`variables:` of a YAML template) wins over these
    engine_defaults: Mapping[str, str]
    # the format answers are read in when neither the variant nor its template names one (None:
    # the harness's default, GraphRAG tuples)
    answer_format: str | None
    gleans: bool  # GraphRAG sends continue prompts (extraction, claims); summaries and reports are one call
    # the kind's own figures, added to the entity/relationship score (which is n/a without that gold)
    score: Callable[[ScoreInput, CaseScore], CaseScore]
    extraction_figures: bool = False  # reference-free extraction figures apply (grounding, types, leaks...)
    # the prompt kinds (harness.prompts.kinds) a variant's prompt may declare with `kind:`
    prompt_kinds: tuple[str, ...] = ()


def _extraction_variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    return {"input_text": case.text, "entity_types": ",".join(plan.entity_types), **plan.delimiters.as_variables(),
            "language": plan.language}


def entity_name_variable(case: GoldCase) -> str:
    """`{entity_name}` as GraphRAG fills it: `json.dumps` of the entity's name (quoted), or of the
    pair of a relationship (`["A", "B"]`)."""
    names = entity_names(case)
    return json.dumps(names if len(names) > 1 else names[0], ensure_ascii=False)


def description_list(descriptions: list[str]) -> str:
    """`{description_list}` as GraphRAG 1.x-3.x fills it: `json.dumps(sorted(descriptions))`."""
    return json.dumps(sorted(descriptions), ensure_ascii=False)


def _summary_variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    given = {"max_length": str(case.max_length)} if case.max_length is not None else {}
    return {"input_text": case.text, "description_list": case.text, "entity_name": entity_name_variable(case),
            **given, "language": plan.language}


def _report_variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    return {"input_text": case.text, "language": plan.language}


def _claims_variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    specs = case.entity_specs or plan.entity_types
    given = {"claim_description": case.claim_description} if case.claim_description else {}
    return {"input_text": case.text, "entity_types": ",".join(specs),
            "entity_specs": str(list(specs)),  # GraphRAG formats the list itself into the prompt
            **given, **plan.delimiters.as_variables(), "language": plan.language}


def _map_variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    """The map prompt as GraphRAG fills it (query/structured_search/global_search/search.py):
    `{context_data}` is one batch of the report table (`{input_text}` too, the same data), `{max_length}`
    (2.x, 3.x) the map length; the question is the user message, `{question}` here."""
    given = {"max_length": str(case.max_length)} if case.max_length is not None else {}
    return {"context_data": case.text, "input_text": case.text, "question": case.question or "", **given,
            "language": plan.language}


def _extraction_score(given: ScoreInput, base: CaseScore) -> CaseScore:
    return base  # the entity/relationship figures are the kind's; reference-free ones are added by the runner


def answer_text(rounds: list[Round]) -> str:
    """The first answer of a one-call kind, without think blocks and fences."""
    from .formats.summary import summary_text

    first = next((r.output for r in rounds if r.kind != "loop"), "")
    return summary_text(first)


def _summary_score(given: ScoreInput, base: CaseScore) -> CaseScore:
    summary = score_summary(given.case, answer_text(given.rounds), language=given.language)
    return base.model_copy(update={"summary": summary})


def _report_score(given: ScoreInput, base: CaseScore) -> CaseScore:
    """The report figures (harness/scoring/report_score.py) of the first answer as written: its
    schema is checked on the raw text, fences and all."""
    first = next((r.output for r in given.rounds if r.kind != "loop"), "")
    report = score_report(given.case, first, given.graph, datasets=given.datasets or GRAPH_DATASETS,
                          language=given.language, examples=given.examples)
    return base.model_copy(update={"report": report})


def _claims_score(given: ScoreInput, base: CaseScore) -> CaseScore:
    return base.model_copy(update={"claims": score_claims(given.case, given.graph, given.matching)})


def _map_score(given: ScoreInput, base: CaseScore) -> CaseScore:
    """The map-point figures (harness/scoring/map_score.py) of the first answer as written."""
    first = next((r.output for r in given.rounds if r.kind != "loop"), "")
    points = score_map(given.case, first, datasets=given.datasets or MAP_DATASETS, language=given.language)
    return base.model_copy(update={"map_points": points})


KINDS: Mapping[str, KindSpec] = {
    spec.name: spec for spec in (
        KindSpec("extract_graph", needs_source=True, inputs=(), gold=("entities", "relationships", "annotated"),
                 variables=_extraction_variables, engine_defaults={}, answer_format=None, gleans=True, score=_extraction_score,
                 extraction_figures=True, prompt_kinds=("graphrag.extract_graph", "graphrag.extract_graph_untyped",
                                                        "graphrag.extract_graph_json", "lightrag.entity_extraction", "llamaindex.kg_triplet_extract", "llamaindex.dynamic_extract")),
        KindSpec("summarize_descriptions", needs_source=False, inputs=("entity_name", "descriptions", "max_length"),
                 gold=("facts",), variables=_summary_variables,
                 engine_defaults={"max_length": str(DEFAULT_MAX_LENGTH)}, answer_format="summary", gleans=False,
                 score=_summary_score, prompt_kinds=("graphrag.summarize_descriptions",)),
        KindSpec("community_report", needs_source=True, inputs=(), gold=("facts",),
                 variables=_report_variables, engine_defaults={"max_report_length": str(DEFAULT_REPORT_LENGTH)},
                 answer_format="report", gleans=False, score=_report_score,
                 prompt_kinds=("graphrag.community_report", "graphrag.community_report_text")),
        KindSpec("extract_claims", needs_source=True, inputs=("entity_specs", "claim_description"),
                 gold=("claims",), variables=_claims_variables,
                 engine_defaults={"claim_description": DEFAULT_CLAIM_DESCRIPTION}, answer_format="claims", gleans=True,
                 score=_claims_score, prompt_kinds=("graphrag.extract_claims",)),
        KindSpec("global_search_map", needs_source=True, inputs=("question", "max_length"), gold=("facts",),
                 variables=_map_variables, engine_defaults={"max_length": str(DEFAULT_MAP_LENGTH)},
                 answer_format="map_points", gleans=False, score=_map_score,
                 prompt_kinds=("graphrag.global_search_map",)),
    )
}
# every input and gold field some kind uses; a case may give only its own kind's
KIND_INPUTS = ("entity_name", "descriptions", "max_length", "entity_specs", "claim_description", "question")
KIND_GOLD = ("entities", "relationships", "annotated", "facts", "claims")  # `annotated`: of entity/relationship gold


def kind_spec(kind: str) -> KindSpec:
    return KINDS[kind]


def _a(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _given(case: Any, name: str) -> bool:
    value = getattr(case, name)
    return value is not None and value != [] and value != ""


def case_problem(kind: str, case: Any) -> tuple[tuple[str | int, ...], str] | None:
    """The first problem of a case (a `harness.suites.CaseSpec`) for its suite's kind: (location
    under the case, message), or None."""
    spec = KINDS[kind]
    source = case.chunk is not None or case.text is not None
    if spec.needs_source and not source:
        return (), f"{_a(kind)} case needs `chunk` (a file) or `text` (inline)"
    if not spec.needs_source and source:
        where = "chunk" if case.chunk is not None else "text"
        return (where,), (f"{_a(kind)} case gives `entity_name` and `descriptions`, not `{where}` (the description "
                          "list is written into the prompt as GraphRAG writes it)")
    for name in KIND_INPUTS:
        if name not in spec.inputs and _given(case, name):
            return (name,), f"`{name}` is not an input of {_a(kind)} case"
    for name in KIND_GOLD:
        if name not in spec.gold and _given(case, name):
            return (name,), f"`{name}` is not gold of {_a(kind)} case"
    if kind == "summarize_descriptions":
        if not _given(case, "entity_name") or not all(n.strip() for n in case.entity_names()):
            return ("entity_name",) if case.entity_name is not None else (), \
                "a summarize_descriptions case needs `entity_name` (a name, or [source, target] of a relationship)"
        if not case.descriptions:
            return ("descriptions",) if "descriptions" in case.model_fields_set else (), \
                "a summarize_descriptions case needs a non-empty `descriptions` list"
        for index, text in enumerate(case.descriptions):
            if not text.strip():
                return ("descriptions", index), "a description is blank"
    if kind == "global_search_map" and not (case.question or "").strip():
        return ("question",) if case.question is not None else (), \
            "a global_search_map case needs `question` (the user's question, sent as the user message)"
    return None


def rows_kind(rows: Iterable[CaseResult]) -> str:
    """The suite kind of a run's rows (`RunSummary.suite_kind` of rows): the kind whose figures
    the scored rows hold."""
    for row in rows:
        score = row.score
        if score is not None:
            for kind, figures in (("summarize_descriptions", score.summary), ("community_report", score.report),
                                  ("extract_claims", score.claims), ("global_search_map", score.map_points)):
                if figures is not None:
                    return kind
    return "extract_graph"
