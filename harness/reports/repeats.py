"""The "Repeat spread" section of a report (`--repeat N`).

Rows are computed once here, from the view, and rendered by report.md and report.html alike
(the console's one line is `reports.console.repeat_line`): per registered metric and column, each sample's micro value, min, median, max,
standard deviation, and for a compared column whether its difference against the reference
exceeds the repeat-to-repeat spread (harness/scoring/repeat_spread.py states the rule).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..artifacts import MetricSpread
from ..metrics import metrics as registered_metrics
from ..metrics.registry import Metric
from .view import ReportView

RULE_TEXT = ("the difference exceeds the spread when the ranges [min, max] of the two columns' per-sample values "
             "do not overlap (at least 2 samples on each side, each with a value)")


@dataclass(frozen=True)
class SpreadRow:
    spec: Metric  # formats the values by the metric's kind (a rate as %, a count as a number)
    column: str
    reference: bool  # the baseline variant or reference run: no verdict of its own
    spread: MetricSpread
    exceeds: bool | None  # None: no verdict (reference column, or the rule cannot judge)


    @property
    def metric(self) -> str:
        return self.spec.label

    def cells(self) -> list[str]:
        """Per-sample values, min, median, max (in the metric's unit) and the standard deviation
        (percentage points for a rate)."""
        s = self.spread
        std = "n/a" if s.std is None else self.spec.format_size(s.std)
        return [", ".join(self.spec.format(v) for v in s.values), self.spec.format(s.min),
                self.spec.format(s.median), self.spec.format(s.max), std]


def verdict_text(row: SpreadRow) -> str:
    if row.reference:
        return "—"
    return "n/a" if row.exceeds is None else "yes" if row.exceeds else "no"


def has_repeats(view: ReportView) -> bool:
    return any(column.data.repeats is not None for column in view.columns)


def samples_text(view: ReportView) -> str:
    """"3 samples" or "3 / 2 samples" when columns differ."""
    counts = sorted({c.data.repeats.samples for c in view.columns if c.data.repeats is not None})
    return " / ".join(str(n) for n in counts) + " samples per case"


def spread_rows(view: ReportView) -> list[SpreadRow]:
    rows: list[SpreadRow] = []
    for metric in registered_metrics():
        for column in view.columns:
            repeats = column.data.repeats
            if repeats is None or metric.name not in repeats.metrics:
                continue
            verdicts = column.comparison.repeat_spread if column.comparison is not None else None
            verdict = verdicts.metrics.get(metric.name) if verdicts is not None else None
            rows.append(SpreadRow(metric, column.name, column.is_reference, repeats.metrics[metric.name],
                                  None if verdict is None else verdict.exceeds))
    return rows
