"""The "Model matrix" section of report.md and report.html, and its console table: for a suite
with `models:`, each figure's prompt x model table (mean per case with its 95% interval, the best
cell marked), then the paired comparisons along each row (prompts under one model) and each column
(models under one prompt). Everything shown is summary.json's `matrix` block (harness/matrix.py):
this module only formats it."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from rich.table import Table

from ..artifacts import MatrixComparison, MatrixFigure, MatrixSummary
from ..metrics import get as get_metric
from .deltas import delta_text
from .view import ReportView

BEST = "★"
NOTE = ("Each cell: the figure's mean over the cell's cases with its 95% bootstrap interval; ★ the best cell of "
        "the figure. Comparisons are paired over the cases both cells ran: along a row, each prompt against the "
        "baseline prompt under one model; along a column, each model against the baseline model under one prompt "
        "(Δ as in the scores table; ▲/▼ when the difference is real).")


def label(figure: str) -> str:
    metric = get_metric(figure)
    return metric.label if metric is not None else figure


def figure_text(figure: str, value: MatrixFigure | None) -> str:
    """`91.7% [83.3%–100.0%]`, or `n/a`."""
    metric = get_metric(figure)
    if value is None or value.value is None:
        return "n/a"
    shown = metric.format if metric is not None else (lambda v: f"{v:.3f}")
    interval = f" [{shown(value.ci_low)}–{shown(value.ci_high)}]" if value.ci_low is not None and value.ci_high is not None else ""
    return f"{shown(value.value)}{interval}"


def grid(matrix: MatrixSummary, figure: str) -> list[list[str]]:
    """One figure's table: a row per prompt variant, its first cell the prompt, then one per model
    (— where the run holds no such cell)."""
    at = {(c.prompt, c.model): name for name, c in matrix.cells.items()}
    best = set(matrix.best.get(figure, []))
    out = []
    for prompt in matrix.prompts:
        row = [prompt]
        for model in matrix.models:
            name = at.get((prompt, model))
            if name is None:
                row.append("—")
                continue
            text = figure_text(figure, matrix.cells[name].figures.get(figure))
            row.append(f"{text} {BEST}" if name in best else text)
        out.append(row)
    return out


def comparison_text(c: MatrixComparison) -> str:
    """`row gpt-4o: tuned@gpt-4o vs default@gpt-4o over 6 cases — entity recall Δ +12.1 pt [...] p 0.031; ...`"""
    parts = [f"{label(name)} {delta_text(delta, get_metric(name))}" for name, delta in c.metrics.items() if delta.delta is not None]
    return f"{c.along} — {c.b} vs {c.a} over {c.paired} paired case(s): " + ("; ".join(parts) if parts else "no figure to compare")


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    matrix = view.matrix
    if matrix is None:
        return []
    lines = ["## Model matrix", "", esc(NOTE), ""]
    for figure in matrix.figures:
        lines += [f"**{esc(label(figure))}**", "", "| prompt | " + " | ".join(esc(m) for m in matrix.models) + " |",
                  "|---|" + "---:|" * len(matrix.models)]
        lines += ["| " + " | ".join(esc(cell) for cell in row) + " |" for row in grid(matrix, figure)]
        lines.append("")
    if matrix.comparisons:
        lines += ["Paired comparisons:", ""] + [f"- {esc(comparison_text(c))}" for c in matrix.comparisons] + [""]
    return lines


def html_block(view: ReportView) -> str:
    matrix = view.matrix
    if matrix is None:
        return ""
    parts = [f"<h2>Model matrix</h2><p class='muted'>{escape(NOTE)}</p>"]
    head = "<tr><th>prompt</th>" + "".join(f"<th>{escape(m)}</th>" for m in matrix.models) + "</tr>"
    for figure in matrix.figures:
        body = "".join("<tr><td>" + escape(row[0]) + "</td>"
                       + "".join(f"<td class='num'>{escape(cell)}</td>" for cell in row[1:]) + "</tr>"
                       for row in grid(matrix, figure))
        parts.append(f"<h3>{escape(label(figure))}</h3><table>{head}{body}</table>")
    if matrix.comparisons:
        parts.append("<p>Paired comparisons:</p><ul>"
                     + "".join(f"<li>{escape(comparison_text(c))}</li>" for c in matrix.comparisons) + "</ul>")
    return "".join(parts)


def console_table(matrix: MatrixSummary, suite: str) -> Table:
    """The matrix on the console: a row per (figure, prompt), a column per model."""
    table = Table(title=f"{suite} — model matrix (mean per case [95% interval]; {BEST} best)", title_justify="left")
    for column in ("figure", "prompt", *matrix.models):
        table.add_column(column, justify="left" if column in ("figure", "prompt") else "right")
    for figure in matrix.figures:
        for index, row in enumerate(grid(matrix, figure)):
            table.add_row(label(figure) if index == 0 else "", *row)
    return table


def console_lines(matrix: MatrixSummary) -> list[str]:
    """One line per paired comparison, those with a real difference only (the report has them all)."""
    real = [c for c in matrix.comparisons if any(d.significant for d in c.metrics.values())]
    lines = [comparison_text(c.model_copy(update={"metrics": {k: d for k, d in c.metrics.items() if d.significant}}))
             for c in real]
    if matrix.comparisons:
        lines.append(f"matrix: {len(real)} of {len(matrix.comparisons)} row/column comparison(s) show a real difference"
                     " (all of them: report.md, \"Model matrix\")")
    return lines
