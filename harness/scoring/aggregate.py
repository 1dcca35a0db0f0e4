"""Suite-level scores: micro (pooled counts) and macro (mean of per-case values) of every metric."""

from __future__ import annotations

import math

from ..model import CaseScore, MetricAggregate, SuiteMetrics
from .ratios import f1, precision, ratio_or_none, recall

# Every metric a case has, in report order. Names are stable: gates and reports use them.
METRICS: tuple[str, ...] = (
    "entity_precision",
    "entity_recall",
    "entity_f1",
    "entity_strict_f1",
    "entity_type_accuracy",
    "relationship_precision",
    "relationship_recall",
    "relationship_f1",
    "relationship_directed_recall",
    "relationship_endpoint_recall",
    "grounding_rate",
)

COUNTS: tuple[str, ...] = (
    "entity_tp",
    "entity_typed_tp",
    "entity_gold",
    "entity_pred",
    "entity_exact",
    "entity_fuzzy",
    "relationship_tp",
    "relationship_directed_tp",
    "relationship_endpoint_tp",
    "relationship_endpoint_gold",
    "relationship_gold",
    "relationship_pred",
    "grounded",
    "ungrounded",
    "unverified",
)


def case_metrics(score: CaseScore) -> dict[str, float | None]:
    """The per-case value of every metric in `METRICS`."""
    e, r, g = score.entities, score.relationships, score.grounding
    return {
        "entity_precision": e.precision,
        "entity_recall": e.recall,
        "entity_f1": e.f1,
        "entity_strict_f1": e.strict_f1,
        "entity_type_accuracy": e.type_accuracy,
        "relationship_precision": r.precision,
        "relationship_recall": r.recall,
        "relationship_f1": r.f1,
        "relationship_directed_recall": r.directed_recall,
        "relationship_endpoint_recall": r.endpoint_recall,
        "grounding_rate": g.rate,
    }


def case_counts(score: CaseScore) -> dict[str, int]:
    e, r, g = score.entities, score.relationships, score.grounding
    endpoint_tp = 0 if r.endpoint_recall is None else round(r.endpoint_recall * r.endpoint_gold)
    return {
        "entity_tp": e.tp,
        "entity_typed_tp": e.typed_tp,
        "entity_gold": e.gold,
        "entity_pred": e.pred,
        "entity_exact": e.exact,
        "entity_fuzzy": e.fuzzy,
        "relationship_tp": r.tp,
        "relationship_directed_tp": r.directed_tp,
        "relationship_endpoint_tp": endpoint_tp,
        "relationship_endpoint_gold": r.endpoint_gold,
        "relationship_gold": r.gold,
        "relationship_pred": r.pred,
        "grounded": g.grounded,
        "ungrounded": g.ungrounded,
        "unverified": len(g.unverified),
    }


def micro_metrics(c: dict[str, int]) -> dict[str, float | None]:
    """Every metric from pooled counts, with the same empty-set conventions as a single case.

    Entity counts must come from cases annotated with entities only, relationship counts from
    cases annotated with relationships only (`aggregate` does this).
    """
    grounded_total = c["grounded"] + c["ungrounded"]
    return {
        "entity_precision": precision(c["entity_tp"], c["entity_pred"], c["entity_gold"]),
        "entity_recall": recall(c["entity_tp"], c["entity_gold"]),
        "entity_f1": f1(c["entity_tp"], c["entity_pred"], c["entity_gold"]),
        "entity_strict_f1": f1(c["entity_typed_tp"], c["entity_pred"], c["entity_gold"]),
        "entity_type_accuracy": ratio_or_none(c["entity_typed_tp"], c["entity_tp"]),
        "relationship_precision": precision(c["relationship_tp"], c["relationship_pred"], c["relationship_gold"]),
        "relationship_recall": recall(c["relationship_tp"], c["relationship_gold"]),
        "relationship_f1": f1(c["relationship_tp"], c["relationship_pred"], c["relationship_gold"]),
        "relationship_directed_recall": recall(c["relationship_directed_tp"], c["relationship_gold"]),
        "relationship_endpoint_recall": ratio_or_none(
            c["relationship_endpoint_tp"], c["relationship_endpoint_gold"]
        ),
        "grounding_rate": ratio_or_none(c["grounded"], grounded_total),
    }


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _pooled(name: str, score: CaseScore) -> bool:
    """Whether a case's count `name` enters the pooled (micro) counts: gold-based counts only
    from cases annotated for their kind, so a case without gold adds neither hits nor misses."""
    if name.startswith("entity_"):
        return score.entities.annotated
    if name.startswith("relationship_"):
        return score.relationships.annotated
    return True


def aggregate(scores: list[CaseScore]) -> SuiteMetrics:
    """Micro and macro of every metric over the given cases (leave out cases that have no score).

    Gold-based metrics pool only the cases annotated for their kind (`annotated` counts them):
    with none, micro and macro are None, never 1.0.
    """
    counts = dict.fromkeys(COUNTS, 0)
    per_case: dict[str, list[float]] = {name: [] for name in METRICS}
    for score in scores:
        for name, value in case_counts(score).items():
            if _pooled(name, score):
                counts[name] += value
        for name, metric in case_metrics(score).items():
            if metric is not None:
                per_case[name].append(metric)
    micro = micro_metrics(counts)
    return SuiteMetrics(
        cases=len(scores),
        metrics={
            name: MetricAggregate(micro=micro[name], macro=_mean(per_case[name]), cases=len(per_case[name]))
            for name in METRICS
        },
        counts=counts,
        annotated={
            "entities": sum(1 for score in scores if score.entities.annotated),
            "relationships": sum(1 for score in scores if score.relationships.annotated),
        },
    )
