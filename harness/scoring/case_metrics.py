"""A case's metric values, computed once: the one caller of the registry's per-case functions.

`measure` runs every registered metric and count (harness/metrics) on a case's score. The runner
calls it where the case is scored (`run.evaluation.evaluate_case`) and stores the values with the row
(`CaseResult.metrics`, `RecoveredResult.metrics`, written to results.jsonl), so every reader after
it (summary, comparisons, the gate and baselines, reports, junit.xml, the pytest plugin) reads
them instead of running the registry again. `measured` is how they read them: a row written
before the values were stored, or against another set of metrics (`CaseMetrics.registry`), is
measured when first read and keeps its values.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..metrics import counts as registered_counts
from ..metrics import metrics as registered_metrics
from ..metrics.registry import fingerprint
from ..model import CaseMetrics, CaseResult, CaseScore, GoldKindName, RecoveredResult


def measure(score: CaseScore) -> CaseMetrics:
    """Every registered metric's and count's value on one score (undefined ones left out)."""
    values = {metric.name: value for metric in registered_metrics() if (value := metric.value(score)) is not None}
    counts = {count.name: value for count in registered_counts() if (value := count.value(score)) is not None}
    annotated: list[GoldKindName] = []
    if score.entities.annotated:
        annotated.append("entities")
    if score.relationships.annotated:
        annotated.append("relationships")
    return CaseMetrics(registry=fingerprint(), values=values, counts=counts, annotated=annotated)


def measured(result: CaseResult | RecoveredResult) -> CaseMetrics | None:
    """A result's metric values (None without a score): the stored ones, or, for a row stored
    without them or against another set of metrics, measured now and kept on the row."""
    if result.score is None:
        return None
    if result.metrics is None or result.metrics.registry != fingerprint():
        result.metrics = measure(result.score)
    return result.metrics


def scored_metrics(results: Iterable[CaseResult | RecoveredResult]) -> list[CaseMetrics]:
    """The metric values of every result that has a score, in order (what `aggregate` pools)."""
    return [values for result in results if (values := measured(result)) is not None]


__all__ = ["measure", "measured", "scored_metrics"]
