"""The shipped suites replay to outputs that mean the same as those captured in tests/golden/
(issue 14; compared by meaning since issue 26).

`harness run suites/*.yaml --record-mode none --gate` and the podcast tuning replay (`harness tune
--suite suites/podcast.yaml --selection top --limit 6 --record-mode none`), as `make run` does them,
must give the same results.jsonl, summary.json, report.md, report.html, junit.xml, gate.json, plots,
tuning outputs and exit codes, once timings, timestamps and the scratch folder's path are normalised
(tests/support/golden.py says exactly what is normalised, and nothing else is). "The same" is by
meaning (tests/support/golden_compare.py): JSON by value, HTML and XML by structure and text,
markdown by lines, plots by what they plot (tests/support/plot_probe.py). A cosmetic change
(reindented JSON, reordered keys or attributes, reformatted HTML, a plot drawn by another
matplotlib) passes; a changed number, row, text, section, plotted bar or exit code fails, and the
failure lists what changed (`podcast/summary.json: variants.tuned.metrics.f1: 0.61 -> 0.58`).

This is the safety net of the architecture refactor: a refactor must NOT refresh tests/golden/;
when this test fails after one, the refactor changed behaviour. After a deliberate behaviour change
(a parser fix, a new metric, a report wording, a plot that draws something new), refresh the golden
files and commit them with the change, saying why in the commit message:

    .venv/bin/python scripts/capture_golden.py
    git diff --stat tests/golden/

A plot's golden copy is `<suite>/plots/<name>.png.json` (what it plots, not its pixels): its diff
shows what the change drew differently. A cosmetic change needs no refresh.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.golden import GOLDEN_DIR, compare, digest_style, normalise, pipeline_order, read_golden, replay

pytestmark = pytest.mark.slow  # end-to-end: replays every shipped suite as make run does


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return replay(tmp_path_factory.mktemp("golden-replay")).files


@pytest.fixture(scope="module")
def golden() -> dict[str, str]:
    files = read_golden()
    assert files, f"{GOLDEN_DIR} is empty: capture it with scripts/capture_golden.py"
    return files


def test_shipped_suites_replay_to_the_golden_outputs(golden: dict[str, str], replayed: dict[str, str]) -> None:
    report = compare(golden, replayed)
    if report:
        pytest.fail(report, pytrace=False)


def test_every_plot_is_compared_by_what_it_plots(golden: dict[str, str], replayed: dict[str, str]) -> None:
    """Each run's plots are described (none fell back to a digest), and report.html links them."""
    plots = {name: json.loads(text) for name, text in replayed.items() if name.endswith(".png.json")}
    assert plots and all("plots" in record and "png" not in record and record["plots"]["dpi"] > 0 for record in plots.values())
    for suite in {name.split("/")[0] for name in plots}:
        html = replayed[f"{suite}/report.html"]
        assert "data:image/png" not in html
        linked = set(re.findall(r'src="(plots/[^"]+\.png)"', html))
        assert linked == {name.split("/", 1)[1][: -len(".json")] for name in plots if name.startswith(f"{suite}/")}


def test_normalisation_keeps_everything_but_timings_timestamps_and_the_scratch_path(tmp_path: Path) -> None:
    scratch = str(tmp_path)
    row = ('{"latency_s":0.0123,"wall_s":1e-05,"created_at":"2026-11-23T22:30:16+00:00","recall":0.5,'
           f'"output":"\\"latency_s\\":7","baseline_file":"{scratch}/reports/baselines/a.json","tokens_s":null}}')
    assert normalise(row, [scratch]) == (
        '{"latency_s":"<timing>","wall_s":"<timing>","created_at":"<timestamp>","recall":0.5,'
        '"output":"\\"latency_s\\":7","baseline_file":"<OUT>/reports/baselines/a.json","tokens_s":null}')


# --- the comparison on the golden files themselves: real changes fail, cosmetic ones pass ---------


def _changed(golden: dict[str, str], name: str, old: str, new: str, count: int = 1) -> dict[str, str]:
    assert old in golden[name], f"{old!r} not in {name}"
    return {**golden, name: golden[name].replace(old, new, count)}


def _json_edited(golden: dict[str, str], name: str, edit: Callable[[Any], object]) -> dict[str, str]:
    value = json.loads(golden[name])
    edit(value)
    return {**golden, name: json.dumps(value, indent=2) + "\n"}


def test_a_changed_metric_in_summary_json_fails_naming_its_path(golden: dict[str, str]) -> None:
    def edit(summary: Any) -> None:
        summary["variants"]["tuned"]["metrics"]["metrics"]["entity_f1"]["macro"] = 0.58

    old = json.loads(golden["podcast/summary.json"])["variants"]["tuned"]["metrics"]["metrics"]["entity_f1"]["macro"]
    report = compare(golden, _json_edited(golden, "podcast/summary.json", edit))
    assert report is not None
    assert f"podcast/summary.json:\n  variants.tuned.metrics.metrics.entity_f1.macro: {old} -> 0.58" in report
    assert len(report.splitlines()) == 3  # the count, the file, the one change: nothing else


def test_a_changed_case_row_fails_naming_the_row(golden: dict[str, str]) -> None:
    rows = golden["podcast/results.jsonl"].splitlines()
    row = json.loads(rows[3])
    row["rounds"][0]["output"] = row["rounds"][0]["output"].replace("##", "#", 1)
    edited = {**golden, "podcast/results.jsonl": "\n".join([*rows[:3], json.dumps(row), *rows[4:]]) + "\n"}
    report = compare(golden, edited)
    assert report is not None and f"[{row['variant']}/{row['case_id']}].rounds[0].output: " in report
    dropped = {**golden, "podcast/results.jsonl": "\n".join(rows[:3] + rows[4:]) + "\n"}
    report = compare(golden, dropped)
    assert report is not None and f"[{row['variant']}/{row['case_id']}]: {{" in report and "-> (absent)" in report


def test_a_removed_html_section_and_a_changed_number_in_html_fail(golden: dict[str, str]) -> None:
    html = golden["podcast/report.html"]
    gate = re.search(r"<h2>Gate</h2>\n.*?\n", html, re.S)
    assert gate is not None
    report = compare(golden, {**golden, "podcast/report.html": html.replace(gate.group(0), "")})
    assert report is not None and "podcast/report.html:" in report and "-html > body > h2 | Gate" in report
    cases = re.search(r"<h2>Cases \((\d+)\)</h2>", html)
    assert cases is not None
    report = compare(golden, _changed(golden, "podcast/report.html", cases.group(0), f"<h2>Cases ({int(cases.group(1)) + 1})</h2>"))
    assert report is not None
    assert f"-html > body > h2 | Cases ({cases.group(1)})" in report and f"+html > body > h2 | Cases ({int(cases.group(1)) + 1})" in report


def test_a_changed_style_sheet_fails_though_the_golden_reports_keep_only_its_digest(golden: dict[str, str]) -> None:
    from harness.reports.html_report import CSS

    html = golden["podcast/report.html"]
    assert CSS not in html and "<style data-sha256=" in html  # one digest, no copy of the CSS per suite
    restyled = digest_style(html.replace(re.search(r"<style data-sha256='[0-9a-f]+'></style>", html).group(0),  # type: ignore[union-attr]
                                         f"<style>{CSS.replace('margin: 0', 'margin: 1px', 1)}</style>"))
    report = compare(golden, {**golden, "podcast/report.html": restyled})
    assert report is not None and "podcast/report.html:" in report and "html > head > style" in report
    assert compare(golden, {**golden, "podcast/report.html": digest_style(html.replace(
        re.search(r"<style data-sha256='[0-9a-f]+'></style>", html).group(0), f"<style>{CSS}</style>"))}) is None  # type: ignore[union-attr]


def test_a_changed_plot_fails_and_so_does_a_changed_exit_code(golden: dict[str, str]) -> None:
    def taller(record: Any) -> None:
        record["plots"]["axes"][0]["bars"][1]["rects"][2]["height"] = 0.5

    report = compare(golden, _json_edited(golden, "podcast/plots/metrics.png.json", taller))
    assert report is not None and "podcast/plots/metrics.png.json:\n  plots.axes[0].bars[tuned].rects[2].height: " in report
    both = _json_edited(_json_edited(golden, "podcast/plots/metrics.png.json", taller), "commands.json",
                        lambda commands: commands[1].update(exit_code=1))
    report = compare(golden, both)
    assert report is not None and report.splitlines()[0].endswith("podcast/plots/metrics.png.json, commands.json")
    assert "commands.json:\n  [1].exit_code: 0 -> 1" in report


def test_cosmetic_changes_pass(golden: dict[str, str]) -> None:
    cosmetic = dict(golden)
    for name in ("podcast/summary.json", "podcast/gate.json", "podcast/plots/metrics.png.json", "commands.json"):
        value = json.loads(golden[name])  # reindented, keys reordered
        cosmetic[name] = json.dumps(value, indent=4, sort_keys=True) + "\n"
    cosmetic["podcast/results.jsonl"] = "".join(  # each row's keys reversed, other spacing
        json.dumps(dict(reversed(list(json.loads(line).items()))), separators=(", ", ": ")) + "\n"
        for line in golden["podcast/results.jsonl"].splitlines())
    html = golden["podcast/report.html"]
    html = html.replace("<figure id='plot-metrics'><img alt=\"Scores per variant\" src=\"plots/metrics.png\">",
                        "<figure  id=\"plot-metrics\">\n   <img src='plots/metrics.png'   alt=\"Scores  per variant\" >")
    html = html.replace("<h2>Scores</h2>", "\n  <h2>\n    Scores\n  </h2>\n").replace("&#x27;", "'")
    html = re.sub(r"(<style>)(.*?)(</style>)", lambda m: m.group(1) + re.sub(r"\s+", "  ", m.group(2)) + m.group(3), html,
                  flags=re.S)
    assert html != golden["podcast/report.html"]
    cosmetic["podcast/report.html"] = html
    cosmetic["podcast/junit.xml"] = re.sub(r"\n\s*", "\n", golden["podcast/junit.xml"]).replace(" />", "/>")
    cosmetic["podcast/report.md"] = golden["podcast/report.md"].replace("\n", "  \n") + "\n\n"
    assert compare(golden, cosmetic) is None


def test_files_missing_or_extra_are_reported(golden: dict[str, str]) -> None:
    fewer = {name: text for name, text in golden.items() if name != "podcast/plots/grounding.png.json"}
    report = compare(golden, {**fewer, "podcast/plots/new.png.json": "{}\n"})
    assert report is not None
    assert "podcast/plots/grounding.png.json:\n  only in tests/golden/" in report
    assert "podcast/plots/new.png.json:\n  only in the replay" in report


def test_pipeline_order_puts_plots_with_their_report() -> None:
    names = ["commands.json", "tune/a.yaml", "s/plots/m.png.json", "s/report.html", "s/results.jsonl"]
    assert pipeline_order(names) == ["s/results.jsonl", "s/report.html", "s/plots/m.png.json", "tune/a.yaml", "commands.json"]
