"""The judge's first question of a prompt kind on one case: what `harness prompts render` fills a
judge prompt with (docs/judges.md, "Judge prompts"). It replays the case's extraction through the
run (`schedule.run_suite`, judging left out) and asks the judge's modules which question comes first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError
from ..judges import pairwise
from ..judges.faithfulness import statements
from ..judges.matching import open_pairs
from ..judges.stage import FACT_KINDS, fact_questions


def question_values(suite: Any, variant: str, case: Any, kind: str) -> dict[str, str]:
    """The variables of the judge's first question of prompt `kind` on one case of one variant,
    from a replay of the case's extraction cassette (no key, no call, no judging): what `harness
    prompts render` fills a judge prompt with. A case that puts no such question is bad input."""
    import tempfile

    from ..judges.config import DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_QUESTIONS
    from ..judges.prompts import MATCH_KIND, PAIRWISE_KIND, SUPPORT_KIND
    from .schedule import RunOptions, check_outcome, run_suite

    spec = suite.spec.judge
    names = [variant]
    if kind == PAIRWISE_KIND:
        if spec is None or spec.pairwise is None:
            raise InputError(f"{suite.path}: a pairwise judge prompt renders a suite's judge.pairwise question; it has none")
        names = [spec.pairwise.a, spec.pairwise.b]
    with tempfile.TemporaryDirectory() as reports:
        outcome = run_suite(suite, RunOptions(reports_dir=Path(reports), variants=names, cases=[case.id], fresh=True,
                                              judge=False))
        check_outcome(outcome)
    rows = {row.variant: row for row in outcome.results if row.sample == 0 and row.error is None}
    row = rows.get(names[0])
    cap = spec.max_questions if spec is not None else DEFAULT_MAX_QUESTIONS
    if row is not None and row.score is not None and kind == MATCH_KIND:
        pairs, _ = open_pairs(row.score, case, max_questions=cap,
                              max_candidates=spec.max_candidates if spec is not None else DEFAULT_MAX_CANDIDATES)
        if pairs:
            return {"input_text": case.text, "gold": pairs[0][0], "predicted": pairs[0][1]}
    elif row is not None and kind == SUPPORT_KIND:
        if suite.spec.kind in FACT_KINDS:
            unsure = fact_questions(suite, row, case)[0]
            if unsure:
                return {"input_text": unsure[0][2], "statement": unsure[0][1]}
        else:
            described = statements(row.graph, cap)[0]
            if described:
                return {"input_text": case.text, "statement": described[0][2]}
    elif row is not None and kind == PAIRWISE_KIND and names[1] in rows:
        _, _, first, second = pairwise.questions(case, row, rows[names[1]], 1)[0]
        return {"input_text": case.text, "first": first, "second": second}
    raise InputError(f"{suite.path}: case '{case.id}' of variant '{variant}' puts no {kind} question to the judge")
