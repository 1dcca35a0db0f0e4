"""Suite-level scores: micro (pooled counts) and macro (mean of per-case values) of every metric.

What the metrics and counts are comes from the registry (harness/metrics); this module only pools
the values each case already holds (`CaseMetrics`, computed once by `scoring.case_metrics`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..metrics import counts as registered_counts
from ..metrics import metric_names
from ..metrics import metrics as registered_metrics
from ..metrics.registry import Pooled
from ..model import CaseMetrics, MetricAggregate, SuiteMetrics


def micro_metrics(c: Mapping[str, int]) -> dict[str, float | None]:
    """Every metric from pooled counts, with the same empty-set conventions as a single case.

    Entity counts must come from cases annotated with entities only, relationship counts from
    cases annotated with relationships only (`aggregate` does this). A plain mapping counts as
    pooled by the counts it holds (one case's `CaseMetrics.counts`); missing counts read as 0, not pooled.
    """
    pooled = c if isinstance(c, Pooled) else Pooled({**{k.name: 0 for k in registered_counts()}, **c},
                                                    {name: 1 for name in c})
    return {metric.name: metric.micro(pooled) for metric in registered_metrics()}


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def aggregate(cases: Sequence[CaseMetrics]) -> SuiteMetrics:
    """Micro and macro of every metric over the given cases' values (`case_metrics.scored_metrics`:
    cases without a score have none).

    Gold-based counts pool only the cases annotated for their kind (`annotated` counts them), so a
    case without gold adds neither hits nor misses: with none, micro and macro are None, never 1.0.
    Any count pools only the cases that have a value for it (`pooled` counts them): a count metric
    no case has is None, never 0.
    """
    pooling = [(count.name, count.gold) for count in registered_counts()]
    totals = {name: 0 for name, _ in pooling}
    pooled_cases = {name: 0 for name, _ in pooling}
    per_case: dict[str, list[float]] = {name: [] for name in metric_names()}
    for case in cases:
        for name, gold in pooling:
            count = case.counts.get(name)
            if count is not None and (gold is None or gold in case.annotated):
                totals[name] += count
                pooled_cases[name] += 1
        for name, values in per_case.items():
            value = case.values.get(name)
            if value is not None:
                values.append(value)
    micro = micro_metrics(Pooled(totals, pooled_cases))
    return SuiteMetrics(
        cases=len(cases),
        metrics={
            name: MetricAggregate(micro=micro[name], macro=_mean(values), cases=len(values))
            for name, values in per_case.items()
        },
        counts=totals,
        pooled=pooled_cases,
        annotated={
            "entities": sum(1 for case in cases if "entities" in case.annotated),
            "relationships": sum(1 for case in cases if "relationships" in case.annotated),
        },
    )
