"""Typed relationship metrics (`CaseScore.typed`): precision, recall and F1 with the predicate
matched too, pooled only over cases whose gold is typed (every gold relationship has a `type`);
a suite with no such case has them n/a. Today's `relationship_*` metrics are the endpoints mode."""

from __future__ import annotations

from collections.abc import Callable

from ..model import CaseScore, TypedRelationshipScores
from .ratios import f1, precision, recall
from .registry import Count, Metric, register, register_count


def _typed(read: Callable[[TypedRelationshipScores], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    """A per-case value of the typed scores; None for a case whose gold is not typed."""
    return lambda s: None if s.typed is None else read(s.typed)


for _name, _read in (
    ("relationship_typed_tp", lambda t: t.tp),
    ("relationship_typed_gold", lambda t: t.gold),
    ("relationship_typed_pred", lambda t: t.pred),
):
    register_count(Count(_name, _typed(_read), "relationships"))  # type: ignore[arg-type]

register(Metric(
    "relationship_typed_precision", "Relationship precision (typed)", "relationship precision (typed)",
    value=_typed(lambda t: t.precision),
    micro=lambda c: precision(c["relationship_typed_tp"], c["relationship_typed_pred"], c["relationship_typed_gold"]),
    pools=("relationship_typed_tp", "relationship_typed_pred", "relationship_typed_gold"), gold="relationships",
    report_rank=8, only_where_defined=True,
))
register(Metric(
    "relationship_typed_recall", "Relationship recall (typed)", "relationship recall (typed)",
    value=_typed(lambda t: t.recall),
    micro=lambda c: recall(c["relationship_typed_tp"], c["relationship_typed_gold"]),
    pools=("relationship_typed_tp", "relationship_typed_gold"), gold="relationships",
    threshold=">=", report_rank=8, only_where_defined=True,
))
register(Metric(
    "relationship_typed_f1", "Relationship F1 (typed)", "relationship F1 (typed)",
    value=_typed(lambda t: t.f1),
    micro=lambda c: f1(c["relationship_typed_tp"], c["relationship_typed_pred"], c["relationship_typed_gold"]),
    pools=("relationship_typed_tp", "relationship_typed_pred", "relationship_typed_gold"), gold="relationships",
    threshold=">=", report_rank=8, only_where_defined=True,
))
