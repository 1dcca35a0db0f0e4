"""The "Entity fragmentation" section of report.md and report.html, and its console line: how many
GraphRAG nodes each variant's names make, which of them the harness would join, and with gold,
how many names one gold entity became and the B-cubed figures (docs/scoring.md, "Entity
fragmentation")."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..artifacts import BCubed, Fragmentation, GoldFragmentation, NameCluster, RunSummary
from .view import ReportView

SHOWN = 10  # clusters listed per variant in the reports (summary.json keeps up to FRAGMENT_LIMIT)
NOTE = ("Nodes: distinct GraphRAG titles (the name upper-cased and cleaned; GraphRAG merges entities by exact "
        "title) of the entity records of all cases. Joined: names the scoring's normalisation, its fuzzy rule, "
        "honorifics and person-name containment put together. Surplus: (nodes − clusters) / nodes. B-cubed over "
        "the (title, gold entity) pairs the alignment made, each title its own cluster as GraphRAG keeps it, then "
        "clustered as joined.")


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _bcubed(b: BCubed) -> str:
    return f"P {_rate(b.precision)} · R {_rate(b.recall)} · F1 {_rate(b.f1)}"


def _table(view: ReportView) -> list[tuple[str, list[str]]]:
    """(label, one cell per column) of the summary table."""
    data = [column.data.fragmentation for column in view.columns]

    def cells(get: Callable[[Fragmentation], str]) -> list[str]:
        return ["—" if f is None else get(f) for f in data]

    def gold_cells(get: Callable[[GoldFragmentation], str]) -> list[str]:
        return ["—" if f is None or f.gold is None else get(f.gold) for f in data]

    rows = [
        ("GraphRAG nodes (entity titles)", cells(lambda f: f"{f.nodes:,}")),
        ("clusters after joining", cells(lambda f: f"{f.clusters:,}")),
        ("clusters of two or more titles", cells(lambda f: f"{f.joined_clusters:,}")),
        ("surplus nodes", cells(lambda f: _rate(f.fragmentation_rate))),
    ]
    if any(f is not None and f.gold is not None for f in data):
        rows += [
            ("gold entities found / in gold", gold_cells(lambda g: f"{g.found:,} / {g.gold_entities:,}")),
            ("found under two or more titles", gold_cells(lambda g: f"{g.fragmented:,}")),
            ("titles per found gold entity", gold_cells(lambda g: _number(g.mean_names))),
            ("B-cubed, as GraphRAG merges", gold_cells(lambda g: _bcubed(g.graphrag))),
            ("B-cubed, after joining", gold_cells(lambda g: _bcubed(g.joined))),
        ]
    return rows


def _cluster(c: NameCluster) -> str:
    head = f"{c.gold}: " if c.gold is not None else ""
    return f"{head}{' / '.join(c.names)} ({c.cases} case{'s' if c.cases != 1 else ''})"


def _lists(view: ReportView) -> list[tuple[str, str, list[str]]]:
    """(column, what, items) of the listed clusters and gold fragments, largest first."""
    out = []
    for column in view.columns:
        f = column.data.fragmentation
        if f is None:
            continue
        if f.top:
            more = f" (first {SHOWN} of {f.joined_clusters})" if f.joined_clusters > SHOWN else ""
            out.append((column.name, f"names the harness would join{more}", [_cluster(c) for c in f.top[:SHOWN]]))
        if f.gold is not None and f.gold.worst:
            more = f" (first {SHOWN} of {f.gold.fragmented})" if f.gold.fragmented > SHOWN else ""
            out.append((column.name, f"gold entities found under several titles{more}",
                        [_cluster(c) for c in f.gold.worst[:SHOWN]]))
    return out


def shown(view: ReportView) -> bool:
    return any(column.data.fragmentation is not None for column in view.columns)


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    """The section with its heading (`esc`: markdown's cell escaping); nothing without figures."""
    if not shown(view):
        return []
    lines = ["## Entity fragmentation", "", NOTE, "",
             "| | " + " | ".join(esc(c.name) for c in view.columns) + " |", "|---|" + "---:|" * len(view.columns)]
    lines += [f"| {label} | " + " | ".join(esc(cell) for cell in cells) + " |" for label, cells in _table(view)]
    for name, what, items in _lists(view):
        lines += ["", f"**{esc(name)}**, {what}:", ""] + [f"- {esc(item)}" for item in items]
    return lines + [""]


def html_block(view: ReportView) -> str:
    """The section with its heading; "" without figures."""
    if not shown(view):
        return ""
    head = "<tr><th></th>" + "".join(f"<th>{escape(c.name)}</th>" for c in view.columns) + "</tr>"
    rows = [f"<tr><td>{escape(label)}</td>" + "".join(f"<td class='num'>{escape(c)}</td>" for c in cells) + "</tr>"
            for label, cells in _table(view)]
    parts = [f"<h2>Entity fragmentation</h2><p class='muted'>{escape(NOTE)}</p><table>{head}{''.join(rows)}</table>"]
    for name, what, items in _lists(view):
        parts.append(f"<h3>{escape(name)}: {escape(what)}</h3><ul class='items'>"
                     + "".join(f"<li>{escape(item)}</li>" for item in items) + "</ul>")
    return "".join(parts)


def console_lines(summary: RunSummary) -> list[str]:
    """One line per variant whose names form clusters the harness would join."""
    lines = []
    for name, variant in summary.variants.items():
        f = variant.fragmentation
        if f is None or not f.top:
            continue
        line = (f"{name}: entity fragmentation: {f.nodes:,} GraphRAG nodes would be {f.clusters:,} after joining "
                f"({f.joined_clusters} cluster{'s' if f.joined_clusters != 1 else ''}, e.g. {_example(f.top[0].names)})")
        if f.gold is not None and f.gold.fragmented:
            line += f"; {f.gold.fragmented} of {f.gold.found} found gold entities under several titles"
        lines.append(line)
    return lines


CONSOLE_NAMES = 4  # names of the example cluster shown on the console line
CONSOLE_NAME_CHARS = 60  # characters of each (a model's "name" may be a 32,000-token paragraph)


def _example(names: list[str]) -> str:
    """A cluster's names for one console line: the first few, each cut short, and how many more."""
    shown = [n if len(n) <= CONSOLE_NAME_CHARS else n[:CONSOLE_NAME_CHARS - 3] + "..." for n in names[:CONSOLE_NAMES]]
    more = f" and {len(names) - CONSOLE_NAMES:,} more" if len(names) > CONSOLE_NAMES else ""
    return " / ".join(shown) + more
