"""Relationship metrics in the endpoints mode (an edge is its two endpoints, whatever its predicate):
precision, recall, F1, directed recall and endpoint recall, with their counts. The typed mode, where
the predicate must match too, is `typed_relationships.py`; labels say which mode a figure is in."""

from __future__ import annotations

from ..model import CaseScore
from .ratios import ratio_or_none, recall
from .registry import Count, Metric, register, register_count, register_prf


def _endpoint_tp(score: CaseScore) -> int:
    """Gold edges with both endpoints found: the case stores the rate, so the count is rebuilt from it."""
    r = score.relationships
    return 0 if r.endpoint_recall is None else round(r.endpoint_recall * r.endpoint_gold)


for _name, _value in (
    ("relationship_tp", lambda s: s.relationships.tp),
    ("relationship_directed_tp", lambda s: s.relationships.directed_tp),
    ("relationship_endpoint_tp", _endpoint_tp),
    ("relationship_endpoint_gold", lambda s: s.relationships.endpoint_gold),
    ("relationship_gold", lambda s: s.relationships.gold),
    ("relationship_pred", lambda s: s.relationships.pred),
):
    register_count(Count(_name, _value, "relationships"))

register_prf(
    "relationship", "Relationship {} (endpoints)", "relationship {} (endpoints)", scores=lambda s: s.relationships,
    tp="relationship_tp", pred="relationship_pred", gold_count="relationship_gold", gold="relationships",
    precision=dict(headline_rank=4, report_rank=6, bar_chart=True),
    recall=dict(threshold=">=", headline_rank=2, report_rank=5, bar_chart=True, key_figure=True,
                short_label="rel. recall (endpoints)"),
    f1=dict(threshold=">=", headline_rank=6, report_rank=7, bar_chart=True),
)
register(Metric(
    "relationship_directed_recall", "Relationship directed recall (endpoints)", "relationship directed recall (endpoints)",
    value=lambda s: s.relationships.directed_recall,
    micro=lambda c: recall(c["relationship_directed_tp"], c["relationship_gold"]),
    pools=("relationship_directed_tp", "relationship_gold"), gold="relationships",
))
register(Metric(
    "relationship_endpoint_recall", "Relationship endpoint recall", "relationship endpoint recall",
    value=lambda s: s.relationships.endpoint_recall,
    micro=lambda c: ratio_or_none(c["relationship_endpoint_tp"], c["relationship_endpoint_gold"]),
    pools=("relationship_endpoint_tp", "relationship_endpoint_gold"), gold="relationships",
))
