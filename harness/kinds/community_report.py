"""`community_report`: GraphRAG's community reports, written from a community's context tables;
its figures are a `ReportScore` (harness/scoring/report_score.py) under `report`."""

from __future__ import annotations

from ..model import CaseScore, GoldCase, ReportScore
from ..scoring.report_score import GRAPH_DATASETS, score_report
from .spec import KindSpec, Plan, ScoreInput

DEFAULT_REPORT_LENGTH = 2000  # GraphRAG's community_reports.max_length, words: fills {max_report_length}


def _variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    return {"input_text": case.text, "language": plan.language}


def _score(given: ScoreInput, base: CaseScore) -> CaseScore:
    """The report figures of the first answer as written: its schema is checked on the raw text,
    fences and all."""
    report = score_report(given.case, given.first_answer(), given.graph, datasets=given.datasets or GRAPH_DATASETS,
                          language=given.language, examples=given.examples)
    return base.with_figures("report", report)


SPEC = KindSpec(
    "community_report", needs_source=True, inputs=(), gold=("facts",), variables=_variables,
    engine_defaults={"max_report_length": str(DEFAULT_REPORT_LENGTH)}, answer_format="report", gleans=False,
    score=_score, prompt_kinds=("graphrag.community_report", "graphrag.community_report_text"),
    score_key="report", score_model=ReportScore,
)
