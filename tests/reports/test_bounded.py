"""Reports of large runs stay bounded: report.html details the worst cases, the per-case scatter
is binned (issue 18). Runs up to the limits (every shipped suite) render as before (golden test)."""

from __future__ import annotations

from harness.artifacts import CaseCheck
from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, GoldEntity
from harness.reports.html_report import worst_cases
from harness.reports.plots import binned
from harness.reports.view import Column, ReportView
from harness.scoring import score_case

GOLD = GoldCase(id="g", text="(chunk)", entities=[GoldEntity(name=n, type="person") for n in ("A", "B", "C", "D")])


def scored(case_id: str, found: int) -> CaseResult:
    """A case whose answer finds `found` of the 4 gold entities: entity recall found / 4."""
    graph = ExtractedGraph(entities=[Entity(name=n, type="person") for n in "ABCD"[:found]])
    return CaseResult(suite="s", variant="v", case_id=case_id, graph=graph, score=score_case(GOLD, graph))


def view_of(rows: list[CaseResult], checks: dict | None = None) -> ReportView:
    column = Column(name="v", variant="v", data=None, rows=rows)  # type: ignore[arg-type]  # not read here
    return ReportView(report_of="run", suite="s", title="t", description="", notes="", facts="", columns=[column],
                      checks=checks or {}, case_ids=[r.case_id for r in rows])


def test_up_to_the_limit_every_case_is_shown_in_order():
    rows = [scored("c0", 4), scored("c1", 1), scored("c2", 3)]
    assert worst_cases(view_of(rows), limit=3) == ["c0", "c1", "c2"]


def test_above_the_limit_the_worst_are_shown_in_suite_order():
    # recalls: c0 1.0, c1 0.25, c2 0.75, c3 (error), c4 0.5, c5 1.0 (breaks a per-case rule)
    # ranked: c5 (rule), c3 (error), c1 0.25, c4 0.5, c2 0.75, then c0 / c5; three shown: c5, c3, c1
    rows = [scored("c0", 4), scored("c1", 1), scored("c2", 3),
            CaseResult(suite="s", variant="v", case_id="c3", error="timeout"), scored("c4", 2), scored("c5", 4)]
    checks = {("v", "c5"): CaseCheck(variant="v", case_id="c5", failures=["entity_recall fell"])}
    view = view_of(rows, checks)
    assert worst_cases(view, limit=3) == ["c1", "c3", "c5"]
    assert worst_cases(view, limit=4) == ["c1", "c3", "c4", "c5"]


def test_binned_counts_points_per_cell_at_the_cell_centre():
    # 4 x 4 cells of 0.25: (0, 0.01) and (0.01, 0.02) share cell (0, 0); 1.0 falls in the last cell
    xs, ys, counts = binned([0.0, 0.01, 1.0, 0.5], [0.0, 0.02, 1.0, 0.5], bins=4)
    assert (xs, ys, counts) == ([0.125, 0.625, 0.875], [0.125, 0.625, 0.875], [2, 1, 1])
