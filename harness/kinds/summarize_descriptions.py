"""`summarize_descriptions`: GraphRAG's description summaries. A case gives an entity (or a
relationship's pair) and its descriptions instead of a chunk; its figures are a `SummaryScore`
(harness/scoring/summary_score.py) under `summary`."""

from __future__ import annotations

import json
from typing import Any

from ..model import CaseScore, GoldCase, SummaryScore
from ..scoring.summary_score import DEFAULT_MAX_LENGTH, entity_names, score_summary
from .spec import CaseProblem, KindSpec, Plan, ScoreInput, first_answer


def entity_name_variable(case: GoldCase) -> str:
    """`{entity_name}` as GraphRAG fills it: `json.dumps` of the entity's name (quoted), or of the
    pair of a relationship (`["A", "B"]`)."""
    names = entity_names(case)
    return json.dumps(names if len(names) > 1 else names[0], ensure_ascii=False)


def description_list(descriptions: list[str]) -> str:
    """`{description_list}` as GraphRAG 1.x-3.x fills it: `json.dumps(sorted(descriptions))`."""
    return json.dumps(sorted(descriptions), ensure_ascii=False)


def _variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    given = {"max_length": str(case.max_length)} if case.max_length is not None else {}
    return {"input_text": case.text, "description_list": case.text, "entity_name": entity_name_variable(case),
            **given, "language": plan.language}


def answer_text(rounds: list[Any]) -> str:
    """The first answer of a one-call kind, without think blocks and fences."""
    from ..formats.summary import summary_text

    return summary_text(first_answer(rounds))


def _score(given: ScoreInput, base: CaseScore) -> CaseScore:
    return base.with_figures("summary", score_summary(given.case, answer_text(given.rounds), language=given.language))


def _check(case: Any) -> CaseProblem:
    if not (case.entity_name is not None and case.entity_name != "" and case.entity_name != []) \
            or not all(n.strip() for n in case.entity_names()):
        return ("entity_name",) if case.entity_name is not None else (), \
            "a summarize_descriptions case needs `entity_name` (a name, or [source, target] of a relationship)"
    if not case.descriptions:
        return ("descriptions",) if "descriptions" in case.model_fields_set else (), \
            "a summarize_descriptions case needs a non-empty `descriptions` list"
    for index, text in enumerate(case.descriptions):
        if not text.strip():
            return ("descriptions", index), "a description is blank"
    return None


def _case_text(case: Any) -> str:
    return description_list(case.descriptions)  # `text` fills the prompt's input, as GraphRAG writes it


SPEC = KindSpec(
    "summarize_descriptions", needs_source=False, inputs=("entity_name", "descriptions", "max_length"),
    gold=("facts",), variables=_variables, engine_defaults={"max_length": str(DEFAULT_MAX_LENGTH)},
    answer_format="summary", gleans=False, score=_score, prompt_kinds=("graphrag.summarize_descriptions",),
    score_key="summary", score_model=SummaryScore, check=_check, case_text=_case_text,
)
