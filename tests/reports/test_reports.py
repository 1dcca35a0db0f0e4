"""Run reports: report.md, report.html, junit.xml, plots, summary.json (schema) and gate.json."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from importlib import resources
from xml.etree import ElementTree as ET

import jsonschema
import numpy as np
import pytest

from harness.run.schedule import RunOptions, run_suite
from harness.finish import finish_outcome
from harness.suites import load_suite

from .helpers import REPO, harness, record_cassettes, replay, strip_volatile, summary_of

OUTPUTS = {"results.jsonl", "summary.json", "report.md", "report.html", "junit.xml", "gate.json", "plots"}
PLOTS = {"metrics.png", "recall_scatter.png", "grounding.png", "graph_size.png", "format_issues.png", "frontier.png"}


@pytest.fixture
def run(suite, server, api_key, tmp_path):
    """A replayed run of the tiny project: (outcome, summary)."""
    record_cassettes(suite, server, tmp_path)
    return replay(suite, tmp_path / "reports", "r1")


def schema(name: str) -> dict:
    return json.loads(resources.files("harness").joinpath(f"schemas/{name}").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- files


@pytest.mark.slow
def test_a_run_writes_every_report(run):
    outcome, _ = run
    assert OUTPUTS <= {p.name for p in outcome.run_dir.iterdir()}
    assert {p.name for p in (outcome.run_dir / "plots").iterdir()} == PLOTS
    for png in (outcome.run_dir / "plots").iterdir():
        assert png.read_bytes().startswith(b"\x89PNG")
    assert not [p for p in outcome.run_dir.rglob(".*.tmp")]


@pytest.mark.slow
def test_report_md_has_every_section(run):
    outcome, _ = run
    md = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    for heading in ("## Scores", "## Graph size", "## Gate", "## Worst regressions", "## Format issues", "## Cases"):
        assert heading in md
    # headline: variants as columns, deltas against the baseline with an interval
    assert "| | default (baseline) | tuned |" in md
    recall_row = next(line for line in md.splitlines() if line.startswith("| Entity recall |"))
    assert "Δ +" in recall_row and "[" in recall_row and "]" in recall_row
    # graph size with ratios
    entities_row = next(line for line in md.splitlines() if line.startswith("| entities |"))
    assert "×)" in entities_row
    # the gate: every rule with value and limit
    assert "| ✅ pass | default | threshold | entity_recall |" in md and "≥ 50.0%" in md
    # format issues by code
    assert "`completion-missing`" in md or "`markdown-decoration`" in md
    # cases that break a per-case rule are marked and named
    assert "❌" in md and "`default` / `flood`: entity recall 33.3% is below the threshold 50.0%" in md


@pytest.mark.slow
def test_worst_regressions_say_what_was_lost(suite, server, api_key, tmp_path, project):
    from ..conftest import ANSWERS

    # make tuned lose the flood case against default: swap the answers of the two variants for flood
    record_cassettes(suite, server, tmp_path)
    swapped = dict(ANSWERS)
    swapped["tuned"] = {**ANSWERS["tuned"], "flood": ["(\"entity\"<|>ARN<|>geo<|>River)\n<|COMPLETE|>", "<|COMPLETE|>"]}
    swapped["default"] = {**ANSWERS["default"], "flood": ANSWERS["tuned"]["flood"]}
    from ..support.fake_server import FakeOpenAIServer, Script
    from harness.run.plan import plan_variant

    script = Script()
    for variant in suite.variant_names():
        plan = plan_variant(suite, variant)
        for case in suite.cases:
            first_user = [m["content"] for m in plan.render(case) if m["role"] == "user"][0]
            script.rounds[first_user] = swapped[variant][case.id]
    with FakeOpenAIServer(script) as srv:
        record_cassettes(suite, srv, tmp_path, mode="rewrite")
    outcome, _ = replay(suite, tmp_path / "reports", "lost")
    md = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    section = md.split("## Worst regressions")[1].split("## Format issues")[0]
    assert "`flood`" in section
    assert "newly missed entities: Millbrook, Red Lantern Society" in section
    assert "Arn — Millbrook" in section


@pytest.mark.slow
def test_replayed_runs_are_byte_for_byte_the_same(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    first, _ = replay(suite, tmp_path / "a", "same")
    second, _ = replay(suite, tmp_path / "b", "same")
    files = sorted(p.relative_to(first.run_dir) for p in first.run_dir.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second.run_dir) for p in second.run_dir.rglob("*") if p.is_file())
    for rel in files:
        a, b = (first.run_dir / rel).read_bytes(), (second.run_dir / rel).read_bytes()
        if rel.name in ("summary.json", "results.jsonl"):
            continue
        assert a == b, f"{rel} differs between two replays"
    sa, sb = summary_of(first.run_dir), summary_of(second.run_dir)
    assert sa["created_at"] and sa["timings"]["wall_s"] >= 0
    assert strip_volatile(sa) == strip_volatile(sb)


@pytest.mark.slow
def test_no_timing_outside_keys_ending_in_s(run):
    outcome, summary = run

    def walk(value, path=""):
        if isinstance(value, dict):
            for key, item in value.items():
                if "time" in key or "latency" in key or "wall" in key:
                    assert key.endswith("_s") or key == "timings", path + "/" + key
                walk(item, path + "/" + key)
        elif isinstance(value, list):
            for item in value:
                walk(item, path)

    walk(summary)
    junit = (outcome.run_dir / "junit.xml").read_text(encoding="utf-8")
    assert " time=" not in junit and "timestamp" not in junit


# --------------------------------------------------------------------------- summary.json and gate.json schemas


@pytest.mark.slow
def test_summary_and_gate_validate_against_their_schemas(run):
    outcome, _ = run
    for name, file in (("summary.schema.json", "summary.json"), ("gate.schema.json", "gate.json")):
        document = schema(name)
        jsonschema.Draft202012Validator.check_schema(document)
        jsonschema.validate(json.loads((outcome.run_dir / file).read_text()), document,
                            cls=jsonschema.Draft202012Validator)


@pytest.mark.slow
def test_summaries_of_the_example_suites_validate(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("CI", "true")
    document = schema("summary.schema.json")
    validator = jsonschema.Draft202012Validator(document)
    for path in sorted((REPO / "suites").glob("*.yaml")):
        outcome = run_suite(load_suite(path), RunOptions(record_mode="none", reports_dir=tmp_path, fresh=True))
        assert not outcome.missing, outcome.missing
        summary = finish_outcome(outcome, record_mode="none").summary
        errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(summary.to_json())]
        assert not errors, (path.name, errors[:5])
        on_disk = json.loads((outcome.run_dir / "summary.json").read_text())
        assert not list(validator.iter_errors(on_disk))
        gate = json.loads((outcome.run_dir / "gate.json").read_text())  # podcast's holds a leakage rule
        jsonschema.validate(gate, schema("gate.schema.json"), cls=jsonschema.Draft202012Validator)


@pytest.mark.slow
def test_schema_rejects_an_undocumented_key(run):
    _, summary = run
    bad = {**summary.to_json(), "surprise": 1}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema("summary.schema.json"), cls=jsonschema.Draft202012Validator)


# --------------------------------------------------------------------------- junit.xml


def test_junit_has_one_case_per_case_and_variant(run):
    outcome, _ = run
    root = ET.parse(outcome.run_dir / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    assert sorted((c.get("classname"), c.get("name")) for c in cases) == sorted(
        (f"towns.{v}", c) for v in ("default", "tuned") for c in ("mayor", "flood", "fair")
    )
    failed = {(c.get("classname"), c.get("name")): c.find("failure") for c in cases if c.find("failure") is not None}
    # the suite's threshold is entity_recall 0.5: default finds 1 of 3 in flood and fair, but 5 of 10 in all,
    # so the gate passes and so does every junit case (the report marks the two as warnings)
    assert failed == {}
    assert root.find("testsuite").get("failures") == "0" and root.find("testsuite").get("tests") == "6"
    markdown = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    assert "- `default` / `flood`: entity recall 33.3% is below the threshold 50.0%" in markdown


# --------------------------------------------------------------------------- report.html


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.loaded: list[str] = []  # every URL-valued attribute a browser would fetch
        self.tags: set[str] = set()
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src") or "")
        for key in ("src", "href", "srcset", "poster", "data", "action", "background"):
            if attrs.get(key):
                self.loaded.append(attrs[key])
        if attrs.get("style"):
            self.styles.append(attrs["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


@pytest.mark.slow
def test_report_html_is_self_contained(run):
    outcome, _ = run
    html = (outcome.run_dir / "report.html").read_text(encoding="utf-8")
    assets = _Assets()
    assets.feed(html)
    assert len(assets.images) == 6  # metrics, recall scatter, grounding, graph size, format issues, frontier
    assert all(src.startswith("data:image/png;base64,") for src in assets.images)
    assert not [u for u in assets.loaded if u.lower().startswith(("http:", "https:", "//"))]
    assert not [u for u in assets.loaded if not u.startswith(("data:", "#"))]
    assert "script" not in assets.tags and "link" not in assets.tags and "iframe" not in assets.tags
    assert not [s for s in assets.styles if "url(" in s or "@import" in s]


@pytest.mark.slow
def test_report_html_shows_chunk_gold_extracted_missed_and_unmatched(run):
    outcome, _ = run
    html = (outcome.run_dir / "report.html").read_text(encoding="utf-8")
    assert "The Arn river flooded Millbrook in March" in html  # the chunk
    case = html.split("id='case-flood'")[1].split("</details>")[0]
    for heading in ("Gold entities", "Gold relationships", "Extracted entities", "Extracted relationships",
                    "Missed entities", "Missed relationships", "Unmatched entities", "Unmatched relationships"):
        assert heading in case
    assert "Red Lantern Society" in case and "MILLBROOK (geo)" in case


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed")
def test_report_html_renders_in_headless_chromium_with_its_plots(run, tmp_path):
    from matplotlib import image

    from harness.reports.plots import PALETTE

    outcome, _ = run
    shot = tmp_path / "report.png"
    profile = tempfile.mkdtemp(dir=tmp_path)
    subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1400,3000",
         (outcome.run_dir / "report.html").resolve().as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    pixels = image.imread(str(shot))[:, :, :3]
    assert pixels.shape[0] >= 2000 and pixels.shape[1] >= 1000
    assert pixels.std() > 0.05, "the screenshot is blank"
    # the plots are images: their bar colours only appear if chromium decoded them
    for colour in PALETTE[:2]:
        rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
        close = np.abs(pixels - rgb).max(axis=2) < 0.03
        assert close.sum() > 2000, f"no {colour} bars in the screenshot: the plots did not render"


# --------------------------------------------------------------------------- comparison of two runs


@pytest.mark.slow
def test_report_against_another_run(suite, server, api_key, tmp_path, capsys):
    record_cassettes(suite, server, tmp_path)
    first, _ = replay(suite, tmp_path / "reports", "one")
    second, _ = replay(suite, tmp_path / "reports", "two")
    code, out, err = harness(capsys, "report", str(second.run_dir), "--against", str(first.run_dir), "--markdown")
    assert code == 0, err
    assert "run two against one" in out
    assert "| | default @ one (reference) | default @ two | tuned @ one (reference) | tuned @ two |" in out
    target = second.run_dir / "compare-one"
    assert {"report.md", "report.html", "plots"} <= {p.name for p in target.iterdir()}


@pytest.mark.slow
def test_report_rewrites_a_runs_reports(run, capsys):
    outcome, _ = run
    before = (outcome.run_dir / "report.md").read_bytes()
    (outcome.run_dir / "report.md").unlink()
    code, out, err = harness(capsys, "report", str(outcome.run_dir))
    assert code == 0, err
    assert (outcome.run_dir / "report.md").read_bytes() == before


# --------------------------------------------------------------------------- tokens and cost (issue 12.9)


def test_tokens_and_cost_per_variant_in_console_markdown_and_html(run):
    from rich.console import Console

    from harness.reports.console import run_table
    from harness.reports.writers import render_html, render_markdown
    from harness.reports.view import run_view

    outcome, summary = run
    tuned = summary.variants["tuned"]
    tokens = f"{tuned.usage.total_tokens:,}"
    cost = f"${tuned.cost_usd:,.4f}"
    assert tuned.usage.total_tokens > 0 and tuned.cost_usd > 0
    md = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    html = (outcome.run_dir / "report.html").read_text(encoding="utf-8")
    token_row = next(line for line in md.splitlines() if line.startswith("| tokens |"))
    assert tokens in token_row and "(est.)" not in token_row
    assert cost in next(line for line in md.splitlines() if line.startswith("| cost (USD) |"))
    assert f"<td class='num'>{tokens}</td>" in html and cost in html
    console = Console(width=200, record=True)
    console.print(run_table(summary))
    table = console.export_text()
    assert tokens in table and cost in table
    # an endpoint that reported no usage: the counts were estimated, and every report says so
    for variant in summary.variants.values():
        variant.usage.estimated = True
    view = run_view(summary, outcome.results)
    assert f"{tokens} (est.)" in render_markdown(view) and f"{cost} (est.)" in render_markdown(view)
    assert f"{tokens} (est.)" in render_html(view, {})
    console = Console(width=200, record=True)
    console.print(run_table(summary))
    assert f"{tokens} (est.)" in console.export_text()


# --------------------------------------------------------------------------- reference-free figures (issue 15)


def _console_text(summary) -> str:
    from rich.console import Console

    from harness.reports.console import run_table

    console = Console(width=220, record=True)
    console.print(run_table(summary))
    return console.export_text()


def _header(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if "variant" in line)
    return [cell.strip() for cell in line.split("┃")[1:-1]]


def test_console_shows_grounding_with_gold_and_the_compact_set_without(run):
    outcome, summary = run
    with_gold = _console_text(summary)
    assert _header(with_gold)[:4] == ["variant", "entity recall", "rel. recall (endpoints)", "grounded"]
    # every towns answer names only things of its chunk: 5 entities for default, 9 for tuned, all grounded
    assert summary.variants["default"].metrics.counts["grounded"] == 5
    assert summary.variants["tuned"].metrics.counts["grounded"] == 9
    assert "100.0% (1.00×)" in with_gold
    # the same run as a suite with no gold at all: the compact reference-free set, no recall column
    for variant in summary.variants.values():
        variant.metrics.annotated = {"entities": 0, "relationships": 0}
    without = _console_text(summary)
    assert _header(without)[:6] == ["variant", "grounded", "types ok", "duplicates", "dangling", "leaks"]
    assert "recall" not in " ".join(_header(without)) and "no gold: reference-free figures" in without
    tuned = next(line for line in without.splitlines() if line.startswith("│ tuned"))
    assert [cell.strip() for cell in tuned.split("│")[2:7]] == ["100.0% (1.00×)", "100.0% (1.00×)", "0", "0", "0"]


def test_console_header_says_what_the_columns_are(run):
    """Issue 27, item 10: the no-gold header said "counts are totals over cases" above the union
    graph's entities and relationships, which count a name found in two cases once."""
    outcome, summary = run
    for variant in summary.variants.values():
        variant.metrics.annotated = {"entities": 0, "relationships": 0}
    title = " ".join(_console_text(summary).split())  # the title may wrap
    assert "counts are totals over cases" not in title
    assert "reference-free figures, their counts totalled over cases" in title
    assert "entities, relationships, communities: the union graph of all cases" in title
    assert {"entities", "relationships", "communities"} <= set(_header(_console_text(summary)))


def test_reports_have_the_grounding_plot_and_count_rows(run):
    outcome, summary = run
    html = (outcome.run_dir / "report.html").read_text(encoding="utf-8")
    md = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    assert "id='plot-grounding'" in html and (outcome.run_dir / "plots" / "grounding.png").stat().st_size > 0
    # a count row is labelled, its cells are the total · the mean per case: default 3 + 1 + 1 = 5, 5/3 per case
    row = next(line for line in md.splitlines() if line.startswith("| Distinct entities"))
    assert row.startswith("| Distinct entities (total · mean per case) | **5** · 1.67 | **9** · 3<br>Δ +1.33 per case")
    assert "| Grounding rate | **100.0%** · 100.0% |" in md
    assert "<td>Dangling relationships (total · mean per case)</td>" in html


def test_markdown_cases_of_a_suite_without_gold_show_grounding_and_leaks(run):
    from harness.reports.writers import render_markdown
    from harness.reports.view import run_view

    outcome, summary = run
    for variant in summary.variants.values():
        variant.metrics.annotated = {"entities": 0, "relationships": 0}
    md = render_markdown(run_view(summary, outcome.results))
    assert "<details><summary>Grounding rate / example leaks (no gold) per case" in md
    assert "| case | default | tuned | ungrounded in tuned |" in md
    # every towns entity is in its chunk and the towns prompt names none of them: 100% grounded, 0 leaks
    assert "| mayor | 100.0% / 0 | 100.0% / 0 | — |" in md


def test_plots_of_a_suite_without_gold_show_the_reference_free_rates(run):
    # recall is n/a on every case of a gold-free run: the bar chart and the per-case scatter plot
    # grounding rate and type conformance instead (rates, so the 0-1 axes still hold)
    from harness.reports.plots import _plotted
    from harness.reports.view import run_view
    from harness.metrics.registry import in_bar_chart, key_figures

    outcome, summary = run
    assert [m.name for m in _plotted(run_view(summary, outcome.results), key_figures())] == [
        "entity_recall", "relationship_recall"]
    for variant in summary.variants.values():
        variant.metrics.annotated = {"entities": 0, "relationships": 0}
    view = run_view(summary, outcome.results)
    assert not view.has_gold
    for with_gold in (in_bar_chart(), key_figures()):
        assert [m.name for m in _plotted(view, with_gold)] == ["grounding_rate", "type_conformance"]


@pytest.mark.slow
def test_report_tables_leave_out_typed_and_ontology_rows_no_column_has(run):
    # the towns suite has neither typed gold nor an ontology: no row of n/a for them; once a column
    # has a typed F1 (as a typed-gold suite would), its row is back, n/a for the other column
    from harness.model import MetricAggregate
    from harness.reports.writers import render_markdown
    from harness.reports.view import run_view

    outcome, summary = run
    md = render_markdown(run_view(summary, outcome.results))
    assert "Relationship F1 (typed)" not in md and "Ontology conformance" not in md
    assert "| Relationship F1 (endpoints) |" in md
    summary.variants["tuned"].metrics.metrics["relationship_typed_f1"] = MetricAggregate(micro=0.5, macro=0.5, cases=1)
    md = render_markdown(run_view(summary, outcome.results))
    row = next(line for line in md.splitlines() if line.startswith("| Relationship F1 (typed) |"))
    assert row.startswith("| Relationship F1 (typed) | **n/a** · n/a | **50.0%** · 50.0%")
    assert "Ontology conformance" not in md


def test_a_views_suite_kind_is_read_once_not_per_case(run, monkeypatch):
    # every section and case row asks the view its suite kind; reading all rows for each answer
    # made a 2,000-case report quadratic (19 s of a 36 s replay)
    from harness.reports import view as view_module
    from harness.reports.writers import render_html, render_markdown

    calls = []
    real = view_module.rows_kind

    def counting(rows):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(rows)

    monkeypatch.setattr(view_module, "rows_kind", counting)
    outcome, summary = run
    view = view_module.run_view(summary, outcome.results)
    render_markdown(view)
    render_html(view, {})
    assert len(outcome.results) > 1 and len(calls) == 1
