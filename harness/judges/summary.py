"""The run's judge block and its gate rules, from the rows and the pairwise verdicts file.

`judges_summary` gives `RunSummary.judges` (finish.summarize): the questions and, per decision,
the judge's agreement with reviewers' verdicts (judges.calibration), and the pairwise figures
(judges.pairwise); `calibration_rules` gives the gate's `calibration` rules (gate.judge).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..artifacts import JudgesSummary, PairwiseVerdict, RuleResult
from ..model import CaseResult, GoldCase, JudgeVerdict
from . import pairwise
from .calibration import calibrate
from .config import PAIRWISE_FILE


def judges_summary(suite: Any, rows: Iterable[CaseResult], run_dir: Path | None = None) -> JudgesSummary | None:
    """The run's judge block: questions over every variant, and the match decision's calibration
    against reviewers' `judgements:` (each (case, question) once: its first row in suite order)."""
    spec = getattr(getattr(suite, "spec", None), "judge", None)  # `harness evaluate` hands a view
    if spec is None:
        return None
    from ..metrics.judged import DECISION, FIGURES

    cases: dict[str, GoldCase] = {case.id: case for case in suite.cases}
    seen: dict[tuple[str, str], JudgeVerdict | None] = {}
    questions = unreadable = left_out = 0
    for row in rows:
        judged = None if row.score is None else row.score.judged
        if judged is None:
            continue
        left_out += judged.left_out
        for question in judged.questions:
            questions += 1
            unreadable += question.verdict is None
            seen.setdefault((row.case_id, question.id), question.verdict)
    pairs = [(verdict, cases[case_id].judgements[qid]) for (case_id, qid), verdict in seen.items()
             if case_id in cases and qid in cases[case_id].judgements]
    summary = JudgesSummary(model=spec.model.name, questions=questions, unreadable=unreadable, left_out=left_out,
                            figures={DECISION: list(FIGURES)} if spec.match else {},
                            calibration={DECISION: calibrate(pairs, min_kappa=spec.min_kappa)} if spec.match else {})
    if spec.pairwise is not None and run_dir is not None and (run_dir / PAIRWISE_FILE).is_file():
        text = (run_dir / PAIRWISE_FILE).read_text(encoding="utf-8")
        verdicts = [PairwiseVerdict.model_validate(v) for v in json.loads(text)]
        summary.pairwise = pairwise.summarize(spec.pairwise.a, spec.pairwise.b, verdicts)
    return summary


def calibration_rules(summary: Any) -> list[RuleResult]:
    """A failed rule per judged figure (and variant with a value) whose judge agrees with
    reviewers below `judge.min_kappa`, or cannot be compared with them (uncalibrated, kappa n/a)."""
    judges = summary.judges
    if judges is None:
        return []
    rules: list[RuleResult] = []
    for decision, figures in judges.figures.items():
        calibration = judges.calibration.get(decision)
        if calibration is None or calibration.min_kappa is None:
            continue
        kappa, limit = calibration.kappa, calibration.min_kappa
        if kappa is not None and kappa >= limit:
            continue
        why = (f"judge's Cohen's kappa with reviewers {kappa:.3f} is below judge.min_kappa {limit:g}"
               if kappa is not None else
               f"judge's kappa with reviewers is n/a ({calibration.status}, {calibration.questions} reviewed "
               f"question(s)), so judge.min_kappa {limit:g} cannot be met")
        for variant, vs in summary.variants.items():
            for metric in figures:
                aggregate = vs.metrics.metrics.get(metric)
                if aggregate is None or aggregate.micro is None:
                    continue
                rules.append(RuleResult(rule="calibration", variant=variant, metric=metric, op=">=", value=kappa,
                                        limit=limit, status="fail", message=f"{metric}: {why}"))
    return rules
