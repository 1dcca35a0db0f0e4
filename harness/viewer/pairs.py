"""Two runs of a suite side by side: per series both share and per figure, the paired
statistics `harness compare` reports (`compare.paired_statistics`: the mean per-case difference
b - a, its paired bootstrap interval, the sign-flip p-value and the harness's one rule for a
real difference), over the cases both runs scored. No statistic is computed here."""

from __future__ import annotations

from typing import Any

from ..compare import paired_statistics
from ..metrics.registry import get

_TOL = 1e-12


def pair_statistics(values_a: dict[tuple[str, str], list[float | None]],
                    values_b: dict[tuple[str, str], list[float | None]],
                    names: list[str], *, resamples: int = 10_000) -> list[dict[str, Any]]:
    """Per variant both runs hold: the paired cases and each figure's statistics (None where no
    case has a value on both sides)."""
    variants_a = sorted({variant for variant, _ in values_a})
    variants_b = {variant for variant, _ in values_b}
    out = []
    for variant in variants_a:
        if variant not in variants_b:
            continue
        cases = sorted(case for v, case in values_a if v == variant and (v, case) in values_b)
        figures = []
        for index, name in enumerate(names):
            pairs = [(values_a[(variant, case)][index], values_b[(variant, case)][index]) for case in cases]
            kept = [(a, b) for a, b in pairs if a is not None and b is not None]
            figures.append(_figure(name, kept, resamples))
        out.append({"variant": variant, "cases": len(cases), "figures": figures})
    return out


def _figure(name: str, kept: list[tuple[float, float]], resamples: int) -> dict[str, Any] | None:
    if not kept:
        return None
    stats = paired_statistics([a for a, _ in kept], [b for _, b in kept], resamples=resamples)
    metric = get(name)
    sign = 1.0 if metric is None or metric.higher_is_better else -1.0
    diffs = [(b - a) * sign for a, b in kept]
    return {"n": stats.n, "delta": stats.delta, "low": stats.ci_low, "high": stats.ci_high,
            "p": stats.p_value, "significant": stats.significant,
            "improved": sum(1 for d in diffs if d > _TOL), "regressed": sum(1 for d in diffs if d < -_TOL)}
