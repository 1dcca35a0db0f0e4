"""Rules -> verdict: absolute thresholds from the suite, and regression against an accepted baseline.

The gate reads a finished run (its summary.json and results.jsonl) and, when there is one, the
suite's accepted baseline (`reports/baselines/<suite>.json`, written by `harness baseline update`).
Every rule is listed in the verdict with its value, its limit and a status:

- **threshold** (per variant; `thresholds.variants.<v>` overrides the suite-level values): every
  thresholded metric of the registry in its direction (`Metric.threshold`): a rate's micro
  average (gold-based ones over the cases annotated for their kind: `entity_recall`,
  `relationship_recall`, `entity_f1`, `relationship_f1`; reference-free `grounding_rate`, alias
  `grounded_rate`, and `type_conformance`), a count's mean per case over the cases that have a
  value (`example_leaks`, `dangling`, ... `<=`; `distinct_entities`, `distinct_relationships`
  `>=`), so a count limit means the same for a suite of any size and for each case;
  `format_errors` (share of cases with a format error, value <= limit) and `completion_rate`
  (share of answers that end with the completion delimiter, value >= limit). A threshold whose
  value is n/a fails: undefined is not a pass.
- **regression** (per variant present in both, per metric of `regression.metrics`; unset: the key
  figures when the run has gold, the compact reference-free set when no case is annotated): the macro
  delta run - baseline over the paired cases, with the statistics `harness compare` prints
  (`compare.paired_statistics`). "Worse" follows the metric's direction: a drop for a
  higher-is-better metric, a rise for a lower-is-better count (`dangling`, `example_leaks`, ...),
  and the tolerances are in the metric's unit (points of a rate, records per case of a count).
  A change for the worse larger than `regression.max_drop` that is real by
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

Per-case rules (junit.xml, the pytest plugin, the reports) follow the verdict, so that a case
fails only where the gate fails: a case × variant breaks a rule when it has no score (the model
call or parse failed), when it got worse by more than `case_max_drop` against the baseline (the
verdict's `case_regression` rule lists it), or when one of its own values misses a threshold the
verdict fails for its variant (the case is one of those that pulled the average down). A value
that misses a threshold the variant meets on average is a warning of the case, not a failure:
`harness run --gate` passes that run, and so do junit.xml and `pytest --harness-gate`.

Exit codes: 0 every rule passed or warned; 1 a rule failed; 2 bad input (InputError).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from .artifacts import (
    BASELINE_SCHEMA_VERSION,
    Baseline,
    BaselineCase,
    CaseCheck,
    GateConfig,
    InputsCheck,
    RuleCase,
    RuleResult,
    RunSummary,
    Status,
    VariantSummary,
    Verdict,
)
from .errors import InputError
from .judges.summary import calibration_rules
from .metrics import get as get_metric
from .metrics import gold_kind, metric_names, phrase
from .metrics.registry import Metric, console_columns, format_metric, format_value, key_figures, thresholded
from .model import CaseResult
from .scoring.aggregate import aggregate
from .scoring.case_metrics import measured, scored_metrics
from .scoring.missed import newly
from .gate_settings import Regression, Thresholds
from .kinds.registry import builds_graph, rows_kind
from .suites import Suite

_TOL = 1e-9

# thresholds on the format summary rather than on a metric: key -> (summary key, comparison, label)
Comparison = Literal[">=", "<="]

FORMAT_THRESHOLDS: dict[str, tuple[str, Comparison, str]] = {
    "format_errors": ("format_error_rate", "<=", "share of cases with a format error"),
    "completion_rate": ("completion_rate", ">=", "completion-delimiter rate"),
}


# thresholds on a variant's cost and latency figures (harness/cost_latency.py): key -> (figure, comparison, label)
SPEND_THRESHOLDS: dict[str, tuple[str, Comparison, str]] = {
    "max_cost_per_1k_chunks": ("usd_per_1k_chunks", "<=", "dollars per 1,000 chunks"),
    "p95_latency_s": ("p95_chunk_s", "<=", "p95 latency per chunk"),
}
_SPEND_NA = {
    "usd_per_1k_chunks": "no price for the variant's model, or no token counted",
    "p95_chunk_s": "no call's latency is known (cassettes recorded before latencies were kept, or answered by a batch)",
}


def threshold_rules_table() -> dict[str, tuple[str, Comparison, str]]:
    """threshold key -> (what it measures, comparison, label): the registry's thresholded metrics,
    then the format thresholds, then cost and latency."""
    table: dict[str, tuple[str, Comparison, str]] = {m.name: ("metric", m.threshold or ">=", m.phrase)
                                                     for m in thresholded()}
    table.update(FORMAT_THRESHOLDS)
    table.update(SPEND_THRESHOLDS)
    return table


def spend_value(variant: VariantSummary, figure: str) -> float | None:
    """A variant's dollars per 1,000 chunks or p95 latency per chunk (None: n/a)."""
    if figure == "usd_per_1k_chunks":
        return variant.cost.usd_per_1k_chunks if variant.cost is not None else None
    return variant.latency.p95_chunk_s if variant.latency is not None else None


def _spend_shown(figure: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.4g}" if figure == "usd_per_1k_chunks" else f"{value:.4g} s"


def case_threshold_names() -> tuple[str, ...]:
    """Thresholds that also apply to each case's own score: every thresholded metric."""
    return tuple(m.name for m in thresholded())


def _op(name: str) -> str:
    metric = get_metric(name)
    return ">=" if metric is None or metric.threshold is None else metric.threshold


def below_or_above(value: float, limit: float, op: str, shown: str | None = None) -> tuple[bool, str]:
    """(passes, sentence part): "is below the threshold 50.0%", "meets the threshold 50.0%" ...;
    `shown` is the limit as text (default: a percentage)."""
    shown = _pct(limit) if shown is None else shown
    if op == ">=":
        ok = value >= limit - _TOL
        return ok, f"{'meets' if ok else 'is below'} the threshold {shown}"
    ok = value <= limit + _TOL
    return ok, f"{'is within' if ok else 'is above'} the limit {shown}"


def threshold_average(metric: Metric | None) -> str:
    """Which average a suite threshold is checked on: a rate's micro, a count's mean per case."""
    return "macro" if metric is not None and metric.is_count else "micro"


@dataclass
class Judgement:
    """One evaluation of a run: the verdict (gate.json) and the per-case rules (junit, pytest, reports)."""

    verdict: Verdict
    checks: dict[tuple[str, str], CaseCheck]


# --------------------------------------------------------------------------- configuration


def gate_config(suite: Suite) -> GateConfig:
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


def effective_thresholds(thresholds: Thresholds, variant: str) -> dict[str, float]:
    """The suite-level thresholds with the variant's own values (thresholds.variants.<v>) on top."""
    rules = threshold_rules_table()
    out = {k: v for k, v in thresholds.model_dump(exclude={"variants"}).items() if k in rules and v is not None}
    override = thresholds.variants.get(variant)
    if override is not None:
        out.update({k: v for k, v in override.model_dump(exclude={"variants"}).items() if k in rules and v is not None})
    return out


# --------------------------------------------------------------------------- formatting


def _pct(value: float | None) -> str:
    """A share that is no registered metric (a format threshold) as the registry shows a rate."""
    return format_value("rate", value)


# --------------------------------------------------------------------------- absolute thresholds


def _variant_value(variant: VariantSummary, key: str, measures: str) -> float | None:
    if measures == "metric":
        return variant.metric(key, threshold_average(get_metric(key)))  # type: ignore[arg-type]
    if measures in _SPEND_NA:
        return spend_value(variant, measures)
    return getattr(variant.format, measures)


def _shown(key: str, value: float | None, measures: str) -> str:
    """A threshold's value or limit as text: kind-aware for a metric, a percentage for a format
    share, dollars or seconds for cost and latency."""
    if measures in _SPEND_NA:
        return _spend_shown(measures, value)
    return format_metric(key, value) if measures == "metric" else _pct(value)


def _count_coverage(variant: VariantSummary, key: str) -> str:
    """" per case over 4 of 6 cases (total 7)" for a count threshold: what the mean stands on."""
    agg = variant.metrics.metrics.get(key)
    if agg is None:
        return ""
    over = f"{agg.cases} of {variant.cases} cases" if agg.cases != variant.cases else f"{agg.cases} cases"
    return f" per case over {over} (total {format_metric(key, agg.micro)})"


def coverage_text(variant: VariantSummary, kind: str) -> str:
    """" over 3 of 12 cases (the others have no gold entities)" when some cases are unannotated."""
    annotated, cases = variant.annotated(kind), variant.cases
    if annotated is None or annotated == cases:
        return ""
    return f" over {annotated} of {cases} cases (the others have no gold {kind})"


def threshold_rules(summary: RunSummary, thresholds: Thresholds) -> list[RuleResult]:
    table = threshold_rules_table()
    rules: list[RuleResult] = []
    for name, variant in summary.variants.items():
        for key, limit in effective_thresholds(thresholds, name).items():
            measures, op, text = table[key]
            value = _variant_value(variant, key, measures)
            kind = gold_kind(key) if measures == "metric" else None
            shown_limit = _shown(key, limit, measures)
            metric = get_metric(key) if measures == "metric" else None
            if value is None and kind is not None:
                # undefined is not perfect: a gold-based threshold with nothing to stand on fails
                status: Status = "fail"
                annotated = variant.annotated(kind)
                why = (f"no case has gold {kind}" if not annotated else f"no prediction to measure over "
                       f"the {annotated} case(s) with gold {kind}")
                message = (f"{text} is n/a: {why} (0 of {variant.cases} cases count), so the threshold "
                           f"{shown_limit} cannot be met; annotate the cases (docs/scoring.md)")
            elif value is None and metric is not None:
                status = "fail"  # undefined is not perfect: no case has a value to check
                message = (f"{text} is n/a: no case of the variant has a value for it (docs/scoring.md, "
                           f"reference-free metrics), so the {'threshold' if op == '>=' else 'limit'} "
                           f"{shown_limit} cannot be met")
            elif value is None and measures in _SPEND_NA:
                status = "fail"  # n/a is no pass: an unknown cost or latency is not under any limit
                message = f"{text} is n/a: {_SPEND_NA[measures]}, so the limit {shown_limit} cannot be met"
            elif value is None:
                status = "fail"  # undefined is not perfect: no case to measure the share over
                message = f"{text} is n/a: the variant has no case to measure it over, so the limit {shown_limit} cannot be met"
            else:
                ok, verdict = below_or_above(value, float(limit), op, shown_limit)
                status = "pass" if ok else "fail"
                where = (coverage_text(variant, kind) if kind
                         else _count_coverage(variant, key) if metric is not None and metric.is_count else "")
                message = f"{text} {_shown(key, value, measures)}{where} {verdict}"
            rules.append(RuleResult(rule="threshold", variant=name, metric=key, op=op, value=value,
                                    limit=float(limit), status=status, message=message))
    return rules


# --------------------------------------------------------------------------- per-case values


CaseValues = dict[str, dict[str, BaselineCase]]  # variant -> case id -> the case's metrics and misses


def case_values(rows: list[CaseResult]) -> CaseValues:
    """variant -> case -> every per-case metric, plus what the case missed (the baseline's `cases`)."""
    out: CaseValues = {}
    for row in rows:
        values = measured(row)
        if row.score is None or values is None:
            continue
        out.setdefault(row.variant, {})[row.case_id] = BaselineCase(
            **values.values,
            missed_entities=list(row.score.entities.missed),
            missed_relationships=[list(pair) for pair in row.score.relationships.missed],
        )
    return out


# --------------------------------------------------------------------------- regression


def regression_metrics(regression: Regression, *, has_gold: bool, kind: str = "extract_graph") -> list[str]:
    """The metrics the regression rules watch: the suite's `regression.metrics`, or by default the
    key figures when the run has gold and the compact reference-free set when no case is annotated
    (gold-based metrics would only fail there: no paired case has a value); a suite of another
    kind watches its kind's key figures."""
    if regression.metrics is not None:
        return list(regression.metrics)
    if not builds_graph(kind):
        return [m.name for m in key_figures(kind)]
    return [m.name for m in console_columns(gold=False)] if not has_gold else [m.name for m in key_figures()]


def rows_have_gold(rows: list[CaseResult]) -> bool:
    """Whether some scored row is annotated for entities or relationships (`RunSummary.has_gold` of rows)."""
    scored = [row.score for row in rows if row.score is not None]
    return not scored or any(s.entities.annotated or s.relationships.annotated for s in scored)


def regression_rules(summary: RunSummary, current: CaseValues, baseline: Baseline,
                     regression: Regression) -> list[RuleResult]:
    """Regression, case_regression and coverage rules of every variant; `current` is `case_values(rows)`."""
    max_drop = float(regression.max_drop)
    case_max_drop = float(regression.case_max_drop)
    metrics = regression_metrics(regression, has_gold=summary.has_gold, kind=summary.suite_kind)
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
            rules += _metric_regression(name, metric, base, mine, paired, max_drop, case_max_drop)
        base_variant = baseline.variants.get(name)
        for figure, limit in (("usd_per_1k_chunks", regression.max_cost_rise),
                              ("p95_chunk_s", regression.max_p95_latency_rise)):
            if limit is not None:
                rules.append(_spend_regression(name, figure, summary.variants[name], base_variant, float(limit)))
    return rules


def _spend_regression(variant: str, figure: str, mine: VariantSummary, base: VariantSummary | None,
                      limit: float) -> RuleResult:
    """Dollars per 1,000 chunks or p95 latency per chunk against the baseline's: the rise as a share
    of the baseline's value may not exceed `limit`; n/a on either side fails."""
    label = SPEND_THRESHOLDS["max_cost_per_1k_chunks" if figure == "usd_per_1k_chunks" else "p95_latency_s"][2]
    now, before = spend_value(mine, figure), spend_value(base, figure) if base is not None else None
    if now is None or before is None:
        side = "this run" if now is None else "the baseline"
        return RuleResult(rule="regression", variant=variant, metric=figure, op="rise <=", value=None, limit=limit,
                          status="fail", message=f"{label} is n/a in {side} ({_SPEND_NA[figure]}), so its rise "
                          f"cannot be held to {limit:.0%}")
    rise = (now - before) / before if before > 0 else (0.0 if now == before else math.inf)
    ok = rise <= limit + _TOL
    return RuleResult(rule="regression", variant=variant, metric=figure, op="rise <=",
                      value=rise if math.isfinite(rise) else None, limit=limit, status="pass" if ok else "fail",
                      message=f"{label} {_spend_shown(figure, now)} against the baseline's {_spend_shown(figure, before)}: "
                      f"{'a rise of ' + format(rise, '.1%') if math.isfinite(rise) else 'a rise from nothing'}, "
                      f"{'within' if ok else 'above'} the tolerated {limit:.0%}")


def _metric_regression(variant: str, metric: str, base: dict[str, BaselineCase], mine: dict[str, BaselineCase], paired: list[str],
                       max_drop: float, case_max_drop: float) -> list[RuleResult]:
    """The regression and case_regression rules of one metric of one variant, in its direction:
    worse is a drop for a higher-is-better metric and a rise for a lower-is-better one."""
    from .compare import paired_statistics
    from .significance import min_paired_cases

    spec = get_metric(metric)
    assert spec is not None  # the caller checked the name
    lower = not spec.higher_is_better
    op: Literal["drop <=", "rise <="] = "rise <=" if lower else "drop <="
    worse_word, change_word = ("rise", "rose") if lower else ("drop", "dropped")
    size, change = spec.format_size, spec.format_change
    values = [(cid, base[cid].value(metric), mine[cid].value(metric)) for cid in paired]
    pairs = [(cid, a, b) for cid, a, b in values if a is not None and b is not None]
    limit = max_drop if lower else -max_drop
    if not pairs:
        if gold_kind(metric) is not None:  # undefined is not a pass
            return [RuleResult(
                rule="regression", variant=variant, metric=metric, op=op, value=None, limit=limit,
                status="fail",
                message=f"{phrase(metric)} cannot be compared with the baseline: no paired case has a value "
                f"on both sides (no case annotated with gold {gold_kind(metric)}), so no drop can be ruled out")]
        return [RuleResult(rule="regression", variant=variant, metric=metric, op=op, value=None,
                           limit=limit, status="skip", message=f"{phrase(metric)}: no paired case has a value")]
    stats = paired_statistics([a for _, a, _ in pairs], [b for _, _, b in pairs])
    delta = stats.delta
    worse = -delta if spec.higher_is_better else delta
    interval = f"95% interval [{change(stats.ci_low)}, {change(stats.ci_high)}], p = {stats.p_value:.3f}"
    moved = "rose" if delta > _TOL else "fell" if delta < -_TOL else "held"
    per_case = " per case" if spec.is_count else ""
    text = (f"{phrase(metric)} {moved} {size(abs(delta))}{per_case} against the baseline over {len(pairs)} "
            f"paired cases ({interval})")
    tolerated = f"the tolerated {size(max_drop)}"
    if worse > max_drop + _TOL:
        if stats.significant:
            status: Status = "fail"
            why = f"more than {tolerated}, and not chance"
        elif len(pairs) < min_paired_cases():
            status = "warn"
            why = (f"more than {tolerated}, but {len(pairs)} cases cannot tell a {worse_word} from chance "
                   f"(at least {min_paired_cases()} are needed), so it counts as noise")
        else:
            status = "warn"
            why = f"more than {tolerated}, but not distinguishable from noise"
    else:
        status, why = "pass", f"within the tolerated {worse_word} of {size(max_drop)}"
    rules = [RuleResult(rule="regression", variant=variant, metric=metric, op=op, value=delta, limit=limit,
                        status=status, message=f"{text}: {why}", interval=[stats.ci_low, stats.ci_high],
                        p_value=stats.p_value)]

    drops = sorted(((spec.worse(a, b), cid) for cid, a, b in pairs), key=lambda t: (-t[0], t[1]))
    largest = drops[0][0]
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
        sign = 1.0 if lower else -1.0
        listed = ", ".join(f"{c.case_id} ({change(sign * (c.drop or 0.0))})" for c in offending[:5])
        more = f" and {len(offending) - 5} more" if len(offending) > 5 else ""
        message = (f"{phrase(metric)} per case: {len(offending)} case(s) {change_word} by more than "
                   f"{size(case_max_drop)}: {listed}{more}")
        status = "fail"
    else:
        message = (f"{phrase(metric)} per case: the largest {worse_word}, {size(max(largest, 0.0))}, is within "
                   f"the tolerated {size(case_max_drop)}")
        status = "pass"
    rules.append(RuleResult(rule="case_regression", variant=variant, metric=metric, op=op,
                            value=max(largest, 0.0), limit=case_max_drop, status=status, message=message,
                            cases=offending))
    return rules


def _entity_recall(rows: list[CaseResult]) -> str:
    return format_metric("entity_recall", aggregate(scored_metrics(rows)).get("entity_recall"))


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
    inputs: InputsCheck | None = None,
) -> Judgement:
    """Apply every rule to one run, once: the verdict and the per-case rules from the same values.
    `inputs`: the run's inputs against the baseline's (`harness.pins`), recorded in the verdict."""
    config = config or config_of(summary)
    current = case_values(rows)
    rules = threshold_rules(summary, config.thresholds)
    rules += leakage_rules(rows)
    rules += calibration_rules(summary)  # judged figures whose judge disagrees with reviewers (docs/judges.md)
    notes = list(notes or [])
    if baseline is not None:
        rules += regression_rules(summary, current, baseline, config.regression)
    elif not notes:
        notes.append("no baseline: regression rules not applied (accept a run with `harness baseline update RUN`)")
    statuses = {r.status for r in rules}
    status: Literal["pass", "warn", "fail"] = "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"
    verdict = Verdict(
        suite=summary.suite,
        run_id=summary.run_id,
        status=status,
        rules=rules,
        baseline_file=baseline_file,
        baseline_run_id=None if baseline is None else baseline.run_id,
        notes=notes,
        inputs=inputs,
    )
    failing = {(r.variant, r.metric) for r in rules if r.rule == "threshold" and r.status == "fail"}
    return Judgement(verdict, case_checks(rows, config, baseline=baseline, current=current, failing=failing))


def case_checks(
    rows: list[CaseResult],
    config: GateConfig,
    *,
    baseline: Baseline | None = None,
    current: CaseValues | None = None,
    failing: set[tuple[str, str]] | None = None,
) -> dict[tuple[str, str], CaseCheck]:
    """(variant, case) -> its per-case rules (see the module docstring); `current` is `case_values(rows)`
    when the caller has it already. `failing`: the (variant, metric) thresholds the verdict fails; a
    case's miss of any other threshold is a warning (None: no verdict, every miss is a warning)."""
    current = case_values(rows) if current is None else current
    regression = config.regression
    case_max_drop = float(regression.case_max_drop)
    metrics = [m for m in regression_metrics(regression, has_gold=rows_have_gold(rows), kind=rows_kind(rows))
               if m in metric_names()]
    base_cases = baseline.cases if baseline is not None else {}
    out: dict[tuple[str, str], CaseCheck] = {}
    per_case = set(case_threshold_names())
    limits_of: dict[str, dict[str, float]] = {}  # per variant: the same for each of its cases
    for row in rows:
        if row.variant not in limits_of:
            limits_of[row.variant] = {k: v for k, v in effective_thresholds(config.thresholds, row.variant).items()
                                      if k in per_case}
        limits = limits_of[row.variant]
        if row.score is None:
            out[(row.variant, row.case_id)] = CaseCheck(
                variant=row.variant, case_id=row.case_id, failures=[f"no score: {row.error or 'the case failed'}"],
                error=row.error,
            )
            continue
        values = current[row.variant][row.case_id]
        failures: list[str] = []
        warnings: list[str] = []
        for key, limit in limits.items():
            value = values.value(key)
            if value is None:
                continue
            ok, verdict = below_or_above(value, float(limit), _op(key), format_metric(key, limit))
            if not ok:
                found = failures if failing is not None and (row.variant, key) in failing else warnings
                found.append(f"{phrase(key)} {format_metric(key, value)} {verdict}")
        check = CaseCheck(
            variant=row.variant,
            case_id=row.case_id,
            failures=failures,
            warnings=warnings,
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
                spec = get_metric(metric)
                if a is not None and b is not None and spec is not None and spec.worse(a, b) > case_max_drop + _TOL:
                    moved = "fell" if spec.higher_is_better else "rose"
                    check.failures.append(f"{phrase(metric)} {moved} {spec.format_size(abs(a - b))} against the "
                                          f"baseline ({spec.format(a)} → {spec.format(b)}), more than the tolerated "
                                          f"{spec.format_size(case_max_drop)}")
                    check.newly_missed_entities = newly(check.missed_entities, base.missed_entities)
                    check.newly_missed_relationships = newly(check.missed_relationships, base.missed_relationships)
        out[(row.variant, row.case_id)] = check
    return out


# --------------------------------------------------------------------------- baselines


def make_baseline(summary: RunSummary, rows: list[CaseResult], *, run_dir: Path) -> Baseline:
    """An accepted summary plus the per-case values the regression rules need."""
    return Baseline(**dict(summary), baseline_schema_version=BASELINE_SCHEMA_VERSION, accepted_from=str(run_dir),
                    cases=case_values(rows))
