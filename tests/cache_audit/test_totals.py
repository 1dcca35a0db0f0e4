"""Totals per kind and model, and the bounded list of worst entries."""

from __future__ import annotations

from harness.cache_audit.entry import EntryAudit
from harness.cache_audit.totals import NO_MODEL, render, total, worst


def _row(n: int, *, kind: str = "extraction", model: str | None = "m", lost: int = 0, problems: int = 0,
         content: int = 0) -> EntryAudit:
    row = EntryAudit(id=f"e{n:02d}", engine="graphrag-3.x", layout="t", kind=kind, model=model, kind_source="test",
                     problems=[f"p{i}" for i in range(problems)], content=[f"c{i}" for i in range(content)],
                     parsed_ok=problems == 0)
    if kind == "extraction":
        row.engine_entities, row.engine_relationships, row.engine_weight_fallbacks = 2, 1, 0
        row.recovered_entities, row.recovered_relationships = 2 + lost, 1
        if lost:
            row.findings.append(f"engine-lost: {lost}")
    return row


def test_totals_group_by_kind_and_model_in_a_stable_order() -> None:
    rows = [_row(1, model=None, lost=2), _row(2, kind="summary"), _row(3, kind="loop", model="a", problems=1)]
    totals = total(rows)
    assert list(totals.by_kind) == ["extraction", "loop", "summary"]  # the order of CALL_KINDS
    assert list(totals.by_model) == ["a", "m", NO_MODEL]  # named models first, then the unnamed
    # engine figures count extraction rows only: 2/1 kept, 4/1 recovered, 2 lost
    assert totals.all.to_json() == {"entries": 3, "parsed_ok": 2, "content_findings": 0, "engine_findings": 1,
                                    "engine_kept": {"entities": 2, "relationships": 1},
                                    "recovered": {"entities": 4, "relationships": 1},
                                    "lost_silently": 2, "seam_lost": None, "weight_fallbacks": 0}


def test_worst_is_bounded_and_ranked_by_loss_then_problems() -> None:
    rows = [_row(n, lost=n % 3, problems=n % 2) for n in range(1, 15)]
    picked = worst(rows, limit=4)
    # lost 2: e02, e05, e08, e11, e14; among them not ok (1 problem) first: e05, e11, then e02, e08
    assert [r.id for r in picked] == ["e05", "e11", "e02", "e08"]
    lines = render(rows, total(rows), None, "cache")
    heading = next(line for line in lines if line.startswith("worst entries"))
    # flagged: rows with a loss (n % 3 != 0: 10 rows) or a problem (odd n): 1..14 minus {6, 12} = 12; 10 shown
    assert heading == "worst entries (10, 2 more with --json):"


def test_parsed_and_content_findings_are_two_counts() -> None:
    """Issue 27, item 9: a report with a content finding counts as parsed and as a content
    finding, in two columns; one that could not be read counts in neither 'parsed' nor as fine."""
    rows = [_row(1, kind="report", content=1), _row(2, kind="report"), _row(3, kind="report", problems=1)]
    report = total(rows).by_kind["report"]
    assert (report.entries, report.parsed_ok, report.content_findings) == (3, 2, 1)
    lines = render(rows, total(rows), None, "cache")
    header = next(line for line in lines if line.startswith("kind"))
    assert "  parsed  content findings  " in header
    assert next(line for line in lines if line.startswith("report")).split()[:4] == ["report", "3", "2", "1"]


def test_seams_not_modelled_are_n_a_not_zero() -> None:
    """Issue 28, item 20: on a GraphRAG 3.x cache (no request stored, seams not modelled) the
    table said "lost at seams 0" where every entry's JSON said null."""
    unmodelled = [_row(1), _row(2)]
    lines = render(unmodelled, total(unmodelled), None, "cache")
    extraction = next(line for line in lines if line.startswith("extraction"))
    assert "n/a" in extraction.split() and total(unmodelled).all.to_json()["seam_lost"] is None
    counted = [_row(1), _row(2)]
    counted[0].seam_lost, counted[1].seam_lost = 0, 3
    assert total(counted).all.to_json()["seam_lost"] == 3
    assert "n/a" not in next(line for line in render(counted, total(counted), None, "cache")
                             if line.startswith("extraction")).split()
