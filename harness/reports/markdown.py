"""The markdown pieces of report.md: scores (variants as columns, deltas against the reference with
95% intervals), graph size (with ratios), the gate verdict (every rule with its value and limit),
the worst regressions (with what they lost), format issues by code, and the cases (folded).

Their order is the one list of sections.py; writers.render_markdown writes the document.
"""

from __future__ import annotations

from typing import Any

from ..artifacts import MetricDelta, RuleResult, VariantSummary, Verdict
from ..metrics.registry import Metric, format_metric, format_value, get, key_figures
from . import engine_section
from ..model import CaseResult, CaseScore, SummaryScore
from ..scoring.case_metrics import measured
from .deltas import change, delta_text, pt  # noqa: F401 (the report writers read them here)
from .repeats import RULE_TEXT, samples_text, spread_rows, verdict_text
from .view import SIZE_KEYS, Column, ReportView

MAX_CASE_ROWS = 200  # a PR comment holds 65,536 characters; the HTML report has every case
MAX_LIST = 12
STATUS_ICON = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail", "skip": "➖ skip"}
GATE_ICON = {"pass": "✅ PASS", "warn": "⚠️ PASS with warnings", "fail": "❌ FAIL"}


def pct(value: float | None) -> str:
    """A rate; None (undefined: no gold, no prediction) is "n/a", never a number (the registry's
    rate formatting, `Metric.format`)."""
    return format_value("rate", value)


def annotated_text(data: VariantSummary) -> str:
    """"3 / 2 of 3": cases with gold entities / gold relationships, of all cases of a column."""
    annotated = data.metrics.annotated
    if not annotated:
        return "—"
    return f"{annotated.get('entities', 0)} / {annotated.get('relationships', 0)} of {data.cases}"


def usage_cells(data: VariantSummary) -> tuple[str, str]:
    """(tokens, cost) of a column; "(est.)" when the token counts are estimated, not reported."""
    from .console import usage_text

    return usage_text(data)


def esc(text: Any) -> str:
    """Text safe inside a markdown table cell."""
    return (
        str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("|", "\\|").replace("`", "'").replace("\n", " ").replace("\r", " ")
    )


def names(items: list[str], limit: int = MAX_LIST) -> str:
    shown = ", ".join(esc(x) for x in items[:limit])
    return shown + (f" … (+{len(items) - limit})" if len(items) > limit else "")


def pairs(items: list[list[str]], limit: int = MAX_LIST) -> str:
    return names([" — ".join(p) for p in items], limit)


def row_label(metric: Metric) -> str:
    """A report row's label; a count says which figure is which (a rate's are in the legend)."""
    return f"{metric.label} (total · mean per case)" if metric.is_count else metric.label


def scores_legend(ref_word: str) -> str:
    """The sentence above the scores table (markdown; the HTML report escapes it)."""
    return (f"**micro** (pooled counts) · macro (mean over cases); for a count, **total** over the cases that "
            f"have a value · mean per case. n/a: no case has a value. Δ: macro difference against {ref_word}, in "
            "percentage points (a count: per case), with a 95% paired bootstrap interval over cases and a sign-flip "
            "permutation p-value; ▲/▼ when the difference is real: at least 6 paired cases, the interval excludes "
            "zero and p < 0.05.")


def header(view: ReportView) -> list[str]:
    cells = [esc(c.name) + (" (reference)" if c.is_reference and view.report_of == "comparison" else
                            " (baseline)" if c.is_reference and len(view.columns) > 1 else "")
             for c in view.columns]
    return ["| | " + " | ".join(cells) + " |", "|---|" + "---:|" * len(view.columns)]


def scores_table(view: ReportView) -> list[str]:
    lines = header(view)
    for metric in view.reported_metrics():
        cells = []
        for column in view.columns:
            cell = f"**{metric.format(column.metric(metric.name))}** · {metric.format(column.metric(metric.name, 'macro'))}"
            extra = delta_text(column.delta(metric.name), metric)
            cells.append(cell + (f"<br>{extra}" if extra else ""))
        lines.append(f"| {row_label(metric)} | " + " | ".join(cells) + " |")
    lines.append("| cases | " + " | ".join(str(c.data.cases) for c in view.columns) + " |")
    if view.uneven_cases:  # the variants ran different cases: Δ is over the cases both ran
        lines.append("| paired cases (Δ over these) | " + " | ".join(esc(c.paired_text()) for c in view.columns) + " |")
    if view.builds_graph:
        lines.append("| annotated cases (entities / relationships) | "
                     + " | ".join(annotated_text(c.data) for c in view.columns) + " |")
    lines.append("| tokens | " + " | ".join(usage_cells(c.data)[0] for c in view.columns) + " |")
    lines.append("| cost (USD) | " + " | ".join(usage_cells(c.data)[1] for c in view.columns) + " |")
    return lines


def size_table(view: ReportView) -> list[str]:
    lines = header(view)
    for label, key in (*SIZE_KEYS, ("components", "components"), ("isolated entities", "isolates")):
        cells = []
        for column in view.columns:
            value = getattr(column.data.graph, key)
            ratio = view.ratio(column, key)
            cells.append(f"{value:,}" + ("" if ratio is None else f" ({ratio:.2f}×)"))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    settings = view.graph_settings()
    if settings:
        lines += ["", f"Union graph of each column's cases; communities: {settings.algorithm} "
                      f"({settings.library} {settings.library_version}, seed {settings.seed}, "
                      f"resolution {settings.resolution}). Ratios are against the "
                      f"{'reference run' if view.report_of == 'comparison' else 'baseline variant'}."]
    return lines


def rule_value(rule: RuleResult) -> tuple[str, str]:
    """(value, limit) of a gate rule, as text."""
    metric = get(rule.metric)
    if rule.rule == "threshold":
        op = "≥" if rule.op == ">=" else "≤"
        per_case = " per case" if metric is not None and metric.is_count else ""
        return format_metric(rule.metric, rule.value) + per_case, f"{op} {format_metric(rule.metric, rule.limit)}"
    worse = "rise" if rule.op == "rise <=" else "drop"

    def size(amount: float) -> str:
        return metric.format_size(amount) if metric is not None else f"{amount * 100:.1f} pt"

    if rule.rule == "regression":
        unit = " per case" if metric is not None and metric.is_count else " pt"
        value = "—" if rule.value is None else f"Δ {change(rule.value, metric)}{unit}"
        if rule.interval:
            value += f" [{change(rule.interval[0], metric)}, {change(rule.interval[1], metric)}]"
        if getattr(rule, "p_value", None) is not None:
            value += f" p {rule.p_value:.3f}"
        return value, ("—" if rule.limit is None else f"{worse} ≤ {size(abs(rule.limit))}")
    if rule.rule == "case_regression":
        return ("—" if rule.value is None else f"largest {worse} {size(rule.value)}",
                f"{worse} ≤ {size(rule.limit)}" if rule.limit is not None else "—")
    if rule.rule == "coverage":
        return f"{rule.value:.0f} cases", f"{rule.limit:.0f} in baseline"
    if rule.rule == "leakage":
        return f"{rule.value:.0f} cases", f"≤ {rule.limit:.0f}"
    return "—", "—"


RULE_NAMES = {
    "threshold": "threshold",
    "regression": "regression vs baseline",
    "case_regression": "per-case regression vs baseline",
    "coverage": "baseline coverage",
    "leakage": "cases in the prompt's examples",
}


def gate_section(verdict: Verdict | None) -> list[str]:
    if verdict is None:
        return ["Not evaluated."]
    lines = [f"**{GATE_ICON[verdict.status]}**"
             + (f" — baseline `{verdict.baseline_file}` (run `{verdict.baseline_run_id}`)" if verdict.baseline_file else ""),
             ""]
    lines += [f"- {esc(note)}" for note in verdict.notes]
    if verdict.notes:
        lines.append("")
    lines += ["| status | variant | rule | metric | value | limit |", "|---|---|---|---|---:|---:|"]
    order = {"fail": 0, "warn": 1, "pass": 2, "skip": 3}
    for rule in sorted(verdict.rules, key=lambda r: order[r.status]):
        value, limit = rule_value(rule)
        lines.append(f"| {STATUS_ICON[rule.status]} | {esc(rule.variant)} | {RULE_NAMES.get(rule.rule, rule.rule)} | "
                     f"{esc(rule.metric)} | {esc(value)} | {esc(limit)} |")
    leaks = [rule for rule in verdict.rules if rule.rule == "leakage"]
    if leaks:
        lines += [""] + [f"- ⚠️ {esc(rule.variant)}: {esc(rule.message)}" for rule in leaks]
    failing_cases = [(rule, case) for rule in verdict.rules if rule.rule == "case_regression" for case in rule.cases]
    if failing_cases:
        lines += ["", "Cases that got worse by more than `case_max_drop` against the baseline:", ""]
        for rule, case in failing_cases[:MAX_CASE_ROWS]:
            lost = []
            if case.newly_missed_entities:
                lost.append("entities: " + names(case.newly_missed_entities))
            if case.newly_missed_relationships:
                lost.append("relationships: " + pairs(case.newly_missed_relationships))
            lines.append(f"- `{esc(rule.variant)}` / `{esc(case.case_id)}`: {esc(rule.metric)} "
                         f"{format_metric(rule.metric, case.baseline)} → {format_metric(rule.metric, case.value)}"
                         + (f"; newly missed {'; '.join(lost)}" if lost else ""))
    return lines


def regressions_section(view: ReportView, k: int = 5) -> list[str]:
    lines: list[str] = []
    for column in view.compared():
        comparison = column.comparison
        worst = comparison.worst_regressions[:k] if comparison is not None else []
        lines.append(f"**{esc(column.name)}** against **{esc(column.reference)}**: "
                     + (f"{len(worst)} worst of the cases whose entity F1 + relationship F1 fell" if worst else "no case lost F1."))
        lines.append("")
        for case in worst:
            lost = []
            if case.newly_missed_entities:
                lost.append(f"newly missed entities: {names(case.newly_missed_entities)}")
            if case.newly_missed_relationships:
                lost.append(f"newly missed relationships: {pairs(case.newly_missed_relationships)}")
            diff = comparison.case_diff(case.case_id) if comparison is not None else None
            if diff is not None and diff.graph.entities_lost:
                lost.append(f"no longer extracted: {names(diff.graph.entities_lost, 8)}")
            change = (diff.f1_changes_text() if diff is not None
                      else f"entity F1 + relationship F1 change {case.f1_change:+.3f}")
            lines.append(f"- `{esc(case.case_id)}` ({change}): "
                         + ("; ".join(lost) if lost else "lower scores, nothing newly missed"))
        lines.append("")
    return lines or ["Nothing is compared (a single variant)."]


def format_table(view: ReportView) -> list[str]:
    lines = header(view)
    fmt = [c.data.format for c in view.columns]
    lines.append("| cases with a format error | " + " | ".join(
        f"{f.cases_with_errors}/{c.data.cases} ({pct(f.format_error_rate)})" for f, c in zip(fmt, view.columns)) + " |")
    if view.builds_graph:  # a summary or a report has no completion delimiter to look for
        lines.append("| completion delimiter present | " + " | ".join(pct(f.completion_rate) for f in fmt) + " |")
    label, cells = engine_section.records_row(view)
    lines.append(f"| {label} | " + " | ".join(esc(cell) for cell in cells) + " |")
    codes = sorted({code for f in fmt for code in f.issues_by_code})
    for code in codes:
        lines.append(f"| `{esc(code)}` | " + " | ".join(str(f.issues_by_code.get(code, 0)) for f in fmt) + " |")
    if codes:
        lines += ["", "Codes are documented in docs/format-codes.md."]
    return lines


def case_cell(view: ReportView, column: Column, case_id: str) -> str:
    row = column.row(case_id)
    if row is None:
        return "—"
    if row.score is None:
        return "❌ error"
    check = view.checks.get((column.variant, case_id))
    mark = "" if check is None else "❌ " if not check.passed else "⚠️ " if check.warnings else ""
    if not view.builds_graph:  # another suite kind: its first two key figures
        return mark + " / ".join(m.format(figure_of(row, m)) for m in key_figures(view.suite_kind)[:2])
    if not view.has_gold:  # no recall anywhere: the grounding rate and the example leaks instead
        return f"{mark}{pct(row.score.grounding.rate)} / {format_metric('example_leaks', _leaks(row.score))}"
    return f"{mark}{pct(row.score.entities.recall)} / {pct(row.score.relationships.recall)}"


def figure_of(row: CaseResult, metric: Metric) -> float | None:
    """A scored row's value of a metric, as computed when the case was scored."""
    values = measured(row)
    return None if values is None else values.value(metric.name)


def _leaks(score: CaseScore) -> int | None:
    return None if score.reference_free is None else score.reference_free.example_leaks


def case_cell_label(view: ReportView) -> str:
    """What each column's cell of the per-case table shows."""
    if not view.builds_graph:
        return " / ".join(m.label for m in key_figures(view.suite_kind)[:2])
    return "Entity / relationship recall" if view.has_gold else "Grounding rate / example leaks (no gold)"


def missed_label(view: ReportView) -> str:
    """The heading of the per-case table's last cell (followed by the last column's name)."""
    if view.suite_kind == "summarize_descriptions":
        return "facts dropped / added by"
    if not view.builds_graph:  # reports, claims: what the format found wrong
        return "format issues in"
    return "missed by" if view.has_gold else "ungrounded in"


def missed_cell(view: ReportView, column: Column, case_id: str, escape: Any = esc) -> str:
    """What `column` missed (or got wrong) in one case, as the per-case table's last cell; its
    items escaped by `escape` (markdown here; the case pages pass HTML's)."""
    def listed(items: list[str], limit: int) -> str:
        shown = ", ".join(escape(x) for x in items[:limit])
        return shown + (f" … (+{len(items) - limit})" if len(items) > limit else "")

    row = column.row(case_id)
    if row is None or row.score is None:
        return ""
    summary = row.score.figures_of("summary", SummaryScore)
    if summary is not None:
        return "; ".join(part for part in (
            f"dropped: {listed(summary.dropped_facts, 3)}" if summary.dropped_facts else "",
            f"added: {listed(summary.added_facts, 3)}" if summary.added_facts else "") if part) or "—"
    if not view.builds_graph:
        return listed(sorted({issue.code for issue in row.format_report.issues}), 8) or "—"
    if view.has_gold:
        return listed(row.score.entities.missed, 8) or "—"
    if row.score.reference_free is not None:
        return listed(row.score.reference_free.ungrounded, 8) or "—"
    return ""


def cases_section(view: ReportView) -> list[str]:
    last = view.columns[-1] if view.columns else None
    what = case_cell_label(view)
    lines = [f"<details><summary>{what} per case "
             f"({len(view.case_ids)} cases; ❌ breaks a per-case rule; ⚠️ below a threshold its variant meets "
             f"on average)</summary>", ""]
    missed_by = missed_label(view)
    lines += ["| case | " + " | ".join(esc(c.name) for c in view.columns) + (f" | {missed_by} {esc(last.name)} |" if last else " |"),
              "|---|" + "---:|" * len(view.columns) + ("---|" if last else "")]
    for case_id in view.case_ids[:MAX_CASE_ROWS]:
        cells = [case_cell(view, c, case_id) for c in view.columns]
        missed = "" if last is None else missed_cell(view, last, case_id)
        lines.append(f"| {esc(case_id)} | " + " | ".join(cells) + (f" | {missed} |" if last else " |"))
    if len(view.case_ids) > MAX_CASE_ROWS:
        lines.append(f"\n{len(view.case_ids) - MAX_CASE_ROWS} more cases in report.html.")
    failing = [check for check in view.checks.values() if not check.passed]
    if failing:
        lines += ["", "Per-case rules broken:", ""]
        for check in failing[:MAX_CASE_ROWS]:
            lines.append(f"- `{esc(check.variant)}` / `{esc(check.case_id)}`: {esc(check.message())}")
    warning = [check for check in view.checks.values() if check.passed and check.warnings]
    if warning:
        lines += ["", "Below a threshold on one case, met by the variant on average (warnings; the gate passes "
                  "them):", ""]
        for check in warning[:MAX_CASE_ROWS]:
            lines.append(f"- `{esc(check.variant)}` / `{esc(check.case_id)}`: {esc('; '.join(check.warnings))}")
    lines += ["", "</details>"]
    return lines


def repeats_section(view: ReportView) -> list[str]:
    """The spread of every metric across the samples of a repeated run."""
    lines = [f"{samples_text(view)}; the scores above pool every (case, sample). Per sample: its micro value. "
             f"{RULE_TEXT[0].upper()}{RULE_TEXT[1:]}.", "",
             "| metric | column | per sample | min | median | max | std | difference exceeds spread |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for row in spread_rows(view):
        cells = " | ".join(row.cells())
        lines.append(f"| {esc(row.metric)} | {esc(row.column)} | {cells} | {verdict_text(row)} |")
    return lines
