"""The table `harness run` prints per suite: a row per variant, with ratios to the baseline.

With gold, the key figures (entity and relationship recall) and the grounding rate; a suite with
no gold at all (no case annotated) gets the compact reference-free set instead: grounded %, type
conformance, duplicate records, dangling relationships, example leaks (totals over the cases).
A suite of another kind (harness/kinds/: description summaries, reports, claims) shows its
kind's key figures and no graph columns: its answers build no graph."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..artifacts import RunSummary, VariantSummary, Verdict
from ..kinds.registry import builds_graph
from ..metrics.registry import Metric, console_columns, format_value, key_figures
from . import cost_section, engine_section, fragmentation_section, gleaning_section, judges_section, matrix_section


def _rate(value: float | None) -> str:
    """A format share, rounded to whole percent (the registry's rate formatting)."""
    return format_value("rate", value, digits=0)


def usage_text(variant: VariantSummary) -> tuple[str, str]:
    """(tokens, cost) of a variant as shown in every report, marked when the counts are estimated;
    n/a where no token was counted (no usage known) or no price is."""
    mark = " (est.)" if variant.usage.estimated else ""
    tokens = f"{variant.usage.total_tokens:,}{mark}" if variant.usage.counted else "n/a"
    cost = variant.cost_usd
    return tokens, ("n/a" if cost is None else f"${cost:,.4f}{mark}")


def annotation_lines(summary: RunSummary) -> list[str]:
    """What gold-based figures stand on, for variants where some cases have no gold."""
    lines = []
    for name, variant in summary.variants.items():
        annotated = variant.metrics.annotated
        parts = [
            f"{m.phrase} over {annotated[m.gold]} of {variant.cases} annotated cases: "
            f"{m.format(variant.metric(m.name))}"
            for m in key_figures(summary.suite_kind)
            if m.gold is not None and m.gold in annotated and annotated[m.gold] < variant.cases
        ]
        if parts:
            lines.append(f"{name}: " + "; ".join(parts))
    if summary.pending_review:
        lines.append(f"{summary.pending_review} case(s) with proposed gold pending review (harness annotate): "
                     "excluded from gold metrics")
    return lines


def _count(value: int, ratio: float | None, is_base: bool) -> str:
    if is_base or ratio is None:
        return f"{value:,}"
    return f"{value:,} ({ratio:.2f}×)"


def _cell(metric: Metric, variant: VariantSummary, ratio: float | None, is_base: bool) -> str:
    text = metric.format(variant.metric(metric.name))
    return text if is_base or ratio is None else f"{text} ({ratio:.2f}×)"


def run_table(summary: RunSummary) -> Table:
    baseline = summary.baseline
    gold = summary.has_gold
    kind = summary.suite_kind
    graph_columns = builds_graph(kind)
    # say what each group of columns is: the metric columns pool over cases, while entities,
    # relationships and communities are the union graph's (a name in two cases counts once)
    union = "entities, relationships, communities: the union graph of all cases"
    if not graph_columns:
        averages = f"{kind.replace('_', ' ')}: shares pooled over cases"
    elif gold:
        averages = f"recall is micro-averaged; {union}"
    else:
        averages = f"no gold: reference-free figures, their counts totalled over cases; {union}"
    table = Table(title=f"{summary.suite} — baseline: {baseline} ({averages})", title_justify="left")
    figures = console_columns(gold=gold, kind=kind)
    graph_heads = ("entities", "relationships", "communities") if graph_columns else ()
    for column in ("variant", *(m.column_label for m in figures), *graph_heads, "format errors", "tokens", "cost"):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for name, variant in summary.variants.items():
        ratio = summary.ratios.get(name, {})
        is_base = name == baseline
        graph = variant.graph
        fmt = variant.format
        table.add_row(
            name + (" (baseline)" if is_base else ""),
            *(_cell(m, variant, ratio.get(m.name), is_base) for m in figures),
            *((_count(graph.nodes, ratio.get("entities"), is_base),
               _count(graph.edges, ratio.get("relationships"), is_base),
               _count(graph.communities, ratio.get("communities"), is_base)) if graph_columns else ()),
            f"{fmt.cases_with_errors}/{variant.cases} ({_rate(fmt.format_error_rate)})",
            *usage_text(variant),
        )
    return table


def cases_line(summary: RunSummary) -> str | None:
    """Where the variants ran different cases (a variant's `cases:` list, as `import --cache`
    writes): each variant's case count, and how many cases each comparison with the baseline
    stands on; None when every variant ran the same cases."""
    comparisons = summary.comparisons
    uneven = any(c.cases.only_in_a or c.cases.only_in_b for c in comparisons.values())
    if not uneven and len({v.cases for v in summary.variants.values()}) <= 1:
        return None
    counts = ", ".join(f"{name} {variant.cases}" for name, variant in summary.variants.items())
    def alone(cases: list[str], name: str) -> str:
        return f"{len(cases)} only in {name}" if cases else ""

    paired = "; ".join(
        f"{name} vs {summary.baseline} over {c.cases.paired} paired case(s)"
        + (f" ({', '.join(filter(None, (alone(c.cases.only_in_b, name), alone(c.cases.only_in_a, summary.baseline))))}"
           ": left out)" if c.cases.only_in_a or c.cases.only_in_b else "")
        for name, c in comparisons.items())
    return f"cases per variant: {counts}" + (f"; {paired}" if paired else "")


def gate_line(verdict: Verdict) -> str:
    """One line of the run's verdict (the verdict sets the exit code only with --gate)."""
    failed = verdict.failed()
    line = f"gate: {verdict.status.upper()}"
    if failed:
        line += f" — {len(failed)} rule(s) failed: " + "; ".join(f"{r.variant}: {r.message}" for r in failed[:3])
        line += " …" if len(failed) > 3 else ""
    return line


def repeat_line(summary: RunSummary) -> str | None:
    """One line for a run with repeats (`--repeat N`): per compared variant, the metrics whose
    difference exceeds the repeat-to-repeat spread; None without repeats."""
    counts = sorted({v.repeats.samples for v in summary.variants.values() if v.repeats is not None})
    if not counts:
        return None
    parts = []
    for name, comparison in summary.comparisons.items():
        if comparison.repeat_spread is not None:
            beyond = [m for m, v in comparison.repeat_spread.metrics.items() if v.exceeds]
            parts.append(f"{name} vs {summary.baseline}: {', '.join(beyond) if beyond else 'none'}")
    return (f"repeats: {'/'.join(str(n) for n in counts)} samples per case; differences beyond the repeat spread: "
            + ("; ".join(parts) if parts else "no comparison with repeats on both sides"))


def print_run_table(summary: RunSummary, run_dir: Path, verdict: Verdict | None = None,
                    console: Console | None = None) -> None:
    console = console or Console(width=140)
    console.print(run_table(summary))
    if summary.matrix is not None:
        console.print(matrix_section.console_table(summary.matrix, summary.suite))
        for line in matrix_section.console_lines(summary.matrix):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    for line in annotation_lines(summary):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    cases = cases_line(summary)
    if cases is not None:
        console.print(cases, markup=False, highlight=False, soft_wrap=True)
    repeats = repeat_line(summary)
    if repeats is not None:
        console.print(repeats, markup=False, highlight=False, soft_wrap=True)
    for line in [*engine_section.console_lines(summary), *fragmentation_section.console_lines(summary),
                 *gleaning_section.console_lines(summary), *judges_section.console_lines(summary),
                 *cost_section.console_lines(summary)]:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    if verdict is not None:
        console.print(gate_line(verdict), markup=False, highlight=False, soft_wrap=True)
    console.print(f"reports: {run_dir}")
    console.print()


def print_verdict(verdict: Verdict, console: Console | None = None) -> None:
    """The gate verdict: one line per rule, failures first."""
    console = console or Console(width=120, highlight=False, soft_wrap=True)
    style = {"pass": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}
    order = {"fail": 0, "warn": 1, "pass": 2, "skip": 3}
    head = f"{verdict.suite} ({verdict.run_id}): gate {verdict.status.upper()}"
    if verdict.baseline_file:
        head += f" — baseline {verdict.baseline_file}"
    console.print(head, style=style.get(verdict.status, ""), markup=False)
    for note in verdict.notes:
        if note.startswith("warning: "):  # a verdict given across changed gold (--allow-changed-gold)
            console.print(f"  {note}", style="yellow", markup=False)
        else:
            console.print(f"  note: {note}", style="dim", markup=False)
    for rule in sorted(verdict.rules, key=lambda r: order[r.status]):
        console.print(f"  {rule.status.upper():4s}  {rule.variant}: {rule.message}", style=style[rule.status], markup=False)
