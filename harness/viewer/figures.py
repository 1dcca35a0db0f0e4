"""What the site's index holds: per suite the figures it trends, and per run only those figures
per series (a variant under its model), never per-case data (that is `casedata`, loaded on demand).

A series is keyed by variant and model, so a summary whose variants run under several models
(a prompt x model matrix) trends each cell on its own line with no change to the page.
"""

from __future__ import annotations

from typing import Any

from ..artifacts import RunSummary
from ..metrics.registry import Metric, console_columns, get

FiguresIndex = dict[str, Any]


def suite_figures(summaries: list[RunSummary]) -> tuple[Metric, ...]:
    """The figures a suite's trend shows: the console's columns for its kind (with gold: the
    key figures first; a suite no run has gold for: the reference-free set, since gold-based
    figures would all be n/a)."""
    kind = summaries[-1].suite_kind if summaries else "extract_graph"
    has_gold = any(summary.has_gold for summary in summaries)
    return console_columns(gold=has_gold, kind=kind)


def metric_entry(metric: Metric) -> dict[str, Any]:
    """How the page labels, formats and orders a figure (rate: a share shown as a percentage)."""
    return {"name": metric.name, "label": metric.label, "rate": not metric.is_count,
            "higher": metric.higher_is_better}


def series(summary: RunSummary, names: list[str]) -> list[dict[str, Any]]:
    """Per variant of the run: its model, its case count and each figure's pooled (micro) value."""
    out = []
    for variant, found in summary.variants.items():
        out.append({"variant": variant, "model": found.model, "cases": found.cases,
                    "figures": [rounded(found.metric(name)) for name in names]})
    return out


def rounded(value: float | None) -> float | None:
    """Six significant digits are more than any chart or table shows, and keep the index small."""
    return None if value is None else float(f"{value:.6g}")


def known(names: list[str]) -> list[Metric]:
    return [metric for name in names if (metric := get(name)) is not None]
