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

PAIRWISE_FIGURE = "pairwise_win_rate"  # how a gate rule names (d)'s figure (not a per-case metric)


def judges_summary(suite: Any, rows: Iterable[CaseResult], run_dir: Path | None = None) -> JudgesSummary | None:
    """The run's judge block: questions over every variant and, per decision, the judge's agreement
    with reviewers' `judgements:` (each (case, question) once: its first row in suite order)."""
    spec = getattr(getattr(suite, "spec", None), "judge", None)  # `harness evaluate` hands a view
    if spec is None:
        return None
    from ..metrics.judged import DECISION, DECISION_FIGURES, FACTS, FAITHFUL

    cases: dict[str, GoldCase] = {case.id: case for case in suite.cases}
    decisions = [d for d, on in ((DECISION, spec.match), (FAITHFUL, spec.faithfulness), (FACTS, spec.facts)) if on]
    seen: dict[str, dict[tuple[str, str], JudgeVerdict | None]] = {d: {} for d in decisions}
    questions = unreadable = left_out = 0
    for row in rows:
        if row.score is None:
            continue
        for decision, asked, skipped in _asked(row):
            if decision not in seen:
                continue
            left_out += skipped
            for qid, verdict in asked:
                questions += 1
                unreadable += verdict is None
                seen[decision].setdefault((row.case_id, qid), verdict)
    calibration = {}
    for decision in decisions:
        pairs = [(verdict, cases[case_id].judgements[qid]) for (case_id, qid), verdict in seen[decision].items()
                 if case_id in cases and qid in cases[case_id].judgements]
        calibration[decision] = calibrate(pairs, min_kappa=spec.min_kappa)
    summary = JudgesSummary(model=spec.model.name, questions=questions, unreadable=unreadable, left_out=left_out,
                            figures={d: list(DECISION_FIGURES[d]) for d in decisions}, calibration=calibration)
    if spec.pairwise is not None and run_dir is not None and (run_dir / PAIRWISE_FILE).is_file():
        text = (run_dir / PAIRWISE_FILE).read_text(encoding="utf-8")
        verdicts = [PairwiseVerdict.model_validate(v) for v in json.loads(text)]
        a, b = spec.pairwise.a, spec.pairwise.b
        human = {case_id: case.judgements[pairwise.question_id(a, b)] for case_id, case in cases.items()
                 if pairwise.question_id(a, b) in case.judgements}
        summary.pairwise = pairwise.summarize(a, b, verdicts, human, min_kappa=spec.min_kappa)
    return summary


def _asked(row: CaseResult) -> list[tuple[str, list[tuple[str, JudgeVerdict | None]], int]]:
    """(decision, [(question id, verdict)], left out) of each decision the row was judged on."""
    from ..metrics.judged import DECISION, FACTS, FAITHFUL

    score = row.score
    found: list[tuple[str, list[tuple[str, JudgeVerdict | None]], int]] = []
    if score is not None and score.judged is not None:
        found.append((DECISION, [(q.id, q.verdict) for q in score.judged.questions], score.judged.left_out))
    if score is not None and score.faithful is not None:
        asked = [*score.faithful.entities, *score.faithful.relationships]
        found.append((FAITHFUL, [(q.id, q.verdict) for q in asked], score.faithful.left_out))
    if score is not None and score.judged_facts is not None:
        found.append((FACTS, [(q.id, q.verdict) for q in score.judged_facts.questions], 0))
    return found


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
    pair = judges.pairwise
    limit = pair.calibration.min_kappa if pair is not None else None
    if pair is not None and limit is not None and pair.b_win_rate is not None and not (
            pair.calibration.kappa is not None and pair.calibration.kappa >= limit):
        kappa = pair.calibration.kappa
        why = (f"judge's Cohen's kappa with reviewers {kappa:.3f} is below judge.min_kappa {limit:g}"
               if kappa is not None else
               f"judge's kappa with reviewers is n/a ({pair.calibration.status}, {pair.calibration.questions} reviewed "
               f"verdict(s)), so judge.min_kappa {limit:g} cannot be met")
        rules.append(RuleResult(rule="calibration", variant=pair.b, metric=PAIRWISE_FIGURE, op=">=", value=kappa,
                                limit=limit, status="fail", message=f"{PAIRWISE_FIGURE} ({pair.b} over {pair.a}): {why}"))
    return rules
