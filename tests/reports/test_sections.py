"""The one ordered list of report sections: both reports follow it, and a section registered from
outside appears in both where it asked to be."""

from __future__ import annotations

import pytest

from harness.reports import sections
from harness.reports.sections import ReportSection, register_section, report_sections
from harness.reports.view import run_view
from harness.reports.writers import render_html, render_markdown

from .test_fragmentation_and_gleaning_sections import ROWS, _summary

BUILT_IN = ["outputs", "scores", "model_matrix", "repeat_spread", "judged_figures", "cost_latency", "frontier", "graph_size", "engine", "fragmentation", "gleaning", "gate",
            "worst_regressions", "format_issues", "cases"]


@pytest.fixture
def registry(monkeypatch):
    """A copy of the section list, so that a section registered here leaves the shipped list alone."""
    monkeypatch.setattr(sections, "_SECTIONS", list(sections._SECTIONS))


def test_the_built_in_sections_are_listed_once_in_report_order():
    assert [s.name for s in report_sections()] == BUILT_IN


def test_both_reports_show_the_headings_in_the_list_order():
    view = run_view(_summary(ROWS), ROWS)
    md, html = render_markdown(view), render_html(view, {})
    md_order = [md.index(h) for h in ("## Scores", "## Graph size", "## Gate", "## Format issues", "## Cases")]
    html_order = [html.index(h) for h in ("<h2>Scores</h2>", "<h2>Graph size</h2>", "<h2>Gate</h2>",
                                          "<h2>Format issues</h2>", "<h2>Cases")]
    assert md_order == sorted(md_order) and html_order == sorted(html_order)


def test_a_registered_section_renders_in_both_reports_after_the_one_it_names(registry):
    register_section(ReportSection(
        "team_notes",
        markdown=lambda view: ["## Team notes", "", f"{len(view.columns)} column(s)", ""],
        html=lambda view, plots: ["<h2>Team notes</h2>", f"<p>{len(view.columns)} column(s)</p>"],
    ), after="scores")
    assert [s.name for s in report_sections()][:3] == ["outputs", "scores", "team_notes"]
    view = run_view(_summary(ROWS), ROWS)
    md, html = render_markdown(view), render_html(view, {})
    assert md.index("## Scores") < md.index("## Team notes\n\n2 column(s)") < md.index("## Graph size")
    assert html.index("<h2>Scores</h2>") < html.index("<h2>Team notes</h2>\n<p>2 column(s)</p>") < html.index("<h2>Graph size</h2>")


def test_a_section_that_does_not_apply_is_left_out_of_both(registry):
    register_section(ReportSection("never", markdown=lambda view: ["## Never"], html=lambda view, plots: ["<h2>Never</h2>"],
                                   applies=lambda view: False))
    view = run_view(_summary(ROWS), ROWS)
    assert "Never" not in render_markdown(view) and "Never" not in render_html(view, {})


def test_a_duplicate_name_or_an_unknown_place_is_refused(registry):
    section = ReportSection("scores", markdown=lambda view: [], html=lambda view, plots: [])
    with pytest.raises(ValueError, match="'scores' is already registered"):
        register_section(section)
    with pytest.raises(ValueError, match="no section 'nowhere' to follow"):
        register_section(ReportSection("extra", markdown=lambda view: [], html=lambda view, plots: []), after="nowhere")
