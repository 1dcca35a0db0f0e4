"""Grounding: the share of predicted entity names found in the chunk (reference-free: no gold needed)."""

from __future__ import annotations

from .ratios import ratio_or_none
from .registry import Count, Metric, register, register_count

register_count(Count("grounded", lambda s: s.grounding.grounded, None))
register_count(Count("ungrounded", lambda s: s.grounding.ungrounded, None))
register_count(Count("unverified", lambda s: len(s.grounding.unverified), None))

register(Metric(
    "grounding_rate", "Grounding rate", "grounding rate",
    value=lambda s: s.grounding.rate,
    micro=lambda c: ratio_or_none(c["grounded"], c["grounded"] + c["ungrounded"]),
    pools=("grounded", "ungrounded"), gold=None,
    threshold=">=", headline_rank=7, report_rank=8, console="always", short_label="grounded",
    aliases=("grounded_rate",),
))
