"""The "Gleaning yield" section of report.md and report.html, and its console note: per variant and
answer position, what each answer added and how much of it is grounded or leaked from the
prompt's examples (docs/scoring.md, "Gleaning yield"). Shown only when some case gleaned."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..artifacts import GleaningRound, RunSummary
from ..scoring.gleaning import FAR_BELOW, grounding_drops, has_gleaning
from .view import ReportView

HEAD = ("variant", "answer", "cases", "new entities", "new relationships", "grounded among new",
        "example leaks among new")
NOTE = ("Answer 0 is the first answer, answer k the k-th gleaning answer. New: a normalised entity name or an "
        "unordered endpoint pair no earlier answer of the case had. Grounded and example leaks as in the "
        "reference-free figures; leaks only over cases whose prompt examples were known.")


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _answer(position: int) -> str:
    return "first answer" if position == 0 else f"gleaning {position}"


def _cells(r: GleaningRound) -> list[str]:
    leaks = "n/a" if r.example_leaks is None else f"{r.example_leaks} ({_rate(r.leak_rate)})"
    return [_answer(r.round), str(r.cases), f"{r.entities:,}", f"{r.relationships:,}",
            f"{r.grounded:,} ({_rate(r.grounding_rate)})", leaks]


def _rows(view: ReportView) -> list[tuple[str, GleaningRound]]:
    return [(column.name, r) for column in view.columns for r in column.data.gleaning]


def shown(view: ReportView) -> bool:
    return any(has_gleaning(column.data.gleaning) for column in view.columns)


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    """The section with its heading, or nothing when no case gleaned (`esc`: markdown's cell escaping)."""
    if not shown(view):
        return []
    lines = ["## Gleaning yield", "", NOTE, "", "| " + " | ".join(HEAD) + " |", "|---|---|" + "---:|" * 5]
    lines += [f"| {esc(name)} | " + " | ".join(_cells(r)) + " |" for name, r in _rows(view)]
    return lines + [""]


def html_block(view: ReportView) -> str:
    """The section with its heading, or "" when no case gleaned."""
    if not shown(view):
        return ""
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in HEAD) + "</tr>"
    rows = [f"<tr><td>{escape(name)}</td><td>{escape(cells[0])}</td>"
            + "".join(f"<td class='num'>{escape(c)}</td>" for c in cells[1:]) + "</tr>"
            for name, r in _rows(view) for cells in [_cells(r)]]
    return (f"<h2>Gleaning yield</h2><p class='muted'>{escape(NOTE)}</p>"
            "<table>" + head + "".join(rows) + "</table>")


def console_lines(summary: RunSummary) -> list[str]:
    """One line per variant whose gleaning answers are grounded far less often than its first answer."""
    lines = []
    for name, variant in summary.variants.items():
        drops = grounding_drops(variant.gleaning)
        if drops:
            first = next(r for r in variant.gleaning if r.round == 0)
            lines.append(f"{name}: gleaning adds names the chunk does not hold: "
                         + "; ".join(f"{_answer(r.round)} {_rate(r.grounding_rate)} grounded" for r in drops)
                         + f" against {_rate(first.grounding_rate)} in the first answer"
                         f" (at most {FAR_BELOW:.0%} of it)")
    return lines
