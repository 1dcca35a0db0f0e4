"""The sections of report.md and report.html: one ordered list, each section rendering itself to both.

The two writers (`writers.render_markdown`, `writers.render_html`) write a report's head (title,
description, notes, facts, the gate banner) and then every section of `report_sections()` that
applies to the view, in this order. A section is a `ReportSection`: its name, when it applies,
and its markdown lines and HTML fragments, both read from the `ReportView` (the HTML side also
gets the run's plots). Code outside the harness adds one with `register_section(section,
after=NAME)`; the built-in ones are registered below, in the order both reports show them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .. import plugins
from . import (case_pages, cost_section, engine_section, fragmentation_section, gleaning_section, judges_section,
               matrix_section, outputs_section)
from . import html_report as html
from . import markdown as md
from .repeats import has_repeats
from .view import ReportView

Plots = Mapping[str, bytes]


def _always(view: ReportView) -> bool:
    return True


@dataclass(frozen=True)
class ReportSection:
    """One section of both reports: `markdown(view)` gives its lines of report.md (blank lines
    included), `html(view, plots)` its fragments of report.html (joined by newlines)."""

    name: str
    markdown: Callable[[ReportView], list[str]]
    html: Callable[[ReportView, Plots], list[str]]
    applies: Callable[[ReportView], bool] = field(default=_always)
    # where a plugin's section goes (the section it follows; None: last); built-ins are listed in order
    after: str | None = None


_SECTIONS: list[ReportSection] = []


def register_section(section: ReportSection, *, after: str | None = None) -> None:
    """Add `section` to both reports: after the section named `after`, else last.

    A name already registered, or an `after` that names no section, is a ValueError naming the
    registered sections."""
    names = [s.name for s in _SECTIONS]
    if section.name in names:
        raise ValueError(f"report section {section.name!r} is already registered ({', '.join(names)})")
    if after is None:
        _SECTIONS.append(section)
        return
    if after not in names:
        raise ValueError(f"report section {section.name!r}: no section {after!r} to follow (have {', '.join(names)})")
    _SECTIONS.insert(names.index(after) + 1, section)


def register_plugin_section(section: object) -> None:
    """A `kg_prompt_harness.report_sections` entry point's section, placed after its `after`."""
    if not isinstance(section, ReportSection):
        raise TypeError(f"a report section is a harness.reports.sections.ReportSection, not {type(section).__name__}")
    register_section(section, after=section.after)


def report_sections() -> tuple[ReportSection, ...]:
    """Every registered section, in report order (installed plugins' sections included)."""
    plugins.load("report_sections", register_plugin_section)
    return tuple(_SECTIONS)


def _builds_graph(view: ReportView) -> bool:
    return view.builds_graph


def _is_run(view: ReportView) -> bool:
    return view.report_of == "run"


def _reference_word(view: ReportView) -> str:
    return "the reference run" if view.report_of == "comparison" else "the baseline variant"


# --------------------------------------------------------------------------- the built-in sections


def _outputs_html(view: ReportView, plots: Plots) -> list[str]:
    block = outputs_section.html_block(view)  # only for a run of `harness evaluate`
    return [block] if block else []


def _scores_markdown(view: ReportView) -> list[str]:
    note = engine_section.scores_note(view)
    return ["## Scores", "", md.scores_legend(_reference_word(view)), "", *([note, ""] if note else []),
            *md.scores_table(view), ""]


def _scores_html(view: ReportView, plots: Plots) -> list[str]:
    legend = html.e(md.scores_legend(_reference_word(view)))
    for bold in ("micro", "total"):
        legend = legend.replace(f"**{bold}**", f"<b>{bold}</b>")
    note = engine_section.scores_note(view)
    return ["<h2>Scores</h2>", f"<p class='muted'>{legend}</p>",
            *([f"<p class='muted'>{html.e(note)}</p>"] if note else []), html.scores_table(view),
            html.figure(plots, "metrics"), html.figure(plots, "recall_scatter"), html.figure(plots, "grounding")]


def _size_html(view: ReportView, plots: Plots) -> list[str]:
    parts = ["<h2>Graph size</h2>", html.size_table(view)]
    settings = view.graph_settings()
    if settings:
        parts.append(f"<p class='muted'>Communities: {html.e(settings.algorithm)} ({html.e(settings.library)} "
                     f"{html.e(settings.library_version)}, seed {settings.seed}, resolution {settings.resolution}).</p>")
    return [*parts, html.figure(plots, "graph_size")]


def _cases_html(view: ReportView, plots: Plots) -> list[str]:
    parts = [f"<h2>Cases ({len(view.case_ids)})</h2>"]
    shown = html.worst_cases(view)
    if case_pages.needed(view):
        parts.append(f"<p class='muted'>{len(shown)} of {len(view.case_ids)} cases shown: those that break a "
                     "per-case rule, could not be scored, or have the lowest "
                     f"{html.e(html.first_figure_label(view))}, in suite order. Every case: "
                     f"<a href='{case_pages.FOLDER}/{case_pages.INDEX}'>the per-case table</a> (pages of "
                     f"{case_pages.PAGE_ROWS:,} cases), and results.jsonl.</p>")
    return parts + [html.case_html(view, case_id, i == 0) for i, case_id in enumerate(shown)]


for _section in (
    ReportSection("outputs", lambda view: outputs_section.markdown_lines(view, md.esc), _outputs_html),
    ReportSection("scores", _scores_markdown, _scores_html),
    ReportSection("model_matrix", lambda view: matrix_section.markdown_lines(view, md.esc),
                  lambda view, plots: [matrix_section.html_block(view)], lambda view: view.matrix is not None),
    ReportSection("repeat_spread", lambda view: ["## Repeat spread", "", *md.repeats_section(view), ""],
                  lambda view, plots: ["<h2>Repeat spread</h2>", html.repeats_html(view)], has_repeats),
    ReportSection("judged_figures", lambda view: judges_section.markdown_lines(view, md.esc),
                  lambda view, plots: [judges_section.html_block(view)], lambda view: view.judges is not None),
    ReportSection("cost_latency", lambda view: cost_section.cost_markdown(view, md.esc),
                  lambda view, plots: [cost_section.cost_html(view)], cost_section.has_cost),
    ReportSection("frontier", lambda view: cost_section.frontier_markdown(view, md.esc),
                  lambda view, plots: [cost_section.frontier_html(view, html.figure(plots, "frontier"))],
                  cost_section.has_frontier),
    ReportSection("graph_size", lambda view: ["## Graph size", "", *md.size_table(view), ""], _size_html,
                  _builds_graph),
    ReportSection("engine", lambda view: engine_section.markdown_lines(view, md.esc),
                  lambda view, plots: [engine_section.html_block(view)], _builds_graph),
    ReportSection("fragmentation", lambda view: fragmentation_section.markdown_lines(view, md.esc),
                  lambda view, plots: [fragmentation_section.html_block(view)], _builds_graph),
    ReportSection("gleaning", lambda view: gleaning_section.markdown_lines(view, md.esc),
                  lambda view, plots: [gleaning_section.html_block(view)], _builds_graph),
    ReportSection("gate", lambda view: ["## Gate", "", *md.gate_section(view.verdict), ""],
                  lambda view, plots: ["<h2>Gate</h2>", html.gate_html(view)], _is_run),
    ReportSection("worst_regressions", lambda view: ["## Worst regressions", "", *md.regressions_section(view)],
                  lambda view, plots: ["<h2>Worst regressions</h2>", html.regressions_html(view)], _builds_graph),
    ReportSection("format_issues", lambda view: ["## Format issues", "", *md.format_table(view), ""],
                  lambda view, plots: ["<h2>Format issues</h2>", html.format_html(view),
                                       html.figure(plots, "format_issues")]),
    ReportSection("cases", lambda view: ["## Cases", "", *md.cases_section(view), ""], _cases_html),
):
    register_section(_section)
