"""Community report metrics (`CaseScore.figures["report"]`, harness/scoring/report_score.py): the report's
schema, rating and number of findings, its citations against the context's record ids, the
context entities it names, and gold facts where the case gives them (docs/scoring.md, "Community
reports"). A case of another suite kind has None there and pools nothing, so every metric here is
n/a outside report suites and its row is left out of their report tables (`only_where_defined`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..model import CaseScore, ReportScore
from .kind_figures import checked_ids, figure, ratio, register_kind_rate, valid_ids, with_gold_facts
from .registry import Count, Metric, register, register_count

KIND = "community_report"
# The columns a report suite's console table shows (its key figures)
KEY_FIGURES: tuple[str, ...] = ("report_schema_valid", "report_citation_validity", "report_findings_cited",
                                "report_entity_coverage")


def _fig(read: Callable[[ReportScore], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    return figure("report", read)


def _rat(num: Callable[[ReportScore], int | None], den: Callable[[ReportScore], int | None]) -> Callable[[CaseScore], float | None]:
    return ratio("report", num, den)


_COUNTS: tuple[tuple[str, Callable[[ReportScore], int | None]], ...] = (
    ("reports", lambda r: 1),
    ("reports_schema_ok", lambda r: int(r.schema_ok)),
    ("reports_rated", lambda r: None if r.rating_in_range is None else 1),
    ("reports_rating_ok", lambda r: None if r.rating_in_range is None else int(r.rating_in_range)),
    ("reports_findings_ok", lambda r: int(r.findings_in_range)),
    ("report_findings", lambda r: r.findings),
    ("report_findings_cited", lambda r: r.findings_cited),
    ("report_ids_checked", checked_ids),
    ("report_ids_valid", valid_ids),
    ("report_overlong_references", lambda r: r.overlong_references),
    ("report_context_entities", lambda r: r.context_entities),
    ("report_entities_covered", lambda r: r.entities_covered),
    ("report_gold_facts", with_gold_facts(lambda r: r.gold_facts)),
    ("report_gold_facts_found", with_gold_facts(lambda r: r.gold_facts_found)),
)
for _name, _read in _COUNTS:
    register_count(Count(_name, _fig(_read), None))  # type: ignore[arg-type]


_rate = partial(register_kind_rate, KIND, KEY_FIGURES)


_rate("report_schema_valid", "Report schema valid", "report schema validity", "reports_schema_ok", "reports",
      _fig(lambda r: float(r.schema_ok)), 40, "schema ok")
_rate("report_rating_in_range", "Rating in range", "rating in range", "reports_rating_ok", "reports_rated",
      _fig(lambda r: None if r.rating_in_range is None else float(r.rating_in_range)), 41, "rating ok")
_rate("report_findings_in_range", "Findings count ok", "findings count in 5-10", "reports_findings_ok", "reports",
      _fig(lambda r: float(r.findings_in_range)), 42, "5-10 findings")
_rate("report_citation_validity", "Citation validity", "citation validity", "report_ids_valid", "report_ids_checked",
      _rat(valid_ids, checked_ids), 43, "cites ok")
_rate("report_findings_cited", "Findings cited", "findings with a citation", "report_findings_cited",
      "report_findings", _rat(lambda r: r.findings_cited, lambda r: r.findings), 44, "cited")
_rate("report_entity_coverage", "Entity coverage", "context entities covered", "report_entities_covered",
      "report_context_entities", _rat(lambda r: r.entities_covered, lambda r: r.context_entities), 45, "entities")
_rate("report_fact_recall", "Report fact recall", "report fact recall", "report_gold_facts_found", "report_gold_facts",
      _rat(with_gold_facts(lambda r: r.gold_facts_found), with_gold_facts(lambda r: r.gold_facts)), 46, "facts")

def _count(name: str, label: str, phrase: str, read: Callable[[ReportScore], int | None], rank: int,
           short: str) -> None:
    """A lower-is-better count of the report family: total over the cases that have it."""
    register_count(Count(name, _fig(read), None))  # type: ignore[arg-type]
    register(Metric(
        name, label, phrase, value=_fig(read), micro=lambda c: c.total(name), pools=(name,), gold=None,
        higher_is_better=False, threshold="<=", report_rank=rank, only_where_defined=True, kind="count",
        short_label=short, suite_kind=KIND,
    ))


register(Metric(
    "report_overlong_references", "Overlong references", "references with more than five ids",
    value=_fig(lambda r: r.overlong_references), micro=lambda c: c.total("report_overlong_references"),
    pools=("report_overlong_references",), gold=None, higher_is_better=False, threshold="<=",
    report_rank=47, only_where_defined=True, kind="count", short_label=">5 ids", suite_kind=KIND,
))
# ids no table of the context holds (n/a without tables); per dataset in ReportScore.citations_invalid_by_dataset
_count("report_invalid_citations", "Invalid citations", "cited ids the community's tables do not hold",
       lambda r: r.citations_invalid, 48, "bad ids")
# names of the prompt's own worked example the report uses and the context lacks (n/a: prompt not known)
_count("report_example_names", "Example names copied", "names copied from the prompt's example report",
       lambda r: r.example_names, 49, "example names")
