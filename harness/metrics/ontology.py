"""Ontology metrics (`CaseScore.ontology`): predicted relationships against the suite's `ontology:`,
reference-free. A case of a suite without an ontology has None there and pools nothing, so the
suite's figures are n/a; domain/range conformance pools only cases that checked a record
(docs/scoring.md, "Ontology conformance")."""

from __future__ import annotations

from collections.abc import Callable

from ..model import CaseScore, OntologyScores
from .ratios import ratio_or_none
from .registry import Count, Metric, register, register_count


def _onto(read: Callable[[OntologyScores], int | float | None]) -> Callable[[CaseScore], int | float | None]:
    """A per-case value of the ontology figures; None for a case scored without an ontology."""
    return lambda s: None if s.ontology is None else read(s.ontology)


for _name, _read in (
    ("ontology_records", lambda o: o.records),
    ("ontology_conforming", lambda o: o.conforming),
    ("domain_range_checked", lambda o: o.checked),
    ("domain_range_ok", lambda o: o.domain_range_ok),
):
    register_count(Count(_name, _onto(_read), None))  # type: ignore[arg-type]

register(Metric(
    "ontology_conformance", "Ontology conformance", "ontology conformance",
    value=_onto(lambda o: o.conformance),
    micro=lambda c: ratio_or_none(c["ontology_conforming"], c["ontology_records"]),
    pools=("ontology_conforming", "ontology_records"), gold=None,
    threshold=">=", report_rank=9, only_where_defined=True, short_label="onto. ok",
))
register(Metric(
    "domain_range_conformance", "Domain/range conformance", "domain/range conformance",
    value=_onto(lambda o: o.domain_range),
    micro=lambda c: ratio_or_none(c["domain_range_ok"], c["domain_range_checked"]),
    pools=("domain_range_ok", "domain_range_checked"), gold=None,
    threshold=">=", report_rank=9, only_where_defined=True,
))
