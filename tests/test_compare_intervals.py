"""The per-metric intervals the report's plots show (compare.macro_intervals), computed once per column."""

from __future__ import annotations

import numpy as np

from .test_compare import random_runs
from harness.compare import bootstrap_means, macro_intervals, percentile_intervals
from harness.metrics import get as get_metric
from harness.metrics import metric_names


def _one_interval(rows, metric: str, seed: int = 42, resamples: int = 2000):
    """One metric's interval, resampled alone (as the report computed it before metrics were resampled together)."""
    value = get_metric(metric).value
    values = [v for v in (value(r.score) for r in rows if r.score is not None) if v is not None]
    if not values:
        return None
    arr = np.asarray(values, dtype=np.float64)
    low, high = percentile_intervals(bootstrap_means(arr, resamples=resamples, seed=seed), 0.95)
    return float(arr.mean()), float(low[0]), float(high[0])


def test_intervals_of_metrics_resampled_together_are_each_the_one_alone() -> None:
    rows_a, rows_b = random_runs(60, seed=3)
    rows_b[5] = rows_b[5].model_copy(update={"score": None})  # a failed case: fewer values for every metric
    names = list(metric_names())  # defined on all cases, on some, and on none (None)
    for rows in (rows_a, rows_b):
        together = macro_intervals(rows, names)
        assert list(together) == names
        assert any(v is None for v in together.values()) and any(v is not None for v in together.values())
        for name in names:
            assert together[name] == _one_interval(rows, name)
            assert macro_intervals(rows, [name])[name] == _one_interval(rows, name)
