"""VariantSummary.fragmentation and .gleaning from result rows, through summary.json and into
report.md, report.html and the console (issue 15)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from harness.artifacts import RunSummary
from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, GoldEntity, Round
from harness.reports.console import print_run_table
from harness.reports.view import run_view
from harness.reports.writers import render_html, render_markdown
from harness.scoring import reference_free, score_case
from harness.summary import variant_summary

EXAMPLES = "Example: Martin Smith chairs the Global Exchange."
GOLD = {
    "c1": GoldCase(id="c1", text="Sherlock Holmes met Watson.",
                   entities=[GoldEntity(name="Sherlock Holmes", type="person", aliases=["Holmes"])]),
    "c2": GoldCase(id="c2", text="Holmes smoked.", entities=[GoldEntity(name="Holmes", type="person")]),
}


def _row(variant: str, case_id: str, names: list[tuple[str, int]], calls: int) -> CaseResult:
    graph = ExtractedGraph(entities=[Entity(name=n, type="person", description="d", round=r) for n, r in names])
    gold = GOLD[case_id]
    score = score_case(gold, graph)
    score = score.model_copy(update={"reference_free": reference_free(graph, gold.text, examples=EXAMPLES,
                                                                      rounds=list(range(calls)))})
    rounds = [Round(index=0, kind="extract", output="")]
    rounds += [Round(index=i, kind="continue", output="") for i in range(1, calls)]
    return CaseResult(suite="s", variant=variant, case_id=case_id, graph=graph, score=score, rounds=rounds)


def _summary(rows: list[CaseResult]) -> RunSummary:
    variants = {}
    for name in dict.fromkeys(r.variant for r in rows):
        mine = [r for r in rows if r.variant == name]
        variants[name] = variant_summary(mine, prompt="p", model="m", prices={}, gold=GOLD)
    return RunSummary(harness_version="0", suite="s", suite_file="s.yaml", run_id="r", created_at="t",
                      record_mode="none", baseline="default", variants=variants, ratios={}, comparisons={},
                      timings={})


ROWS = [
    # default: no gleaning, one title per case
    _row("default", "c1", [("Sherlock Holmes", 0)], 1),
    _row("default", "c2", [("Holmes", 0)], 1),
    # gleaned: round 1 adds only a leaked name
    _row("gleaned", "c1", [("Sherlock Holmes", 0), ("Martin Smith", 1)], 2),
    _row("gleaned", "c2", [("Holmes", 0)], 2),
]


def test_the_summary_carries_both_and_reads_back():
    summary = _summary(ROWS)
    default = summary.variants["default"]
    assert default.fragmentation is not None
    # SHERLOCK HOLMES (c1) and HOLMES (c2): two GraphRAG nodes, one cluster; one gold entity under two titles
    assert (default.fragmentation.nodes, default.fragmentation.clusters) == (2, 1)
    assert default.fragmentation.gold is not None and default.fragmentation.gold.fragmented == 1
    assert [g.round for g in default.gleaning] == [0]
    gleaned = summary.variants["gleaned"].gleaning
    # answer 1: c1 adds martin smith (leaked, ungrounded), c2 adds nothing: 2 cases, 1 new, 0 grounded, 1 leak
    assert [(g.round, g.cases, g.entities, g.grounded, g.example_leaks) for g in gleaned] == [
        (0, 2, 2, 2, 0), (1, 2, 1, 0, 1)]
    again = RunSummary.model_validate_json(summary.model_dump_json())
    assert again == summary
    data = summary.model_dump()
    for variant in data["variants"].values():  # a summary written before these fields still reads
        del variant["fragmentation"], variant["gleaning"]
    old = RunSummary.model_validate(data).variants["default"]
    assert old.fragmentation is None and old.gleaning == []


def test_reports_show_fragmentation_and_gleaning():
    summary = _summary(ROWS)
    view = run_view(summary, ROWS)
    md = render_markdown(view)
    assert "## Entity fragmentation" in md and "## Gleaning yield" in md
    assert "- HOLMES / SHERLOCK HOLMES (2 cases)" in md  # names the harness would join
    assert "- Sherlock Holmes: HOLMES / SHERLOCK HOLMES (2 cases)" in md  # the gold entity under two titles
    assert "| gleaned | gleaning 1 | 2 | 1 | 0 | 0 (0.0%) | 1 (100.0%) |" in md
    html = render_html(view, {})
    assert "<h2>Entity fragmentation</h2>" in html and "<h2>Gleaning yield</h2>" in html
    out = io.StringIO()
    print_run_table(summary, run_dir=Path("runs/r"), console=Console(file=out, width=300))
    text = out.getvalue()
    assert "default: entity fragmentation: 2 GraphRAG nodes would be 1 after joining" in text
    assert "gleaned: gleaning adds names the chunk does not hold: gleaning 1 0.0% grounded against 100.0%" in text


def test_no_gleaning_section_without_a_gleaning_answer():
    rows = [r for r in ROWS if r.variant == "default"]
    md = render_markdown(run_view(_summary(rows), rows))
    assert "## Gleaning yield" not in md and "## Entity fragmentation" in md


def test_the_console_line_stays_short_whatever_the_cluster():
    """Issue 28.15: one answer's cluster of thousands of names, or a name of 32,000 tokens, was
    printed whole on the console line."""
    from harness.reports.fragmentation_section import CONSOLE_NAME_CHARS, console_lines

    titles = [" ".join("Mr" if i >> b & 1 else "Dr" for b in range(6)) + " Holmes" for i in range(50)]
    rows = [_row("default", "c1", [("Sherlock " + "Holmes " * 5000, 0), *((t, 0) for t in titles)], 1),
            _row("default", "c2", [("Holmes", 0)], 1)]
    [line] = console_lines(_summary(rows))
    assert len(line) < 8 * CONSOLE_NAME_CHARS
    assert "more)" in line
