"""`global_search_map`: GraphRAG's global-search map step, answering a question from a batch of
community reports; its figures are a `MapScore` (harness/scoring/map_score.py) under `map_points`."""

from __future__ import annotations

from typing import Any

from ..model import CaseScore, GoldCase, MapScore
from ..scoring.map_score import MAP_DATASETS, score_map
from .spec import CaseProblem, KindSpec, Plan, ScoreInput

DEFAULT_MAP_LENGTH = 1000  # GraphRAG's global_search.map_max_length, words: fills {max_length} (2.x, 3.x)


def _variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    """The map prompt as GraphRAG fills it (query/structured_search/global_search/search.py):
    `{context_data}` is one batch of the report table (`{input_text}` too, the same data), `{max_length}`
    (2.x, 3.x) the map length; the question is the user message, `{question}` here."""
    given = {"max_length": str(case.max_length)} if case.max_length is not None else {}
    return {"context_data": case.text, "input_text": case.text, "question": case.question or "", **given,
            "language": plan.language}


def _score(given: ScoreInput, base: CaseScore) -> CaseScore:
    """The map-point figures of the first answer as written."""
    points = score_map(given.case, given.first_answer(), datasets=given.datasets or MAP_DATASETS,
                       language=given.language)
    return base.with_figures("map_points", points)


def _check(case: Any) -> CaseProblem:
    if not (case.question or "").strip():
        return ("question",) if case.question is not None else (), \
            "a global_search_map case needs `question` (the user's question, sent as the user message)"
    return None


SPEC = KindSpec(
    "global_search_map", needs_source=True, inputs=("question", "max_length"), gold=("facts",),
    variables=_variables, engine_defaults={"max_length": str(DEFAULT_MAP_LENGTH)}, answer_format="map_points",
    gleans=False, score=_score, prompt_kinds=("graphrag.global_search_map",),
    score_key="map_points", score_model=MapScore, check=_check,
)
