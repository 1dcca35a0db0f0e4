"""Suite-level scores: micro (pooled counts) and macro (mean of per-case values) of every metric.

What the metrics and counts are comes from the registry (harness/metrics); this module only pools.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from ..metrics import counts as registered_counts
from ..metrics import metric_names
from ..metrics import metrics as registered_metrics
from ..metrics.registry import Pooled
from ..model import CaseScore, MetricAggregate, SuiteMetrics


_Table = dict[int, tuple[CaseScore, tuple]]  # id(score) -> (the score, its values)


class _Shared:
    """Each score's metric values, and the counts it pools, while `shared_case_metrics` is active."""

    def __init__(self) -> None:
        self.metrics: _Table = {}
        self.pooled: _Table = {}


_shared: ContextVar[_Shared | None] = ContextVar("shared_case_metrics", default=None)


@contextmanager
def shared_case_metrics() -> Iterator[None]:
    """Within the block, `case_metrics` and `aggregate` compute each score's values once.

    The end of a run asks for the same case's metrics several times (summary, comparison, gate,
    junit); the scores must not change inside the block. Values are kept as tuples (a dict per
    case would cost several times the memory) and dropped when the block ends."""
    if _shared.get() is not None:  # inside another block: its values serve
        yield
        return
    token = _shared.set(_Shared())
    try:
        yield
    finally:
        _shared.reset(token)


def _remembered(table: _Table | None, score: CaseScore, compute: Callable[[CaseScore], tuple]) -> tuple:
    if table is None:
        return compute(score)
    known = table.get(id(score))
    if known is None or known[0] is not score:  # the table holds the score, so its id is not reused meanwhile
        known = table[id(score)] = (score, compute(score))
    return known[1]


def _metric_values(score: CaseScore) -> tuple[float | None, ...]:
    """Every registered metric's value, in `metric_names()` order."""
    shared = _shared.get()
    return _remembered(None if shared is None else shared.metrics, score,
                       lambda s: tuple(metric.value(s) for metric in registered_metrics()))


def _pooled_values(score: CaseScore) -> tuple[int | None, ...]:
    """Every registered count's value where the case pools it (see `aggregate`), else None; in
    `registered_counts()` order."""
    shared = _shared.get()
    return _remembered(None if shared is None else shared.pooled, score, _pools)


def _pools(score: CaseScore) -> tuple[int | None, ...]:
    pools = {kind: _annotated(score, kind) for kind in ("entities", "relationships")}
    return tuple(count.value(score) if pools.get(count.gold, True) else None for count in registered_counts())


def case_metrics(score: CaseScore) -> dict[str, float | None]:
    """The per-case value of every registered metric."""
    return dict(zip(metric_names(), _metric_values(score)))


def case_counts(score: CaseScore) -> dict[str, int]:
    """The counts this case has a value for (a count it cannot give, None, is left out)."""
    values = {count.name: count.value(score) for count in registered_counts()}
    return {name: value for name, value in values.items() if value is not None}


def micro_metrics(c: Mapping[str, int]) -> dict[str, float | None]:
    """Every metric from pooled counts, with the same empty-set conventions as a single case.

    Entity counts must come from cases annotated with entities only, relationship counts from
    cases annotated with relationships only (`aggregate` does this). A plain mapping counts as
    pooled by the counts it holds (one case's `case_counts`); missing counts read as 0, not pooled.
    """
    pooled = c if isinstance(c, Pooled) else Pooled({**{k.name: 0 for k in registered_counts()}, **c},
                                                    {name: 1 for name in c})
    return {metric.name: metric.micro(pooled) for metric in registered_metrics()}


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _annotated(score: CaseScore, kind: str | None) -> bool:
    """Whether a case pools counts of a gold kind: gold-based counts only from cases annotated for
    their kind, so a case without gold adds neither hits nor misses."""
    if kind == "entities":
        return score.entities.annotated
    if kind == "relationships":
        return score.relationships.annotated
    return True


def aggregate(scores: list[CaseScore]) -> SuiteMetrics:
    """Micro and macro of every metric over the given cases (leave out cases that have no score).

    Gold-based metrics pool only the cases annotated for their kind (`annotated` counts them):
    with none, micro and macro are None, never 1.0. Any count pools only the cases that have a
    value for it (`pooled` counts them): a count metric no case has is None, never 0.
    """
    count_names = [count.name for count in registered_counts()]
    totals = {name: 0 for name in count_names}
    pooled_cases = {name: 0 for name in count_names}
    per_case: dict[str, list[float]] = {name: [] for name in metric_names()}
    metric_lists = list(per_case.values())
    for score in scores:
        for name, value in zip(count_names, _pooled_values(score)):
            if value is not None:
                totals[name] += value
                pooled_cases[name] += 1
        for values, value in zip(metric_lists, _metric_values(score)):
            if value is not None:
                values.append(value)
    micro = micro_metrics(Pooled(totals, pooled_cases))
    return SuiteMetrics(
        cases=len(scores),
        metrics={
            name: MetricAggregate(micro=micro[name], macro=_mean(values), cases=len(values))
            for name, values in per_case.items()
        },
        counts=totals,
        pooled=pooled_cases,
        annotated={
            "entities": sum(1 for score in scores if score.entities.annotated),
            "relationships": sum(1 for score in scores if score.relationships.annotated),
        },
    )
