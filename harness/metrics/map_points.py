"""Global-search map metrics (`CaseScore.figures["map_points"]`, harness/scoring/map_score.py): the answer's
shape, its points' scores, their citations against the context's report ids, and gold facts
where the case gives them (docs/scoring.md, "Global search map points"). A case of another suite
kind has None there and pools nothing, so every metric here is n/a outside map suites and its row
is left out of their report tables (`only_where_defined`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..model import CaseScore, MapScore
from .kind_figures import checked_ids, figure, ratio, register_kind_rate, valid_ids, with_gold_facts
from .registry import Count, Metric, register, register_count

KIND = "global_search_map"
# The columns a map suite's console table shows (its key figures)
KEY_FIGURES: tuple[str, ...] = ("map_schema_valid", "map_citation_validity", "map_points_cited", "map_scores_in_range")


def _fig(read: Callable[[MapScore], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    return figure("map_points", read)


def _rat(num: Callable[[MapScore], int | None], den: Callable[[MapScore], int | None]) -> Callable[[CaseScore], float | None]:
    return ratio("map_points", num, den)


_COUNTS: tuple[tuple[str, Callable[[MapScore], int | None]], ...] = (
    ("map_answers", lambda m: 1),
    ("map_answers_schema_ok", lambda m: int(m.schema_ok)),
    ("map_points", lambda m: m.points),
    ("map_points_score_ok", lambda m: m.scores_in_range),
    ("map_points_to_cite", lambda m: m.points_to_cite),
    ("map_points_cited", lambda m: m.points_cited),
    ("map_ids_checked", checked_ids),
    ("map_ids_valid", valid_ids),
    ("map_overlong_references", lambda m: m.overlong_references),
    ("map_gold_facts", with_gold_facts(lambda m: m.gold_facts)),
    ("map_gold_facts_found", with_gold_facts(lambda m: m.gold_facts_found)),
)
for _name, _read in _COUNTS:
    register_count(Count(_name, _fig(_read), None))  # type: ignore[arg-type]


_rate = partial(register_kind_rate, KIND, KEY_FIGURES)


_rate("map_schema_valid", "Map answer schema valid", "map answer schema validity", "map_answers_schema_ok",
      "map_answers", _fig(lambda m: float(m.schema_ok)), 60, "schema ok")
_rate("map_scores_in_range", "Point scores in range", "point scores in 0-100", "map_points_score_ok", "map_points",
      _rat(lambda m: m.scores_in_range, lambda m: m.points), 61, "scores ok")
_rate("map_citation_validity", "Map citation validity", "map citation validity", "map_ids_valid", "map_ids_checked",
      _rat(valid_ids, checked_ids), 62, "cites ok")
_rate("map_points_cited", "Points cited", "points with a citation", "map_points_cited", "map_points_to_cite",
      _rat(lambda m: m.points_cited, lambda m: m.points_to_cite), 63, "cited")
_rate("map_fact_recall", "Map fact recall", "map fact recall", "map_gold_facts_found", "map_gold_facts",
      _rat(with_gold_facts(lambda m: m.gold_facts_found), with_gold_facts(lambda m: m.gold_facts)), 64, "facts")

register(Metric(
    "map_overlong_references", "Overlong map references", "map references with more than five ids",
    value=_fig(lambda m: m.overlong_references), micro=lambda c: c.total("map_overlong_references"),
    pools=("map_overlong_references",), gold=None, higher_is_better=False, threshold="<=",
    report_rank=65, only_where_defined=True, kind="count", short_label=">5 ids", suite_kind=KIND,
))
