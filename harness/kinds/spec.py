"""What a suite kind is (`KindSpec`) and what its scorer reads (`ScoreInput`).

One module of `harness/kinds/` per kind defines a `SPEC = KindSpec(...)`; `harness/kinds/registry.py`
registers the built-in ones, and outside packages register theirs through the
`kg_prompt_harness.kinds` entry points (harness/plugins.py, docs/plugins.md). This module imports
only values, so that a kind module (built in or not) can import it without loading the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..formats.base import Delimiters
from ..model import CaseScore, ExtractedGraph, GoldCase, MatchingConfig, Ontology, Round, Value

# (location under the case, message) of a case's first problem, or None
CaseProblem = tuple[tuple[str | int, ...], str] | None


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

    def first_answer(self) -> str:
        """The first answer as written (a one-call kind's answer)."""
        return first_answer(self.rounds)


def first_answer(rounds: list[Round]) -> str:
    """The first answer of a conversation (loop checks are no answers), as written."""
    return next((r.output for r in rounds if r.kind != "loop"), "")


@dataclass(frozen=True)
class KindSpec:
    """One suite kind: everything the suite loader, the runner, the metrics and the reports ask of it."""

    name: str  # `kind:` of a suite
    # the case inputs it needs and the ones it refuses (`CaseSpec` field names; `source`: chunk or text)
    needs_source: bool
    inputs: tuple[str, ...]  # built-in case fields it reads besides the source
    gold: tuple[str, ...]  # built-in gold lists it may give
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
    # the answers build a graph: graph size, fragmentation, gleaning and F1 sections, the chunk
    # stripped from the prompt as the engine's extraction does
    builds_graph: bool = False
    # the prompt kinds (harness.prompts.kinds) a variant's prompt may declare with `kind:`
    prompt_kinds: tuple[str, ...] = ()
    # its per-case score model and the key it is written under in a case's score (results.jsonl):
    # `CaseScore.figures[score_key]`; None for a kind whose figures are the entity/relationship ones
    score_key: str | None = None
    score_model: type[Value] | None = None
    # the kind's own fields of a case, given under the case's `inputs:` (a plugin kind's inputs and
    # gold; the built-in kinds use the built-in fields named in `inputs` and `gold`); None: none
    case_fields: type[Value] | None = None
    # the kind's own check of a case (a `harness.suites.CaseSpec`) after the shared ones
    check: Callable[[Any], CaseProblem] | None = None
    # the text that fills the prompt's input for a kind with no source (`needs_source=False`),
    # from the case (a `CaseSpec`)
    case_text: Callable[[Any], str] | None = None

    def __post_init__(self) -> None:
        if (self.score_key is None) != (self.score_model is None):
            raise ValueError(f"suite kind {self.name!r}: give both score_key and score_model, or neither")
        if not self.needs_source and self.case_text is None:
            raise ValueError(f"suite kind {self.name!r}: a kind without a source needs case_text")

    def figures(self, score: CaseScore) -> Value | None:
        """The kind's own figures of a case's score; None for a case of another kind."""
        return None if self.score_key is None else score.figures.get(self.score_key)

    def inputs_of(self, case: GoldCase) -> Value | None:
        """The case's `inputs:` read into the kind's `case_fields` model (None without one)."""
        return None if self.case_fields is None else self.case_fields.model_validate(case.inputs)
