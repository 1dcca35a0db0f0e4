"""Community report metrics (`CaseScore.report`, harness/scoring/report_score.py): the report's
schema, rating and number of findings, its citations against the context's record ids, the
context entities it names, and gold facts where the case gives them (docs/scoring.md, "Community
reports"). A case of another suite kind has None there and pools nothing, so every metric here is
n/a outside report suites and its row is left out of their report tables (`only_where_defined`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import CaseScore, ReportScore
from .ratios import ratio_or_none
from .registry import Count, Metric, register, register_count


def _rep(read: Callable[[ReportScore], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    """A per-case value of the report figures; None for a case that is not a report."""
    return lambda s: None if s.report is None else read(s.report)


def _ratio(num: Callable[[ReportScore], int | None], den: Callable[[ReportScore], int | None]) -> Callable[[CaseScore], float | None]:
    def value(s: CaseScore) -> float | None:
        if s.report is None:
            return None
        n, d = num(s.report), den(s.report)
        return None if n is None or d is None else ratio_or_none(n, d)

    return value


def _valid_ids(r: ReportScore) -> int | None:
    return None if r.citations_invalid is None else r.citations - r.citations_invalid


def _checked_ids(r: ReportScore) -> int | None:
    return None if r.citations_invalid is None else r.citations


def _gold(read: Callable[[ReportScore], int]) -> Callable[[ReportScore], int | None]:
    """A gold-fact count; None for a case without gold facts (it pools nothing)."""
    return lambda r: read(r) if r.gold_facts else None


_COUNTS: tuple[tuple[str, Callable[[ReportScore], int | None]], ...] = (
    ("reports", lambda r: 1),
    ("reports_schema_ok", lambda r: int(r.schema_ok)),
    ("reports_rated", lambda r: None if r.rating_in_range is None else 1),
    ("reports_rating_ok", lambda r: None if r.rating_in_range is None else int(r.rating_in_range)),
    ("reports_findings_ok", lambda r: int(r.findings_in_range)),
    ("report_findings", lambda r: r.findings),
    ("report_findings_cited", lambda r: r.findings_cited),
    ("report_ids_checked", _checked_ids),
    ("report_ids_valid", _valid_ids),
    ("report_overlong_references", lambda r: r.overlong_references),
    ("report_context_entities", lambda r: r.context_entities),
    ("report_entities_covered", lambda r: r.entities_covered),
    ("report_gold_facts", _gold(lambda r: r.gold_facts)),
    ("report_gold_facts_found", _gold(lambda r: r.gold_facts_found)),
)
for _name, _read in _COUNTS:
    register_count(Count(_name, _rep(_read), None))  # type: ignore[arg-type]


def _rate(name: str, label: str, phrase: str, num: str, den: str,
          value: Callable[[CaseScore], float | None], rank: int, short: str) -> None:
    register(Metric(
        name, label, phrase, value=value,
        micro=lambda c: ratio_or_none(c[num], c[den]), pools=(num, den), gold=None,
        threshold=">=", report_rank=rank, only_where_defined=True, short_label=short,
    ))


_rate("report_schema_valid", "Report schema valid", "report schema validity", "reports_schema_ok", "reports",
      _rep(lambda r: float(r.schema_ok)), 20, "schema ok")
_rate("report_rating_in_range", "Rating in range", "rating in range", "reports_rating_ok", "reports_rated",
      _rep(lambda r: None if r.rating_in_range is None else float(r.rating_in_range)), 21, "rating ok")
_rate("report_findings_in_range", "Findings count ok", "findings count in 5-10", "reports_findings_ok", "reports",
      _rep(lambda r: float(r.findings_in_range)), 22, "5-10 findings")
_rate("report_citation_validity", "Citation validity", "citation validity", "report_ids_valid", "report_ids_checked",
      _ratio(_valid_ids, _checked_ids), 23, "cites ok")
_rate("report_findings_cited", "Findings cited", "findings with a citation", "report_findings_cited",
      "report_findings", _ratio(lambda r: r.findings_cited, lambda r: r.findings), 24, "cited")
_rate("report_entity_coverage", "Entity coverage", "context entities covered", "report_entities_covered",
      "report_context_entities", _ratio(lambda r: r.entities_covered, lambda r: r.context_entities), 25, "entities")
_rate("report_fact_recall", "Report fact recall", "report fact recall", "report_gold_facts_found", "report_gold_facts",
      _ratio(_gold(lambda r: r.gold_facts_found), _gold(lambda r: r.gold_facts)), 26, "facts")

register(Metric(
    "report_overlong_references", "Overlong references", "references with more than five ids",
    value=_rep(lambda r: r.overlong_references), micro=lambda c: c.total("report_overlong_references"),
    pools=("report_overlong_references",), gold=None, higher_is_better=False, threshold="<=",
    report_rank=27, only_where_defined=True, kind="count", short_label=">5 ids",
))

# The columns a report suite's console table shows (the lead's kind-aware console picks them;
# `key_figure` would add them to every suite's table)
KEY_FIGURES: tuple[str, ...] = ("report_schema_valid", "report_citation_validity", "report_findings_cited",
                                "report_entity_coverage")
