"""Relationship metrics in the endpoints mode (an edge is its two endpoints, whatever its predicate):
precision, recall, F1, directed recall and endpoint recall, with their counts. The typed mode, where
the predicate must match too, is `typed_relationships.py`; labels say which mode a figure is in."""

from __future__ import annotations

from ..model import CaseScore
from .ratios import f1, precision, ratio_or_none, recall
from .registry import Count, Metric, register, register_count


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

register(Metric(
    "relationship_precision", "Relationship precision (endpoints)", "relationship precision (endpoints)",
    value=lambda s: s.relationships.precision,
    micro=lambda c: precision(c["relationship_tp"], c["relationship_pred"], c["relationship_gold"]),
    pools=("relationship_tp", "relationship_pred", "relationship_gold"), gold="relationships",
    headline_rank=4, report_rank=6, bar_chart=True,
))
register(Metric(
    "relationship_recall", "Relationship recall (endpoints)", "relationship recall (endpoints)",
    value=lambda s: s.relationships.recall,
    micro=lambda c: recall(c["relationship_tp"], c["relationship_gold"]),
    pools=("relationship_tp", "relationship_gold"), gold="relationships",
    threshold=">=", headline_rank=2, report_rank=5, bar_chart=True, key_figure=True, short_label="rel. recall (endpoints)",
))
register(Metric(
    "relationship_f1", "Relationship F1 (endpoints)", "relationship F1 (endpoints)",
    value=lambda s: s.relationships.f1,
    micro=lambda c: f1(c["relationship_tp"], c["relationship_pred"], c["relationship_gold"]),
    pools=("relationship_tp", "relationship_pred", "relationship_gold"), gold="relationships",
    threshold=">=", headline_rank=6, report_rank=7, bar_chart=True,
))
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
