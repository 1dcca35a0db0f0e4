"""harness/reports/matrix_section.py: the model matrix in report.md, report.html and on the console,
formatted from summary.json's `matrix` block only."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from harness.finish import summarize
from harness.reports import matrix_section
from harness.reports.console import print_run_table
from harness.reports.view import run_view
from harness.reports.writers import render_html, render_markdown
from harness.run.schedule import RunOptions, run_suite
from harness.suites import load_suite

from .helpers import REPO


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory):
    suite = load_suite(REPO / "suites" / "model-matrix.yaml")
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path_factory.mktemp("reports")))
    summary = summarize(suite, "t", outcome.results, record_mode="none", wall_s=0.0, entity_types=outcome.entity_types)
    return summary, outcome.results


def test_report_md_shows_each_figures_grid_with_the_best_cell_starred(replayed) -> None:
    summary, rows = replayed
    md = render_markdown(run_view(summary, rows))
    section = md[md.index("## Model matrix"):md.index("\n## ", md.index("## Model matrix") + 1)]
    recall = section[section.index("**Entity recall**"):section.index("**Relationship recall")]
    assert "| prompt | gpt-4o-mini | gpt-4o | qwen2.5-7b-local |" in recall
    tuned = next(line for line in recall.splitlines() if line.startswith("| tuned |"))
    cells = [c.strip() for c in tuned.strip("|").split("|")]
    cell = summary.matrix.cells["tuned@gpt-4o"].figures["entity_recall"]
    assert cells[2] == f"{cell.value:.1%} [{cell.ci_low:.1%}–{cell.ci_high:.1%}] ★"
    assert "★" not in cells[1] + cells[3]
    # every comparison, with compare's Δ text; the real ones marked
    assert section.count("\n- row — ") == 3 and section.count("\n- column — ") == 4
    assert re.search(r"- column — default@qwen2\.5-7b-local vs default@gpt-4o-mini over 12 paired case\(s\): "
                     r"Entity recall Δ -\d+\.\d pt \[.*\] p 0\.000 ▼", section)


def test_report_html_has_the_matrix_and_a_run_without_one_has_none(replayed) -> None:
    summary, rows = replayed
    html = render_html(run_view(summary, rows), {})
    assert "<h2>Model matrix</h2>" in html and "<h3>Grounding rate</h3>" in html
    assert html.count(" ★</td>") == sum(len(cells) for cells in summary.matrix.best.values())
    plain = summary.model_copy(update={"matrix": None})
    assert "Model matrix" not in render_markdown(run_view(plain, rows))
    assert "Model matrix" not in render_html(run_view(plain, rows), {})


def test_the_console_prints_the_matrix_and_the_real_differences(replayed, tmp_path) -> None:
    summary, _ = replayed
    console = Console(width=200, record=True)
    print_run_table(summary, tmp_path, console=console)
    text = console.export_text()
    assert "model-matrix — model matrix" in text
    row = next(line for line in text.splitlines() if "Relationship recall" in line and "default" in line)
    assert row.count("%") == 9  # three cells: a value and its interval each
    lines = matrix_section.console_lines(summary.matrix)
    assert lines[-1].startswith("matrix: 6 of 7 row/column comparison(s) show a real difference")
    assert len(lines) == 7 and not any(line.startswith("row — tuned@gpt-4o vs") for line in lines)
    # only the real differences: the row of gpt-4o-mini has entity recall's, not relationship recall's
    mini = next(line for line in lines if line.startswith("row — tuned@gpt-4o-mini vs"))
    assert "Entity recall" in mini and "Relationship recall" not in mini


def test_a_summary_read_back_from_json_writes_the_same_section(replayed) -> None:
    """`harness report RUN` formats the matrix of summary.json, whose deltas do not store their
    metric's name: each is formatted by the figure it is filed under."""
    from harness.artifacts import RunSummary

    summary, rows = replayed
    again = RunSummary.model_validate(summary.model_dump(mode="json"))
    assert render_markdown(run_view(again, rows)) == render_markdown(run_view(summary, rows))
    comparison = summary.matrix.comparisons[0]
    counted = comparison.model_copy(update={"metrics": {"dangling": comparison.metrics["entity_recall"].model_copy(
        update={"metric": "", "delta": 1.5, "ci_low": 1.0, "ci_high": 2.0})}})
    assert "Dangling relationships Δ +1.50 per case [+1, +2]" in matrix_section.comparison_text(counted)
