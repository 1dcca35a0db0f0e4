"""Rules -> verdict: absolute thresholds from the suite, and regression against an accepted baseline.

The gate reads a finished run (its summary.json and results.jsonl) and, when there is one, the
suite's accepted baseline (`reports/baselines/<suite>.json`, written by `harness baseline update`).
Every rule is listed in the verdict with its value, its limit and a status:

- **threshold** (per variant; `thresholds.variants.<v>` overrides the suite-level values):
  `entity_recall`, `relationship_recall`, `entity_f1`, `relationship_f1` (micro averages over
  the cases annotated for their kind, value >= limit), `format_errors` (share of cases with a
  format error, value <= limit) and `completion_rate` (share of answers that end with the
  completion delimiter, value >= limit). A gold-based threshold with no annotated case to stand
  on fails: undefined is not a pass.
- **regression** (per variant present in both, per metric of `regression.metrics`): the macro
  delta run - baseline over the paired cases, with the statistics `harness compare` prints
  (`compare.paired_statistics`). A drop larger than `regression.max_drop` that is real by
  `compare.is_real_difference` (at least 6 paired cases, 95% interval excludes zero and p < 0.05)
  fails; a larger drop that is not is noise and warns; anything else passes. A gold-based
  metric without a paired annotated case fails.
- **case_regression** (per variant, per metric): any paired case whose value dropped by more than
  `regression.case_max_drop` fails; the rule's value is the largest drop, and it lists the cases
  with what they newly missed.
- **coverage**: cases of the baseline the run does not have warn (a partial or sharded run).
- **leakage** (per variant): cases whose chunk stands in the variant's own few-shot examples
  (a prompt tuned from the suite's chunks, an example cut from a test document) warn: their
  scores measure copying, not extraction. The rule lists them.

Per-case rules (used by junit.xml and the pytest plugin, not by the verdict): a case × variant
breaks a rule when one of its own scores is below the variant's `entity_recall`,
`relationship_recall`, `entity_f1` or `relationship_f1` threshold, when it has no score (the model
call or parse failed), or when it dropped by more than `case_max_drop` against the baseline.

Exit codes: 0 every rule passed or warned; 1 a rule failed; 2 bad input (InputError).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .artifacts import (
    BASELINE_SCHEMA_VERSION,
    Baseline,
    BaselineCase,
    CaseCheck,
    GateConfig,
    RuleCase,
    RuleResult,
    RunSummary,
    Status,
    VariantSummary,
    Verdict,
)
from .errors import InputError
from .metrics import gold_kind, metric_names, phrase
from .metrics.registry import key_figures, thresholded
from .model import CaseResult
from .scoring.aggregate import aggregate, case_metrics
from .scoring.missed import newly
from .suites import Regression, Thresholds

_TOL = 1e-9

# thresholds on the format summary rather than on a metric: key -> (summary key, comparison, label)
FORMAT_THRESHOLDS: dict[str, tuple[str, str, str]] = {
    "format_errors": ("format_error_rate", "<=", "share of cases with a format error"),
    "completion_rate": ("completion_rate", ">=", "completion-delimiter rate"),
}


def threshold_rules_table() -> dict[str, tuple[str, str, str]]:
    """threshold key -> (what it measures, comparison, label): the registry's thresholded metrics,
    then the format thresholds."""
    table = {m.name: ("metric", m.threshold or ">=", m.phrase) for m in thresholded()}
    table.update(FORMAT_THRESHOLDS)
    return table


def case_threshold_names() -> tuple[str, ...]:
    """Thresholds that also apply to each case's own score: every thresholded metric."""
    return tuple(m.name for m in thresholded())


def below_or_above(value: float, limit: float, op: str) -> tuple[bool, str]:
    """(passes, sentence part): "is below the threshold 50.0%", "meets the threshold 50.0%" ..."""
    if op == ">=":
        ok = value >= limit - _TOL
        return ok, f"{'meets' if ok else 'is below'} the threshold {_pct(limit)}"
    ok = value <= limit + _TOL
    return ok, f"{'is within' if ok else 'is above'} the limit {_pct(limit)}"


@dataclass
class Judgement:
    """One evaluation of a run: the verdict (gate.json) and the per-case rules (junit, pytest, reports)."""

    verdict: Verdict
    checks: dict[tuple[str, str], CaseCheck]


# --------------------------------------------------------------------------- configuration


def gate_config(suite: Any) -> GateConfig:
    """What the gate needs from a suite, as recorded in summary.json (`gate_config`)."""
    return GateConfig(thresholds=suite.spec.thresholds, regression=suite.spec.regression)


def config_of(summary: RunSummary, source: str = "summary.json") -> GateConfig:
    if summary.gate_config is not None:
        return summary.gate_config
    # a summary written before gate_config existed: read the suite file it names
    if summary.suite_file and Path(summary.suite_file).exists():
        from .suites import load_suite

        return gate_config(load_suite(summary.suite_file))
    raise InputError(f"{source}: no gate_config and the suite file {summary.suite_file!r} is not readable")


def effective_thresholds(thresholds: Thresholds, variant: str) -> dict[str, float]:  # type: ignore[valid-type]
    """The suite-level thresholds with the variant's own values (thresholds.variants.<v>) on top."""
    rules = threshold_rules_table()
    out = {k: v for k, v in thresholds.model_dump(exclude={"variants"}).items() if k in rules and v is not None}
    override = thresholds.variants.get(variant)
    if override is not None:
        out.update({k: v for k, v in override.model_dump(exclude={"variants"}).items() if k in rules and v is not None})
    return out


# --------------------------------------------------------------------------- formatting


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _pt(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f} pt"


# --------------------------------------------------------------------------- absolute thresholds


def _variant_value(variant: VariantSummary, key: str, measures: str) -> float | None:
    if measures == "metric":
        return variant.metric(key)
    return getattr(variant.format, measures)


def coverage_text(variant: VariantSummary, kind: str) -> str:
    """" over 3 of 12 cases (the others have no gold entities)" when some cases are unannotated."""
    annotated, cases = variant.annotated(kind), variant.cases
    if annotated is None or annotated == cases:
        return ""
    return f" over {annotated} of {cases} cases (the others have no gold {kind})"


def threshold_rules(summary: RunSummary, thresholds: Thresholds) -> list[RuleResult]:  # type: ignore[valid-type]
    table = threshold_rules_table()
    rules: list[RuleResult] = []
    for name, variant in summary.variants.items():
        for key, limit in effective_thresholds(thresholds, name).items():
            measures, op, text = table[key]
            value = _variant_value(variant, key, measures)
            kind = gold_kind(key) if measures == "metric" else None
            if value is None and kind is not None:
                # undefined is not perfect: a gold-based threshold with nothing to stand on fails
                status: Status = "fail"
                annotated = variant.annotated(kind)
                why = (f"no case has gold {kind}" if not annotated else f"no prediction to measure over "
                       f"the {annotated} case(s) with gold {kind}")
                message = (f"{text} is n/a: {why} (0 of {variant.cases} cases count), so the threshold "
                           f"{_pct(limit)} cannot be met; annotate the cases (docs/scoring.md)")
            elif value is None:
                status = "fail"  # undefined is not perfect: no case to measure the share over
                message = f"{text} is n/a: the variant has no case to measure it over, so the limit {_pct(limit)} cannot be met"
            else:
                ok, verdict = below_or_above(value, float(limit), op)
                status = "pass" if ok else "fail"
                message = f"{text} {_pct(value)}{coverage_text(variant, kind) if kind else ''} {verdict}"
            rules.append(RuleResult(rule="threshold", variant=name, metric=key, op=op, value=value,  # type: ignore[arg-type]
                                    limit=float(limit), status=status, message=message))
    return rules


# --------------------------------------------------------------------------- per-case values


CaseValues = dict[str, dict[str, Any]]  # variant -> case id -> BaselineCase


def case_values(rows: list[CaseResult]) -> CaseValues:
    """variant -> case -> every per-case metric, plus what the case missed (the baseline's `cases`)."""
    out: CaseValues = {}
    for row in rows:
        if row.score is None:
            continue
        out.setdefault(row.variant, {})[row.case_id] = BaselineCase(
            **case_metrics(row.score),
            missed_entities=list(row.score.entities.missed),
            missed_relationships=[list(pair) for pair in row.score.relationships.missed],
        )
    return out


# --------------------------------------------------------------------------- regression


def regression_rules(summary: RunSummary, current: CaseValues, baseline: Baseline,
                     regression: Regression) -> list[RuleResult]:
    """Regression, case_regression and coverage rules of every variant; `current` is `case_values(rows)`."""
    from .compare import paired_statistics  # lazy: numpy only when there is a baseline to compare with
    from .scoring.significance import min_paired_cases

    max_drop = float(regression.max_drop)
    case_max_drop = float(regression.case_max_drop)
    metrics = list(regression.metrics or [m.name for m in key_figures()])
    rules: list[RuleResult] = []
    for name in summary.variants:
        if name not in baseline.cases:
            rules.append(RuleResult(rule="regression", variant=name, metric="*", op="drop <=", value=None,
                                    limit=max_drop, status="skip",
                                    message="not in the baseline: regression rules not applied"))
            continue
        base, mine = baseline.cases[name], current.get(name, {})
        paired = sorted(set(base) & set(mine))
        absent = sorted(set(base) - set(mine))
        if absent:
            rules.append(RuleResult(
                rule="coverage", variant=name, metric="cases", op=">=", value=float(len(paired)),
                limit=float(len(base)), status="warn",
                message=f"{len(absent)} baseline case(s) not scored in this run: {', '.join(absent[:10])}"
                + (" …" if len(absent) > 10 else ""),
                cases=[RuleCase(case_id=c) for c in absent],
            ))
        for metric in metrics:
            if metric not in metric_names():
                rules.append(RuleResult(rule="regression", variant=name, metric=metric, op="drop <=", value=None,
                                        limit=max_drop, status="skip", message=f"{metric}: not a per-case metric"))
                continue
            pairs = [(cid, base[cid].value(metric), mine[cid].value(metric)) for cid in paired]
            pairs = [(cid, a, b) for cid, a, b in pairs if a is not None and b is not None]
            if not pairs:
                if gold_kind(metric) is not None:  # undefined is not a pass
                    rules.append(RuleResult(
                        rule="regression", variant=name, metric=metric, op="drop <=", value=None, limit=-max_drop,
                        status="fail",
                        message=f"{phrase(metric)} cannot be compared with the baseline: no paired case has a value "
                        f"on both sides (no case annotated with gold {gold_kind(metric)}), so no drop can be ruled out"))
                else:
                    rules.append(RuleResult(rule="regression", variant=name, metric=metric, op="drop <=", value=None,
                                            limit=-max_drop, status="skip",
                                            message=f"{phrase(metric)}: no paired case has a value"))
                continue
            va = [a for _, a, _ in pairs]
            vb = [b for _, _, b in pairs]
            stats = paired_statistics(va, vb)
            delta = stats.delta
            interval = f"95% interval [{_pt(stats.ci_low)}, {_pt(stats.ci_high)}], p = {stats.p_value:.3f}"
            change = (f"{phrase(metric)} {'fell' if delta < -_TOL else 'rose' if delta > _TOL else 'held'} "
                      f"{abs(delta) * 100:.1f} pt against the baseline over {len(pairs)} paired cases ({interval})")
            if -delta > max_drop + _TOL:
                if stats.significant:
                    status: Status = "fail"
                    why = f"more than the tolerated {max_drop * 100:.1f} pt, and not chance"
                elif len(pairs) < min_paired_cases():
                    status = "warn"
                    why = (f"more than the tolerated {max_drop * 100:.1f} pt, but {len(pairs)} cases cannot tell "
                           f"a drop from chance (at least {min_paired_cases()} are needed), so it counts as noise")
                else:
                    status = "warn"
                    why = f"more than the tolerated {max_drop * 100:.1f} pt, but not distinguishable from noise"
            else:
                status, why = "pass", f"within the tolerated drop of {max_drop * 100:.1f} pt"
            rules.append(RuleResult(rule="regression", variant=name, metric=metric, op="drop <=", value=delta,
                                    limit=-max_drop, status=status, message=f"{change}: {why}",
                                    interval=[stats.ci_low, stats.ci_high], p_value=stats.p_value))

            drops = sorted(((a - b, cid) for cid, a, b in pairs), key=lambda t: (-t[0], t[1]))
            worst = drops[0][0]
            offending = []
            for drop, cid in drops:
                if drop <= case_max_drop + _TOL:
                    break
                offending.append(RuleCase(
                    case_id=cid,
                    baseline=base[cid].value(metric),
                    value=mine[cid].value(metric),
                    drop=drop,
                    newly_missed_entities=newly(mine[cid].missed_entities, base[cid].missed_entities),
                    newly_missed_relationships=newly(mine[cid].missed_relationships, base[cid].missed_relationships),
                ))
            if offending:
                listed = ", ".join(f"{c.case_id} ({_pt(-(c.drop or 0.0))})" for c in offending[:5])
                more = f" and {len(offending) - 5} more" if len(offending) > 5 else ""
                message = (f"{phrase(metric)} per case: {len(offending)} case(s) dropped by more than "
                           f"{case_max_drop * 100:.1f} pt: {listed}{more}")
                status = "fail"
            else:
                message = (f"{phrase(metric)} per case: the largest drop, {max(worst, 0.0) * 100:.1f} pt, is within "
                           f"the tolerated {case_max_drop * 100:.1f} pt")
                status = "pass"
            rules.append(RuleResult(rule="case_regression", variant=name, metric=metric, op="drop <=",
                                    value=max(worst, 0.0), limit=case_max_drop, status=status, message=message,
                                    cases=offending))
    return rules


def _entity_recall(rows: list[CaseResult]) -> str:
    micro = aggregate([r.score for r in rows if r.score is not None]).get("entity_recall")
    return "n/a" if micro is None else f"{micro * 100:.1f}%"


def leakage_rules(rows: list[CaseResult]) -> list[RuleResult]:
    """A warning per variant whose prompt shows some of the cases it is scored on, with the
    variant's entity recall on the other cases, the figure that measures extraction."""
    by_variant: dict[str, list[CaseResult]] = {}
    for row in rows:
        by_variant.setdefault(row.variant, []).append(row)
    rules = []
    for variant, variant_rows in sorted(by_variant.items()):
        shown = sorted(r.case_id for r in variant_rows if r.in_prompt_examples)
        if not shown:
            continue
        others = [r for r in variant_rows if not r.in_prompt_examples]
        rules.append(RuleResult(
            rule="leakage", variant=variant, metric="cases_in_prompt_examples", op="<=", value=float(len(shown)),
            limit=0.0, status="warn",
            message=f"{len(shown)} case(s) stand in the prompt's own few-shot examples ({', '.join(shown[:5])}"
            f"{', ...' if len(shown) > 5 else ''}): their scores measure copying; entity recall (micro) "
            f"{_entity_recall(variant_rows)} on all {len(variant_rows)} cases, {_entity_recall(others)} on the "
            f"{len(others)} others",
            cases=[RuleCase(case_id=cid) for cid in shown],
        ))
    return rules


# --------------------------------------------------------------------------- the verdict


def judge(
    summary: RunSummary,
    rows: list[CaseResult],
    *,
    baseline: Baseline | None = None,
    baseline_file: str | None = None,
    config: GateConfig | None = None,
    notes: list[str] | None = None,
) -> Judgement:
    """Apply every rule to one run, once: the verdict and the per-case rules from the same values."""
    config = config or config_of(summary)
    current = case_values(rows)
    rules = threshold_rules(summary, config.thresholds)
    rules += leakage_rules(rows)
    notes = list(notes or [])
    if baseline is not None:
        rules += regression_rules(summary, current, baseline, config.regression)
    elif not notes:
        notes.append("no baseline: regression rules not applied (accept a run with `harness baseline update RUN`)")
    statuses = {r.status for r in rules}
    status = "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"
    verdict = Verdict(
        suite=summary.suite,
        run_id=summary.run_id,
        status=status,
        rules=rules,
        baseline_file=baseline_file,
        baseline_run_id=None if baseline is None else baseline.run_id,
        notes=notes,
    )
    return Judgement(verdict, case_checks(rows, config, baseline=baseline, current=current))


def case_checks(
    rows: list[CaseResult],
    config: GateConfig,
    *,
    baseline: Baseline | None = None,
    current: CaseValues | None = None,
) -> dict[tuple[str, str], CaseCheck]:
    """(variant, case) -> its per-case rules (see the module docstring); `current` is `case_values(rows)`
    when the caller has it already."""
    current = case_values(rows) if current is None else current
    regression = config.regression
    case_max_drop = float(regression.case_max_drop)
    metrics = [m for m in (regression.metrics or []) if m in metric_names()]
    base_cases = baseline.cases if baseline is not None else {}
    out: dict[tuple[str, str], CaseCheck] = {}
    for row in rows:
        limits = {k: v for k, v in effective_thresholds(config.thresholds, row.variant).items()
                  if k in case_threshold_names()}
        if row.score is None:
            out[(row.variant, row.case_id)] = CaseCheck(
                variant=row.variant, case_id=row.case_id, failures=[f"no score: {row.error or 'the case failed'}"],
                error=row.error,
            )
            continue
        values = current[row.variant][row.case_id]
        failures = [
            f"{phrase(key)} {_pct(values.value(key))} is below the threshold {_pct(limit)}"
            for key, limit in limits.items()
            if values.value(key) is not None and values.value(key) < limit - _TOL
        ]
        check = CaseCheck(
            variant=row.variant,
            case_id=row.case_id,
            failures=failures,
            missed_entities=values.missed_entities,
            missed_relationships=values.missed_relationships,
            undefined=[f"{phrase(key)} n/a" for key in limits if values.value(key) is None],
            checked=sum(1 for key in limits if values.value(key) is not None),
        )
        base = base_cases.get(row.variant, {}).get(row.case_id)
        if base is not None:
            for metric in metrics:
                a, b = base.value(metric), values.value(metric)
                if a is not None and b is not None:
                    check.checked += 1
                if a is not None and b is not None and a - b > case_max_drop + _TOL:
                    check.failures.append(f"{phrase(metric)} fell {(a - b) * 100:.1f} pt against the baseline "
                                          f"({_pct(a)} → {_pct(b)}), more than the tolerated {case_max_drop * 100:.1f} pt")
                    check.newly_missed_entities = newly(check.missed_entities, base.missed_entities)
                    check.newly_missed_relationships = newly(check.missed_relationships, base.missed_relationships)
        out[(row.variant, row.case_id)] = check
    return out


# --------------------------------------------------------------------------- baselines


def make_baseline(summary: RunSummary, rows: list[CaseResult], *, run_dir: Path) -> Baseline:
    """An accepted summary plus the per-case values the regression rules need."""
    return Baseline(**dict(summary), baseline_schema_version=BASELINE_SCHEMA_VERSION, accepted_from=str(run_dir),
                    cases=case_values(rows))
