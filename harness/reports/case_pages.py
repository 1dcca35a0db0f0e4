"""The per-case table of a run too large for report.html to detail every case: `cases/index.html`
and pages of `PAGE_ROWS` cases each (`cases/page-0001.html` ...), linked from report.html's cases
section. A row is a case: report.md's cell for every column (its key figures, ❌ when it breaks a
per-case rule) and what the last column missed, its id linking to the case's details in
report.html when that shows them. Each page is a small file of its own, so every case is
reachable from the report without the browser loading all of them at once; the pages are
rendered one at a time (`case_pages` yields them).
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape

from . import html_report as html
from . import markdown as md
from .view import ReportView

FOLDER = "cases"
INDEX = "index.html"
PAGE_ROWS = 1_000


def needed(view: ReportView) -> bool:
    """Whether report.html leaves cases out (more than `html_report.CASE_LIMIT`): then the pages are written."""
    return len(view.case_ids) > html.CASE_LIMIT


def page_name(number: int) -> str:
    return f"page-{number:04d}.html"


def _document(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<title>{escape(title)}</title><style>{html.CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _page(view: ReportView, case_ids: list[str], detailed: set[str], number: int, pages: int) -> str:
    last = view.columns[-1] if view.columns else None
    head = "<tr><th>case</th>" + "".join(f"<th>{escape(c.name)}</th>" for c in view.columns)
    head += f"<th>{escape(md.missed_label(view))} {escape(last.name)}</th></tr>" if last else "</tr>"
    rows = [head]
    for case_id in case_ids:
        name = (f"<a href='../report.html#case-{escape(case_id)}'>{escape(case_id)}</a>" if case_id in detailed
                else escape(case_id))
        cells = "".join(f"<td class='num'>{escape(md.case_cell(view, c, case_id))}</td>" for c in view.columns)
        missed = f"<td>{md.missed_cell(view, last, case_id, escape)}</td>" if last else ""
        rows.append(f"<tr><td>{name}</td>{cells}{missed}</tr>")
    around = [f"<a href='{page_name(number - 1)}'>previous</a>" if number > 1 else "",
              f"<a href='{INDEX}'>all pages</a>", "<a href='../report.html'>report</a>",
              f"<a href='{page_name(number + 1)}'>next</a>" if number < pages else ""]
    links = "<p>" + " · ".join(link for link in around if link) + "</p>"
    return _document(f"{view.title}: cases, page {number} of {pages}", [
        f"<h1>{escape(view.title)}: cases, page {number} of {pages}</h1>",
        f"<p class='muted'>{escape(md.case_cell_label(view))} per case, in suite order; ❌ breaks a per-case rule. "
        "A linked case is detailed in report.html.</p>", links, "<table>" + "".join(rows) + "</table>", links])


def case_pages(view: ReportView, detailed: list[str]) -> Iterator[tuple[str, str]]:
    """(path under the run folder, HTML) of the index, then of every page, one at a time;
    `detailed`: the cases report.html details (linked)."""
    ids = view.case_ids
    pages = max(1, -(-len(ids) // PAGE_ROWS))
    items = []
    for number in range(1, pages + 1):
        chunk = ids[(number - 1) * PAGE_ROWS: number * PAGE_ROWS]
        span = f"{escape(chunk[0])} … {escape(chunk[-1])}" if chunk else "no cases"
        items.append(f"<li><a href='{page_name(number)}'>page {number}</a>: cases {span} ({len(chunk)})</li>")
    yield f"{FOLDER}/{INDEX}", _document(f"{view.title}: cases", [
        f"<h1>{escape(view.title)}: every case</h1>",
        f"<p class='muted'>{len(ids)} cases in {pages} pages of at most {PAGE_ROWS:,}; report.html details "
        f"{len(detailed)} of them. <a href='../report.html'>Back to the report</a>.</p>",
        "<ul>" + "".join(items) + "</ul>"])
    shown = set(detailed)
    for number in range(1, pages + 1):
        yield f"{FOLDER}/{page_name(number)}", _page(view, ids[(number - 1) * PAGE_ROWS: number * PAGE_ROWS], shown,
                                                     number, pages)


__all__ = ["FOLDER", "INDEX", "PAGE_ROWS", "case_pages", "needed", "page_name"]
