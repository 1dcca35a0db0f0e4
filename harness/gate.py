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

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import InputError
from .model import CaseResult
from .metrics import gold_kind, metric_names, phrase
from .metrics.registry import thresholded
from .scoring.aggregate import aggregate, case_metrics
from .scoring.missed import newly

Status = Literal["pass", "warn", "fail", "skip"]

BASELINE_SCHEMA_VERSION = 1
GATE_SCHEMA_VERSION = 1
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


# --------------------------------------------------------------------------- values


@dataclass
class RuleResult:
    """One rule as applied to one variant."""

    rule: str  # threshold | regression | case_regression | coverage | leakage
    variant: str
    metric: str
    op: str  # ">=", "<=" or "drop <="
    value: float | None
    limit: float | None
    status: Status
    message: str
    interval: list[float] | None = None  # [low, high] of the delta (regression)
    cases: list[dict[str, Any]] = field(default_factory=list)  # offending cases (case_regression, coverage)
    p_value: float | None = None  # sign-flip p-value of the delta (regression)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Verdict:
    suite: str
    run_id: str
    status: Status
    rules: list[RuleResult]
    baseline_file: str | None = None
    baseline_run_id: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status != "fail"

    @property
    def exit_code(self) -> int:
        return 1 if self.status == "fail" else 0

    def failed(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "fail"]

    def warned(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "warn"]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": GATE_SCHEMA_VERSION,
            "suite": self.suite,
            "run_id": self.run_id,
            "status": self.status,
            "baseline_file": self.baseline_file,
            "baseline_run_id": self.baseline_run_id,
            "counts": {s: sum(1 for r in self.rules if r.status == s) for s in ("pass", "warn", "fail", "skip")},
            "notes": self.notes,
            "rules": [r.to_json() for r in self.rules],
        }

    def lines(self) -> list[str]:
        """The verdict as plain text, one rule a line (what `harness gate` prints)."""
        head = f"{self.suite} ({self.run_id}): gate {self.status.upper()}"
        if self.baseline_file:
            head += f" — baseline {self.baseline_file}"
        out = [head]
        out += [f"  note: {note}" for note in self.notes]
        for rule in self.rules:
            out.append(f"  {rule.status.upper():4s}  {rule.variant}: {rule.message}")
        return out


@dataclass
class CaseCheck:
    """The per-case rules of one case × variant."""

    variant: str
    case_id: str
    failures: list[str]
    missed_entities: list[str] = field(default_factory=list)
    missed_relationships: list[list[str]] = field(default_factory=list)
    newly_missed_entities: list[str] = field(default_factory=list)
    newly_missed_relationships: list[list[str]] = field(default_factory=list)
    error: str | None = None
    # per-case thresholds whose metric is undefined on this case (no gold of its kind)
    undefined: list[str] = field(default_factory=list)
    checked: int = 0  # per-case rules that had a value to check

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def unchecked(self) -> bool:
        """Nothing could be checked: every per-case threshold is undefined here (junit and pytest skip it)."""
        return not self.failures and bool(self.undefined) and self.checked == 0

    def skip_reason(self) -> str:
        return "no gold to check against: " + ", ".join(self.undefined)

    def message(self) -> str:
        return "; ".join(self.failures)

    def details(self) -> str:
        """Multi-line text naming what the case missed (failure bodies of junit and pytest)."""
        lines: list[str] = []
        if self.error:
            lines.append(f"error: {self.error}")
        if self.missed_entities:
            lines.append(f"missed entities ({len(self.missed_entities)}): " + ", ".join(self.missed_entities))
        if self.missed_relationships:
            lines.append(
                f"missed relationships ({len(self.missed_relationships)}): "
                + ", ".join(" — ".join(pair) for pair in self.missed_relationships)
            )
        if self.newly_missed_entities:
            lines.append("newly missed against the baseline (entities): " + ", ".join(self.newly_missed_entities))
        if self.newly_missed_relationships:
            lines.append(
                "newly missed against the baseline (relationships): "
                + ", ".join(" — ".join(pair) for pair in self.newly_missed_relationships)
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------- configuration


def gate_config(suite: Any) -> dict[str, Any]:
    """What the gate needs from a suite, as recorded in summary.json (`gate_config`)."""
    return {
        "thresholds": suite.spec.thresholds.model_dump(),
        "regression": suite.spec.regression.model_dump(),
    }


def config_of(summary: dict[str, Any], source: str = "summary.json") -> dict[str, Any]:
    config = summary.get("gate_config")
    if isinstance(config, dict) and isinstance(config.get("thresholds"), dict) and isinstance(config.get("regression"), dict):
        return config
    # a summary written before gate_config existed: read the suite file it names
    suite_file = summary.get("suite_file")
    if suite_file and Path(suite_file).exists():
        from .suites import load_suite

        return gate_config(load_suite(suite_file))
    raise InputError(f"{source}: no gate_config and the suite file {suite_file!r} is not readable")


def effective_thresholds(thresholds: dict[str, Any], variant: str) -> dict[str, float]:
    """The suite-level thresholds with the variant's own values (thresholds.variants.<v>) on top."""
    rules = threshold_rules_table()
    out = {k: v for k, v in thresholds.items() if k in rules and v is not None}
    override = (thresholds.get("variants") or {}).get(variant) or {}
    out.update({k: v for k, v in override.items() if k in rules and v is not None})
    return out


# --------------------------------------------------------------------------- formatting


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _pt(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f} pt"


# --------------------------------------------------------------------------- absolute thresholds


def _variant_value(variant: dict[str, Any], key: str) -> float | None:
    kind = threshold_rules_table()[key][0]
    if kind == "metric":
        entry = variant["metrics"]["metrics"].get(key) or {}
        return entry.get("micro")
    return variant["format"].get(kind)


def annotated_cases(variant: dict[str, Any], kind: str) -> int | None:
    """Cases of a variant annotated for `kind` (None in a summary written before this was counted)."""
    return (variant["metrics"].get("annotated") or {}).get(kind)


def coverage_text(variant: dict[str, Any], kind: str) -> str:
    """" over 3 of 12 cases (the others have no gold entities)" when some cases are unannotated."""
    annotated, cases = annotated_cases(variant, kind), variant["cases"]
    if annotated is None or annotated == cases:
        return ""
    return f" over {annotated} of {cases} cases (the others have no gold {kind})"


def threshold_rules(summary: dict[str, Any], thresholds: dict[str, Any]) -> list[RuleResult]:
    table = threshold_rules_table()
    rules: list[RuleResult] = []
    for name, variant in summary["variants"].items():
        for key, limit in effective_thresholds(thresholds, name).items():
            measures, op, text = table[key]
            value = _variant_value(variant, key)
            kind = gold_kind(key) if measures == "metric" else None
            if value is None and kind is not None:
                # undefined is not perfect: a gold-based threshold with nothing to stand on fails
                status: Status = "fail"
                annotated = annotated_cases(variant, kind)
                why = (f"no case has gold {kind}" if not annotated else f"no prediction to measure over "
                       f"the {annotated} case(s) with gold {kind}")
                message = (f"{text} is n/a: {why} (0 of {variant['cases']} cases count), so the threshold "
                           f"{_pct(limit)} cannot be met; annotate the cases (docs/scoring.md)")
            elif value is None:
                status = "fail"  # undefined is not perfect: no case to measure the share over
                message = f"{text} is n/a: the variant has no case to measure it over, so the limit {_pct(limit)} cannot be met"
            else:
                ok, verdict = below_or_above(value, float(limit), op)
                status = "pass" if ok else "fail"
                message = f"{text} {_pct(value)}{coverage_text(variant, kind) if kind else ''} {verdict}"
            rules.append(RuleResult("threshold", name, key, op, value, float(limit), status, message))
    return rules


# --------------------------------------------------------------------------- per-case values


def case_values(rows: list[CaseResult]) -> dict[str, dict[str, dict[str, Any]]]:
    """variant -> case -> every per-case metric, plus what the case missed (the baseline's `cases`)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        if row.score is None:
            continue
        entry: dict[str, Any] = dict(case_metrics(row.score))
        entry["missed_entities"] = list(row.score.entities.missed)
        entry["missed_relationships"] = [list(pair) for pair in row.score.relationships.missed]
        out.setdefault(row.variant, {})[row.case_id] = entry
    return out


# --------------------------------------------------------------------------- regression


def regression_rules(
    summary: dict[str, Any], rows: list[CaseResult], baseline: dict[str, Any], regression: dict[str, Any]
) -> list[RuleResult]:
    from .compare import min_paired_cases, paired_statistics

    max_drop = float(regression.get("max_drop", 0.05))
    case_max_drop = float(regression.get("case_max_drop", 0.20))
    metrics = list(regression.get("metrics") or ["entity_recall", "relationship_recall"])
    current = case_values(rows)
    base_cases: dict[str, dict[str, dict[str, Any]]] = baseline.get("cases", {})
    rules: list[RuleResult] = []
    for name in summary["variants"]:
        if name not in base_cases:
            rules.append(RuleResult("regression", name, "*", "drop <=", None, max_drop, "skip",
                                    "not in the baseline: regression rules not applied"))
            continue
        base, mine = base_cases[name], current.get(name, {})
        paired = sorted(set(base) & set(mine))
        absent = sorted(set(base) - set(mine))
        if absent:
            rules.append(RuleResult(
                "coverage", name, "cases", ">=", float(len(paired)), float(len(base)), "warn",
                f"{len(absent)} baseline case(s) not scored in this run: {', '.join(absent[:10])}"
                + (" …" if len(absent) > 10 else ""),
                cases=[{"case_id": c} for c in absent],
            ))
        for metric in metrics:
            if metric not in metric_names():
                rules.append(RuleResult("regression", name, metric, "drop <=", None, max_drop, "skip",
                                        f"{metric}: not a per-case metric"))
                continue
            pairs = [(cid, base[cid].get(metric), mine[cid].get(metric)) for cid in paired]
            pairs = [(cid, a, b) for cid, a, b in pairs if a is not None and b is not None]
            if not pairs:
                if gold_kind(metric) is not None:  # undefined is not a pass
                    rules.append(RuleResult(
                        "regression", name, metric, "drop <=", None, -max_drop, "fail",
                        f"{phrase(metric)} cannot be compared with the baseline: no paired case has a value "
                        f"on both sides (no case annotated with gold {gold_kind(metric)}), so no drop can be ruled out"))
                else:
                    rules.append(RuleResult("regression", name, metric, "drop <=", None, -max_drop, "skip",
                                            f"{phrase(metric)}: no paired case has a value"))
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
            message = f"{change}: {why}"
            rules.append(RuleResult("regression", name, metric, "drop <=", delta, -max_drop, status, message,
                                    interval=[stats.ci_low, stats.ci_high], p_value=stats.p_value))

            drops = sorted(((a - b, cid) for cid, a, b in pairs), key=lambda t: (-t[0], t[1]))
            worst = drops[0][0]
            offending = []
            for drop, cid in drops:
                if drop <= case_max_drop + _TOL:
                    break
                offending.append({
                    "case_id": cid,
                    "baseline": base[cid][metric],
                    "value": mine[cid][metric],
                    "drop": drop,
                    "newly_missed_entities": newly(mine[cid]["missed_entities"], base[cid].get("missed_entities", [])),
                    "newly_missed_relationships": newly(
                        mine[cid]["missed_relationships"], base[cid].get("missed_relationships", [])
                    ),
                })
            if offending:
                listed = ", ".join(f"{c['case_id']} ({_pt(-c['drop'])})" for c in offending[:5])
                more = f" and {len(offending) - 5} more" if len(offending) > 5 else ""
                message = (f"{phrase(metric)} per case: {len(offending)} case(s) dropped by more than "
                           f"{case_max_drop * 100:.1f} pt: {listed}{more}")
                status = "fail"
            else:
                message = (f"{phrase(metric)} per case: the largest drop, {max(worst, 0.0) * 100:.1f} pt, is within "
                           f"the tolerated {case_max_drop * 100:.1f} pt")
                status = "pass"
            rules.append(RuleResult("case_regression", name, metric, "drop <=", max(worst, 0.0), case_max_drop,
                                    status, message, cases=offending))
    return rules


def _entity_recall(rows: list[CaseResult]) -> str:
    micro = aggregate([r.score for r in rows if r.score is not None]).metrics["entity_recall"].micro
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
            "leakage", variant, "cases_in_prompt_examples", "<=", float(len(shown)), 0.0, "warn",
            f"{len(shown)} case(s) stand in the prompt's own few-shot examples ({', '.join(shown[:5])}"
            f"{', ...' if len(shown) > 5 else ''}): their scores measure copying; entity recall (micro) "
            f"{_entity_recall(variant_rows)} on all {len(variant_rows)} cases, {_entity_recall(others)} on the "
            f"{len(others)} others",
            cases=[{"case_id": cid} for cid in shown],
        ))
    return rules


# --------------------------------------------------------------------------- the verdict


def evaluate(
    summary: dict[str, Any],
    rows: list[CaseResult],
    *,
    baseline: dict[str, Any] | None = None,
    baseline_file: str | None = None,
    config: dict[str, Any] | None = None,
    notes: list[str] | None = None,
) -> Verdict:
    """Apply every rule to one run; `baseline` is a loaded baseline file (or None: no regression rules)."""
    config = config or config_of(summary)
    rules = threshold_rules(summary, config["thresholds"])
    rules += leakage_rules(rows)
    notes = list(notes or [])
    if baseline is not None:
        rules += regression_rules(summary, rows, baseline, config["regression"])
    elif not notes:
        notes.append("no baseline: regression rules not applied (accept a run with `harness baseline update RUN`)")
    statuses = {r.status for r in rules}
    status: Status = "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"
    return Verdict(
        suite=summary["suite"],
        run_id=summary["run_id"],
        status=status,
        rules=rules,
        baseline_file=baseline_file,
        baseline_run_id=None if baseline is None else baseline.get("run_id"),
        notes=notes,
    )


def case_checks(
    summary: dict[str, Any],
    rows: list[CaseResult],
    *,
    baseline: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
) -> dict[tuple[str, str], CaseCheck]:
    """(variant, case) -> its per-case rules (see the module docstring)."""
    config = config or config_of(summary)
    regression = config["regression"]
    case_max_drop = float(regression.get("case_max_drop", 0.20))
    metrics = [m for m in (regression.get("metrics") or []) if m in metric_names()]
    base_cases = (baseline or {}).get("cases", {})
    out: dict[tuple[str, str], CaseCheck] = {}
    for row in rows:
        limits = {k: v for k, v in effective_thresholds(config["thresholds"], row.variant).items() if k in case_threshold_names()}
        if row.score is None:
            out[(row.variant, row.case_id)] = CaseCheck(
                row.variant, row.case_id, [f"no score: {row.error or 'the case failed'}"], error=row.error
            )
            continue
        values = case_metrics(row.score)
        failures = [
            f"{phrase(key)} {_pct(values[key])} is below the threshold {_pct(limit)}"
            for key, limit in limits.items()
            if values[key] is not None and values[key] < limit - _TOL  # type: ignore[operator]
        ]
        check = CaseCheck(
            row.variant,
            row.case_id,
            failures,
            missed_entities=list(row.score.entities.missed),
            missed_relationships=[list(p) for p in row.score.relationships.missed],
            undefined=[f"{phrase(key)} n/a" for key in limits if values[key] is None],
            checked=sum(1 for key in limits if values[key] is not None),
        )
        base = base_cases.get(row.variant, {}).get(row.case_id)
        if base is not None:
            for metric in metrics:
                a, b = base.get(metric), values[metric]
                if a is not None and b is not None:
                    check.checked += 1
                if a is not None and b is not None and a - b > case_max_drop + _TOL:
                    failures.append(f"{phrase(metric)} fell {(a - b) * 100:.1f} pt against the baseline "
                                    f"({_pct(a)} → {_pct(b)}), more than the tolerated {case_max_drop * 100:.1f} pt")
                    check.newly_missed_entities = newly(check.missed_entities, base.get("missed_entities", []))
                    check.newly_missed_relationships = newly(
                        check.missed_relationships, base.get("missed_relationships", [])
                    )
        out[(row.variant, row.case_id)] = check
    return out


# --------------------------------------------------------------------------- baseline files


def make_baseline(summary: dict[str, Any], rows: list[CaseResult], *, run_dir: Path) -> dict[str, Any]:
    """An accepted summary plus the per-case values the regression rules need."""
    data = dict(summary)
    data["baseline_schema_version"] = BASELINE_SCHEMA_VERSION
    data["accepted_from"] = str(run_dir)
    data["cases"] = case_values(rows)
    return data


def load_baseline(path: Path, *, suite: str | None = None) -> dict[str, Any]:
    """Read and check a baseline file; anything wrong is one InputError naming the file."""
    from .inputfiles import load_json

    data = load_json(path, what="baseline file")  # bounded, strict UTF-8, depth-checked
    if not isinstance(data, dict) or not isinstance(data.get("cases"), dict) or "suite" not in data:
        raise InputError(f"{path}: not a baseline file (write one with `harness baseline update RUN`)")
    version = data.get("baseline_schema_version")
    if version != BASELINE_SCHEMA_VERSION:
        raise InputError(f"{path}: baseline schema version {version!r}, this harness reads {BASELINE_SCHEMA_VERSION}")
    for variant, cases in data["cases"].items():
        if not isinstance(cases, dict) or not all(isinstance(v, dict) for v in cases.values()):
            raise InputError(f"{path}: cases.{variant}: expected case id -> metric values")
    if suite is not None and data["suite"] != suite:
        raise InputError(f"{path}: baseline of suite '{data['suite']}', not '{suite}'")
    return data


