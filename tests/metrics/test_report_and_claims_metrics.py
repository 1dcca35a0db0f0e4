"""The report and claims metric families: pooled over the cases that have them, n/a elsewhere."""

from __future__ import annotations

import pytest

from harness.metrics import get
from harness.model import CaseScore, ClaimsScore, ExtractedGraph, GoldCase, ReportScore
from harness.scoring import score_case
from tests.support.pooling import pooled


def plain() -> CaseScore:
    """An extraction case's score (no report, no claims figures)."""
    return score_case(GoldCase(id="x", text="t"), ExtractedGraph())


def with_report(**fields: object) -> CaseScore:
    base: dict[str, object] = {"schema_ok": True}
    base.update(fields)
    return plain().with_figures("report", ReportScore.model_validate(base))


def with_claims(**fields: object) -> CaseScore:
    return plain().with_figures("claims", ClaimsScore.model_validate(fields))


def test_report_metrics_pool() -> None:
    a = with_report(rating=7, rating_in_range=True, findings=5, findings_in_range=True, findings_cited=4,
                    citations=10, citations_invalid=1, overlong_references=1, context_entities=10,
                    entities_covered=7, gold_facts=3, gold_facts_found=2)
    b = with_report(schema_ok=False, rating=11, rating_in_range=False, findings=4, findings_cited=4,
                    citations=6, citations_invalid=0, context_entities=5, entities_covered=5)
    # c: no rating, no tables to check ids against, no gold facts
    c = with_report(findings=6, findings_in_range=True, findings_cited=3, citations=4, citations_invalid=None)
    m = pooled([a, b, c, plain()]).metrics
    # schema: 2 of 3 report cases (the extraction case pools nothing); macro mean(1, 0, 1)
    assert m["report_schema_valid"].micro == pytest.approx(2 / 3) and m["report_schema_valid"].cases == 3
    # rating: a in range, b not, c has none -> 1 of 2
    assert m["report_rating_in_range"].micro == 0.5 and m["report_rating_in_range"].cases == 2
    assert m["report_findings_in_range"].micro == pytest.approx(2 / 3)
    # ids: a 9 of 10 valid, b 6 of 6, c unchecked -> 15 / 16; macro mean(0.9, 1.0) = 0.95
    assert m["report_citation_validity"].micro == pytest.approx(15 / 16)
    assert m["report_citation_validity"].macro == pytest.approx(0.95)
    # findings cited: (4 + 4 + 3) / (5 + 4 + 6) = 11 / 15
    assert m["report_findings_cited"].micro == pytest.approx(11 / 15)
    # coverage: (7 + 5 + 0) / (10 + 5 + 0) = 12 / 15; c has no entities table: 0 / 0 is n/a for it
    assert m["report_entity_coverage"].micro == pytest.approx(0.8) and m["report_entity_coverage"].cases == 2
    # facts: only a has gold facts -> 2 / 3 over one case
    assert m["report_fact_recall"].micro == pytest.approx(2 / 3) and m["report_fact_recall"].cases == 1
    assert m["report_overlong_references"].micro == 1  # a count: the total


def test_report_metrics_are_na_without_reports() -> None:
    m = pooled([plain(), plain()]).metrics
    for name in ("report_schema_valid", "report_citation_validity", "report_fact_recall", "report_overlong_references"):
        assert m[name].micro is None and m[name].macro is None and m[name].cases == 0
        assert get(name).only_where_defined  # type: ignore[union-attr]


def test_fact_recall_needs_gold_facts() -> None:
    m = pooled([with_report(findings=5, findings_in_range=True)]).metrics
    assert m["report_fact_recall"].micro is None  # nothing to stand on: n/a, never 0 or 1


def test_claims_metrics_pool() -> None:
    a = with_claims(claims=4, well_formed=3, bad_status=1, bad_dates=2, subjects_in_specs=3, gold_claims=3,
                    gold_claims_found=2)
    b = with_claims(claims=2, well_formed=2, bad_status=0, bad_dates=0, subjects_in_specs=None)
    m = pooled([a, b, plain()]).metrics
    assert m["claims_well_formed"].micro == pytest.approx(5 / 6)  # (3 + 2) / (4 + 2)
    assert m["claim_status_valid"].micro == pytest.approx(5 / 6)  # (3 + 2) / 6
    assert m["claim_dates_valid"].micro == pytest.approx(4 / 6)  # (2 + 2) / 6
    # specs checked only in a (b's specs are types): 3 / 4 over one case
    assert m["claim_subjects_in_specs"].micro == 0.75 and m["claim_subjects_in_specs"].cases == 1
    assert m["claim_recall"].micro == pytest.approx(2 / 3) and m["claim_recall"].cases == 1
    assert m["claims_extracted"].micro == 6 and m["claims_extracted"].macro == 3


def test_claims_metrics_na() -> None:
    m = pooled([plain()]).metrics
    assert all(m[n].micro is None for n in ("claims_well_formed", "claim_recall", "claims_extracted"))
    # a case with no claims extracted: rates over 0 records are n/a, the count is 0
    empty = pooled([with_claims(claims=0, gold_claims=2)]).metrics
    assert empty["claims_well_formed"].micro is None and empty["claims_extracted"].micro == 0
    assert empty["claim_recall"].micro == 0.0  # gold to find, none found
