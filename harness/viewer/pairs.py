"""Two runs of a suite side by side: per variant both hold and per figure, the paired statistics
`harness compare` reports, over the cases both runs scored: the mean per-case difference b - a,
its paired bootstrap interval, the sign-flip p-value and the harness's one rule for a real
difference. No statistic is computed here: figures defined on the same cases are resampled
together through `compare`'s own functions, as `compare.compare` groups them (the draws depend
on the number of cases only, so each figure gets the numbers `harness compare` prints)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compare import bootstrap_means, percentile_intervals, sign_flip_pvalues
from ..metrics.registry import get
from ..significance import is_real_difference

_TOL = 1e-12
CONFIDENCE = 0.95
SEED = 42  # harness compare's default


def pair_statistics(values_a: dict[tuple[str, str], list[float | None]],
                    values_b: dict[tuple[str, str], list[float | None]],
                    names: list[str], *, resamples: int = 10_000) -> list[dict[str, Any]]:
    """Per variant both runs hold: the paired cases and each figure's statistics (None where no
    case has a value on both sides)."""
    variants_b = {variant for variant, _ in values_b}
    out = []
    for variant in sorted({variant for variant, _ in values_a}):
        if variant not in variants_b:
            continue
        cases = sorted(case for v, case in values_a if v == variant and (v, case) in values_b)
        a = [values_a[(variant, case)] for case in cases]
        b = [values_b[(variant, case)] for case in cases]
        groups: dict[tuple[bool, ...], list[int]] = {}
        for index in range(len(names)):
            mask = tuple(x[index] is not None and y[index] is not None for x, y in zip(a, b))
            if any(mask):
                groups.setdefault(mask, []).append(index)
        figures: list[dict[str, Any] | None] = [None] * len(names)
        for mask, indexes in groups.items():
            rows = [i for i, kept in enumerate(mask) if kept]
            diffs = np.array([[b[i][j] - a[i][j] for j in indexes] for i in rows], dtype=np.float64)  # type: ignore[operator]
            lows, highs = percentile_intervals(bootstrap_means(diffs, resamples=resamples, seed=SEED), CONFIDENCE)
            pvalues = sign_flip_pvalues(diffs, resamples=resamples, seed=SEED)
            for column, index in enumerate(indexes):
                figures[index] = _figure(names[index], diffs[:, column], float(lows[column]), float(highs[column]),
                                         float(pvalues[column]))
        out.append({"variant": variant, "cases": len(cases), "figures": figures})
    return out


def _figure(name: str, diff: np.ndarray, low: float, high: float, p_value: float) -> dict[str, Any]:
    metric = get(name)
    sign = 1.0 if metric is None or metric.higher_is_better else -1.0
    n = int(diff.size)
    return {"n": n, "delta": float(diff.mean()), "low": low, "high": high, "p": p_value,
            "significant": is_real_difference(n, low, high, p_value, CONFIDENCE),
            "improved": int(np.count_nonzero(diff * sign > _TOL)), "regressed": int(np.count_nonzero(diff * sign < -_TOL))}
