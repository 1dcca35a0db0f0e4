"""Description-summary metrics (`CaseScore.figures["summary"]`, docs/scoring.md "Description summaries"):
reference-free figures of a summarize_descriptions suite, read against each case's own
description list, plus the recall of gold facts where a case gives `facts`. A case of another
kind has no summary score and pools nothing, so these are n/a there and `only_where_defined`
keeps them out of its report tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from ..model import CaseScore, SummaryScore
from .ratios import ratio_or_none
from .registry import Count, Metric, register, register_count

KIND = "summarize_descriptions"


def _summary(read: Callable[[SummaryScore], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    """A per-case value of the summary figures; None for a case that is no summary."""
    def value(score: CaseScore) -> int | float | None:
        found = score.figures_of("summary", SummaryScore)
        return None if found is None else read(found)

    return value


def _flag(value: bool | None) -> float | None:
    return None if value is None else float(value)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


for _name, _read in (
    ("summaries", lambda m: 1),
    ("summaries_within_length", lambda m: None if m.within_length is None else int(m.within_length)),
    ("summaries_naming_entity", lambda m: int(m.names_entity)),
    ("summaries_third_person", lambda m: int(m.third_person)),
    ("description_facts", lambda m: m.description_facts),
    ("description_facts_kept", lambda m: m.facts_kept),
    ("summary_facts", lambda m: m.summary_facts),
    ("summary_facts_added", lambda m: m.facts_added),
    ("summary_words", lambda m: m.words),
):
    register_count(Count(_name, _summary(_read), None))  # type: ignore[arg-type]
# gold facts pool only the cases that give `facts:`
for _name, _read in (("gold_facts", lambda m: m.gold_facts or None),
                     ("gold_facts_found", lambda m: m.gold_facts_found if m.gold_facts else None)):
    register_count(Count(_name, _summary(_read), None))  # type: ignore[arg-type]



class _Common(TypedDict):
    """The fields every summary metric shares (spread into each `Metric`)."""

    gold: None
    only_where_defined: bool
    suite_kind: str


_COMMON: _Common = {"gold": None, "only_where_defined": True, "suite_kind": KIND}

register(Metric(
    "facts_kept", "Description facts kept", "description facts kept",
    value=_summary(lambda m: _share(m.facts_kept, m.description_facts)),
    micro=lambda c: ratio_or_none(c["description_facts_kept"], c["description_facts"]),
    pools=("description_facts_kept", "description_facts"),
    threshold=">=", report_rank=20, key_figure=True, bar_chart=True, short_label="facts kept", **_COMMON,
))
register(Metric(
    "facts_added", "Summary facts added", "summary facts in no description",
    value=_summary(lambda m: _share(m.facts_added, m.summary_facts)),
    micro=lambda c: ratio_or_none(c["summary_facts_added"], c["summary_facts"]),
    pools=("summary_facts_added", "summary_facts"), higher_is_better=False,
    threshold="<=", report_rank=21, key_figure=True, bar_chart=True, short_label="facts added", **_COMMON,
))
register(Metric(
    "within_length", "Within max_length", "summaries within max_length",
    value=_summary(lambda m: _flag(m.within_length)),
    micro=lambda c: ratio_or_none(c["summaries_within_length"], c["summaries"]),
    pools=("summaries_within_length", "summaries"),
    threshold=">=", report_rank=22, key_figure=True, short_label="within length", **_COMMON,
))
register(Metric(
    "names_entity", "Names the entity", "summaries naming their entity",
    value=_summary(lambda m: _flag(m.names_entity)),
    micro=lambda c: ratio_or_none(c["summaries_naming_entity"], c["summaries"]),
    pools=("summaries_naming_entity", "summaries"),
    threshold=">=", report_rank=23, key_figure=True, short_label="names entity", **_COMMON,
))
register(Metric(
    "third_person", "Third person", "summaries in the third person",
    value=_summary(lambda m: _flag(m.third_person)),
    micro=lambda c: ratio_or_none(c["summaries_third_person"], c["summaries"]),
    pools=("summaries_third_person", "summaries"),
    threshold=">=", report_rank=24, key_figure=True, short_label="3rd person", **_COMMON,
))
register(Metric(
    "summary_words", "Summary words", "words per summary",
    value=_summary(lambda m: m.words),
    micro=lambda c: c.total("summary_words"),
    pools=("summary_words",), kind="count", higher_is_better=False, report_rank=25, **_COMMON,
))
register(Metric(
    "gold_facts_recall", "Gold facts found", "gold facts found",
    value=_summary(lambda m: _share(m.gold_facts_found, m.gold_facts)),
    micro=lambda c: ratio_or_none(c["gold_facts_found"], c["gold_facts"]),
    pools=("gold_facts_found", "gold_facts"),
    threshold=">=", report_rank=26, **_COMMON,
))
