"""The spread of every metric across the samples of a repeated run (`harness run --repeat N`).

A sample is one pass over the cases with the same requests; its value of a metric is the micro
(pooled) aggregate of that sample's rows, as the summary computes it for a whole run. Across the
N samples: min, median, max and the sample standard deviation (ddof=1). A sample whose aggregate
is undefined (n/a) is left out of the figures and kept as None in `values`; with no defined value
every figure is None, and the standard deviation needs two.

Whether a variant difference exceeds that spread (`spread_verdicts`) is decided by one rule,
stated in docs/reports.md: the ranges [min, max] of the two variants' per-sample values do not
overlap, with at least two samples on each side and a value in every sample.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ..artifacts import MetricSpread, RepeatSpread, SpreadVerdict, SpreadVerdicts
from ..metrics import metrics as registered_metrics
from ..model import CaseResult
from .aggregate import aggregate
from .case_metrics import scored_metrics

SPREAD_RULE = ("exceeds when the ranges [min, max] of the per-sample micro values of the two variants do not "
               "overlap (at least 2 samples each, every sample with a value)")
_DIGITS = 6


def samples_of(rows: Sequence[CaseResult]) -> list[int]:
    """The sample numbers present, in order."""
    return sorted({row.sample for row in rows})


def _round(value: float) -> float:
    return round(value, _DIGITS)


def metric_spread(values: Sequence[float | None]) -> MetricSpread:
    """min, median, max and sample standard deviation of the defined values."""
    known = [v for v in values if v is not None]
    return MetricSpread(
        values=list(values),
        min=min(known) if known else None,
        median=_round(statistics.median(known)) if known else None,
        max=max(known) if known else None,
        std=_round(statistics.stdev(known)) if len(known) >= 2 else None,
    )


def repeat_spread(rows: Sequence[CaseResult]) -> RepeatSpread | None:
    """Per registered metric, each sample's micro value and their spread; None with one sample."""
    samples = samples_of(rows)
    if len(samples) < 2:
        return None
    per_sample = [aggregate(scored_metrics(r for r in rows if r.sample == k)) for k in samples]
    return RepeatSpread(
        samples=len(samples),
        metrics={m.name: metric_spread([agg.get(m.name) for agg in per_sample]) for m in registered_metrics()},
    )


def exceeds_spread(a: MetricSpread, b: MetricSpread) -> bool | None:
    """The rule (module docstring): the two ranges do not overlap. None when it cannot be judged."""
    complete = all(len(s.values) >= 2 and all(v is not None for v in s.values) for s in (a, b))
    if not complete or None in (a.min, a.max, b.min, b.max):
        return None
    return bool(a.max < b.min or b.max < a.min)  # type: ignore[operator]


def spread_verdicts(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> SpreadVerdicts | None:
    """Each metric's verdict when both sides are repeated runs; None otherwise."""
    spread_a, spread_b = repeat_spread(a), repeat_spread(b)
    if spread_a is None or spread_b is None:
        return None
    return SpreadVerdicts(
        rule=SPREAD_RULE,
        metrics={
            name: SpreadVerdict(a=spread_a.metrics[name], b=spread_b.metrics[name],
                                exceeds=exceeds_spread(spread_a.metrics[name], spread_b.metrics[name]))
            for name in spread_a.metrics
        },
    )
