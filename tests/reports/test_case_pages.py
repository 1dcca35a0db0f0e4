"""The per-case pages of a run larger than report.html details (issue 31): every case on exactly
one page of at most PAGE_ROWS, in suite order, the detailed ones linked to report.html."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from harness.reports import case_pages, html_report
from harness.reports.sections import report_sections
from harness.reports.view import Column, ReportView

from .test_bounded import scored


def view_of(count: int) -> ReportView:
    rows = [scored(f"c<{i}>", i % 5) for i in range(count)]
    data = SimpleNamespace(has_gold=True)  # the view reads only whether the variant has gold
    column = Column(name="v", variant="v", data=data, rows=rows)  # type: ignore[arg-type]
    return ReportView(report_of="run", suite="s", title="t", description="", notes="", facts="", columns=[column],
                      case_ids=[r.case_id for r in rows])


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_report, "CASE_LIMIT", 4)
    monkeypatch.setattr(case_pages, "PAGE_ROWS", 3)


def rows_of(page: str) -> list[str]:
    """The case ids of a page's table rows (header left out), as shown."""
    return re.findall(r"<tr><td>(?:<a [^>]*>)?([^<]*)", page)


def test_pages_are_written_only_when_report_html_leaves_cases_out(small_limits: None) -> None:
    assert not case_pages.needed(view_of(4)) and case_pages.needed(view_of(5))


def test_every_case_is_on_one_page_in_order_and_the_detailed_ones_link_to_the_report(small_limits: None) -> None:
    view = view_of(8)
    detailed = html_report.worst_cases(view)
    assert len(detailed) == 4
    pages = dict(case_pages.case_pages(view, detailed))
    assert list(pages) == ["cases/index.html", "cases/page-0001.html", "cases/page-0002.html", "cases/page-0003.html"]
    shown = [rows_of(pages[name]) for name in list(pages)[1:]]
    assert [len(rows) for rows in shown] == [3, 3, 2]  # at most PAGE_ROWS rows a page
    assert [case for rows in shown for case in rows] == [f"c&lt;{i}&gt;" for i in range(8)]  # ids escaped
    linked = re.findall(r"href='\.\./report\.html#case-([^']*)'", "".join(pages.values()))
    assert linked == [f"c&lt;{i}&gt;" for i in range(8) if f"c<{i}>" in detailed]
    assert "page-0002.html'>next" in pages["cases/page-0001.html"] and "previous" not in pages["cases/page-0001.html"]
    assert pages["cases/index.html"].count("<li>") == 3


def test_report_html_links_the_pages_when_it_leaves_cases_out(small_limits: None) -> None:
    cases = next(s for s in report_sections() if s.name == "cases")
    assert "cases/index.html" in "".join(cases.html(view_of(5), {}))
    assert "cases/index.html" not in "".join(cases.html(view_of(4), {}))
