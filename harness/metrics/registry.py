"""The metric registry: every per-case metric and every pooled count, declared once.

A family module (`entities.py`, `relationships.py`, `grounding.py`) calls `register_count` and
`register` at import time; `harness/metrics/__init__.py` imports the families, and that import is
the registration. Aggregation, summary.json, the gate, reports, JUnit, the pytest plugin and the
suite's `thresholds:` and `regression.metrics` iterate `metrics()` and `counts()`: no other module
keeps a list of metric names or labels.

Order is declaration order (the key order of summary.json); `headline_rank` orders the headline
figures (ratios to the baseline, suite thresholds), `report_rank` the rows of report tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from ..model import CaseScore

GoldKind = Literal["entities", "relationships"]
Direction = Literal[">=", "<="]


@dataclass(frozen=True)
class Count:
    """One per-case count pooled over a suite (summed into summary.json's `counts`)."""

    name: str
    value: Callable[[CaseScore], int]
    # counts of a gold kind pool only the cases annotated for it (a case without gold adds
    # neither hits nor misses); None: every case pools
    gold: GoldKind | None


@dataclass(frozen=True)
class Metric:
    """One metric: its per-case value, and how its micro average is computed from pooled counts."""

    name: str  # stable: suite files, baselines and summary.json use it
    label: str  # as a report row or plot title: "Entity recall"
    phrase: str  # inside a sentence (gate messages): "entity recall"
    value: Callable[[CaseScore], float | None]  # the per-case value (None: undefined on this case)
    micro: Callable[[Mapping[str, int]], float | None]  # from the pooled counts
    pools: tuple[str, ...]  # the counts `micro` reads
    gold: GoldKind | None  # the gold it needs; None for a reference-free metric
    higher_is_better: bool = True
    # may be a suite threshold (`thresholds: {name: limit}`), met when `value <op> limit`; a
    # threshold also applies to each case's own value (junit.xml, the pytest plugin)
    threshold: Direction | None = None
    headline_rank: int | None = None  # ratio to the baseline in summary.json, in this order
    report_rank: int | None = None  # a row of the report tables, in this order
    bar_chart: bool = False  # a bar of the scores-per-variant plot
    # a key figure: a column of the console table, a panel of the per-case scatter plot, a property
    # of each case in junit.xml and the pytest plugin
    key_figure: bool = False
    short_label: str = ""  # the console column's heading, when `phrase` is too long

    @property
    def column_label(self) -> str:
        return self.short_label or self.phrase

    @property
    def axis_label(self) -> str:
        """The label on two lines, for plot axes."""
        return self.label.replace(" ", "\n", 1)


_METRICS: dict[str, Metric] = {}
_COUNTS: dict[str, Count] = {}


def register_count(count: Count) -> Count:
    if count.name in _COUNTS:
        raise ValueError(f"count {count.name!r} is registered twice")
    _COUNTS[count.name] = count
    return count


def register(metric: Metric) -> Metric:
    """Add a metric (its counts must be registered first); names are unique."""
    if metric.name in _METRICS:
        raise ValueError(f"metric {metric.name!r} is registered twice")
    unknown = [c for c in metric.pools if c not in _COUNTS]
    if unknown:
        raise ValueError(f"metric {metric.name!r} pools unregistered count(s) {', '.join(unknown)}")
    _METRICS[metric.name] = metric
    return metric


def metrics() -> tuple[Metric, ...]:
    """Every metric in declaration order."""
    return tuple(_METRICS.values())


def metric_names() -> tuple[str, ...]:
    return tuple(_METRICS)


def counts() -> tuple[Count, ...]:
    return tuple(_COUNTS.values())


def get(name: str) -> Metric | None:
    return _METRICS.get(name)


def phrase(name: str) -> str:
    """A metric's name inside a sentence (any name: unknown ones are spelled out)."""
    metric = _METRICS.get(name)
    return metric.phrase if metric is not None else name.replace("_", " ")


def gold_kind(name: str) -> GoldKind | None:
    metric = _METRICS.get(name)
    return None if metric is None else metric.gold


def headline() -> tuple[Metric, ...]:
    """The headline metrics (ratios to the baseline), in headline order."""
    return tuple(sorted((m for m in _METRICS.values() if m.headline_rank is not None), key=lambda m: m.headline_rank or 0))


def thresholded() -> tuple[Metric, ...]:
    """Metrics a suite may set a threshold on, in headline order (the order of `thresholds:`)."""
    ranked = sorted(_METRICS.values(), key=lambda m: (m.headline_rank is None, m.headline_rank or 0))
    return tuple(m for m in ranked if m.threshold is not None)


def in_reports() -> tuple[Metric, ...]:
    """The rows of the report tables, in report order."""
    return tuple(sorted((m for m in _METRICS.values() if m.report_rank is not None), key=lambda m: m.report_rank or 0))


def in_bar_chart() -> tuple[Metric, ...]:
    return tuple(m for m in in_reports() if m.bar_chart)


def key_figures() -> tuple[Metric, ...]:
    return tuple(m for m in _METRICS.values() if m.key_figure)
