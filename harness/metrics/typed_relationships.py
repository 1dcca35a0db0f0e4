"""Typed relationship metrics (`CaseScore.typed`): precision, recall and F1 with the predicate
matched too, pooled only over cases whose gold is typed (every gold relationship has a `type`);
a suite with no such case has them n/a. Today's `relationship_*` metrics are the endpoints mode."""

from __future__ import annotations

from collections.abc import Callable

from ..model import CaseScore, TypedRelationshipScores
from .registry import Count, register_count, register_prf


def _typed(read: Callable[[TypedRelationshipScores], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    """A per-case value of the typed scores; None for a case whose gold is not typed."""
    return lambda s: None if s.typed is None else read(s.typed)


for _name, _read in (
    ("relationship_typed_tp", lambda t: t.tp),
    ("relationship_typed_gold", lambda t: t.gold),
    ("relationship_typed_pred", lambda t: t.pred),
):
    register_count(Count(_name, _typed(_read), "relationships"))  # type: ignore[arg-type]

register_prf(
    "relationship_typed", "Relationship {} (typed)", "relationship {} (typed)", scores=lambda s: s.typed,
    tp="relationship_typed_tp", pred="relationship_typed_pred", gold_count="relationship_typed_gold",
    gold="relationships",
    precision=dict(report_rank=8, only_where_defined=True),
    recall=dict(threshold=">=", report_rank=8, only_where_defined=True),
    f1=dict(threshold=">=", report_rank=8, only_where_defined=True),
)
