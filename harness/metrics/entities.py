"""Entity metrics: precision, recall, F1, strict (typed) F1 and type accuracy, with their counts."""

from __future__ import annotations

from .ratios import f1, ratio_or_none
from .registry import Count, Metric, register, register_count, register_prf

for _name, _value in (
    ("entity_tp", lambda s: s.entities.tp),
    ("entity_typed_tp", lambda s: s.entities.typed_tp),
    ("entity_gold", lambda s: s.entities.gold),
    ("entity_pred", lambda s: s.entities.pred),
    ("entity_exact", lambda s: s.entities.exact),
    ("entity_fuzzy", lambda s: s.entities.fuzzy),
):
    register_count(Count(_name, _value, "entities"))

register_prf(
    "entity", "Entity {}", "entity {}", scores=lambda s: s.entities,
    tp="entity_tp", pred="entity_pred", gold_count="entity_gold", gold="entities",
    precision=dict(headline_rank=3, report_rank=2, bar_chart=True),
    recall=dict(threshold=">=", headline_rank=1, report_rank=1, bar_chart=True, key_figure=True),
    f1=dict(threshold=">=", headline_rank=5, report_rank=3, bar_chart=True),
)
register(Metric(
    "entity_strict_f1", "Entity strict (typed) F1", "entity strict f1",
    value=lambda s: s.entities.strict_f1,
    micro=lambda c: f1(c["entity_typed_tp"], c["entity_pred"], c["entity_gold"]),
    pools=("entity_typed_tp", "entity_pred", "entity_gold"), gold="entities",
    report_rank=4,
))
register(Metric(
    "entity_type_accuracy", "Entity type accuracy", "entity type accuracy",
    value=lambda s: s.entities.type_accuracy,
    micro=lambda c: ratio_or_none(c["entity_typed_tp"], c["entity_tp"]),
    pools=("entity_typed_tp", "entity_tp"), gold="entities",
))
