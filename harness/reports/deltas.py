"""How a paired difference is written in every report: `Δ +3.1 pt [−1.0, +7.2] p 0.031 ▲` (the
scores table, the model matrix). Its own module so that any section may format a difference
without importing a whole report writer."""

from __future__ import annotations

from ..artifacts import MetricDelta
from ..metrics.registry import Metric, get


def pt(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f}"


def change(delta: float | None, metric: Metric | None) -> str:
    """A difference without its unit: "+3.1" (points of a rate) or "+1.50" (a count per case)."""
    if delta is None:
        return "—"
    return metric.format_change(delta) if metric is not None and metric.is_count else pt(delta)


def delta_text(delta: MetricDelta | None, metric: Metric | None = None) -> str:
    """`Δ +3.1 pt [−1.0, +7.2] p 0.031` (a count: `Δ +1.50 per case [...]`) with ▲/▼ when the
    difference is real (`compare.is_real_difference`, the gate's rule: enough cases, interval
    excludes zero and a small p-value); ▲ is a rise, which is worse for a lower-is-better metric."""
    if delta is None or delta.delta is None:
        return ""
    metric = metric or get(delta.metric)
    unit = " per case" if metric is not None and metric.is_count else " pt"
    low, high = delta.ci_low, delta.ci_high
    interval = f" [{change(low, metric)}, {change(high, metric)}]" if low is not None and high is not None else ""
    p_text = "" if delta.p_value is None else f" p {delta.p_value:.3f}"
    mark = ""
    if delta.significant:
        mark = " ▲" if delta.delta > 0 else " ▼"
    return f"Δ {change(delta.delta, metric)}{unit}{interval}{p_text}{mark}"
