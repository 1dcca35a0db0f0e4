"""Plugins through entry points (harness/plugins.py): the example package in
tests/fixtures/plugin_pkg/ adds a suite kind, an output format, a metric family and a provider,
and a suite of its kind records through the local fake server and replays end to end.

The package is made visible as pip would install it, offline: its source folder on the path and
a `.dist-info` folder holding the entry points read from its own pyproject.toml. Each command runs
in a fresh interpreter, so the registries of this test process never see the plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.plugins import GROUPS, PREFIX

from .conftest import REPO, SECRET
from .support.fake_server import FakeOpenAIServer, Script
from .support.suite_files import write_suite_file

PLUGIN = REPO / "tests" / "fixtures" / "plugin_pkg"
ARTICLE = "Ana Ruiz won the mayoral race in Lowbridge on Sunday, taking 61% of the vote."
ANSWER = "Ana Ruiz wins the Lowbridge mayoral race"  # 7 words


def dist_info(site: Path, name: str, version: str, entry_points: dict[str, dict[str, str]]) -> None:
    """A `.dist-info` folder as pip writes it, with the given entry points."""
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    lines = [f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
             for group, points in entry_points.items()]
    (folder / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


def plugin_site(tmp_path: Path) -> Path:
    """The example package, installed in a folder that goes on PYTHONPATH with its source."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = tmp_path / "site"
    dist_info(site, project["name"], project["version"], project["entry-points"])
    return site


def harness_cli(cwd: Path, path: list[Path], *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_", "PYTHON", "KGH_"))}
    base["PYTHONPATH"] = os.pathsep.join(str(p) for p in path)
    code = "import sys; from harness.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, env={**base, **env}, capture_output=True,
                          text=True, timeout=300)


def headline_project(root: Path, base_url: str) -> Path:
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "headline.txt").write_text(
        "Write a headline of at most {max_words} words about {subject} for this article. Answer in {language}.\n"
        "{input_text}\n", encoding="utf-8")
    suite = {
        "name": "headlines", "kind": "headline",
        "model": {"name": "gpt-4o-mini", "provider": "tagged-openai", "base_url": base_url},
        "variants": {"default": {"prompt": "prompts/headline.txt"}},
        "cases": [{"id": "mayor", "text": ARTICLE, "inputs": {"subject": "Ana Ruiz", "max_words": 8}},
                  {"id": "town", "text": ARTICLE, "inputs": {"subject": "Lowbridge", "max_words": 3}}],
    }
    return write_suite_file(root, suite)


def test_the_example_package_declares_every_group() -> None:
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert sorted(project["entry-points"]) == sorted(PREFIX + group for group in GROUPS)


@pytest.mark.slow
def test_a_plugin_kind_format_metric_and_provider_run_end_to_end(tmp_path: Path) -> None:
    path = [plugin_site(tmp_path), PLUGIN / "src"]
    project = tmp_path / "project"
    with FakeOpenAIServer(Script(fallback=ANSWER)) as server:
        suite = headline_project(project, server.base_url)
        recorded = harness_cli(project, path, "record", str(suite), "--reports", "scratch",
                               OPENAI_API_KEY=SECRET, KGH_TEAM="evals")
        assert recorded.returncode == 0, recorded.stdout + recorded.stderr
        assert server.calls == 2  # one call a case: the kind does not glean
        # the plugin's provider built the payload: its tag is in every request
        assert [r["body"]["metadata"] for r in server.requests] == [{"team": "evals"}] * 2
    replayed = harness_cli(project, path, "run", str(suite), "--reports", "reports", "--run-id", "r1",
                           KGH_TEAM="evals")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    run = project / "reports" / "headlines" / "r1"
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    # the plugin's format read the answers, its kind scored them under its own key
    assert [r["format_report"]["format"] for r in rows] == ["headline"] * 2
    assert [r["score"]["headline"] for r in rows] == [
        {"words": 7, "max_words": 8, "within_limit": True, "names_subject": True},
        {"words": 7, "max_words": 3, "within_limit": False, "names_subject": True}]
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["kind"] == "headline"
    metrics = summary["variants"]["default"]["metrics"]["metrics"]
    assert metrics["headline_within_limit"]["micro"] == 0.5 and metrics["headline_names_subject"]["micro"] == 1.0
    assert metrics["entity_recall"]["micro"] is None  # no graph: n/a, not 0
    # its key figures lead the console table and the report
    assert "in limit" in replayed.stdout and "subject" in replayed.stdout
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "Headlines within limit" in report and "Headlines naming the subject" in report
    # its report section, after the scores, in both reports
    assert "## Headline lengths" in report and report.index("## Headline lengths") > report.index("Headlines within limit")
    assert "| default | " in report.split("## Headline lengths")[1].split("##")[0]
    assert "<h2>Headline lengths</h2>" in (run / "report.html").read_text(encoding="utf-8")
    # the plugin's format is one of `harness parse`'s formats
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER, encoding="utf-8")
    parsed = harness_cli(project, path, "parse", str(answer), "--format", "headline")
    assert parsed.returncode == 0 and "format: headline" in parsed.stdout, parsed.stdout + parsed.stderr


def test_a_plugin_that_cannot_be_loaded_is_one_line(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist_info(site, "broken-plugin", "1.0", {PREFIX + "kinds": {"nothing": "no_such_module:SPEC"}})
    project = tmp_path / "project"
    suite = headline_project(project, "http://127.0.0.1:9")
    done = harness_cli(project, [site], "run", str(suite))
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("plugin broken-plugin, entry point nothing = no_such_module:SPEC (kg_prompt_harness.kinds): cannot be "
            "loaded: ModuleNotFoundError") in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_without_the_plugin_its_kind_is_unknown(tmp_path: Path) -> None:
    project = tmp_path / "project"
    suite = headline_project(project, "http://127.0.0.1:9")
    done = harness_cli(project, [], "run", str(suite))
    assert done.returncode == 2 and "'headline' is not a suite kind" in done.stdout + done.stderr


def test_a_plugin_that_takes_a_built_in_name_is_one_line(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist_info(site, "greedy-plugin", "1.0", {PREFIX + "formats": {"summary": "harness.formats.summary:SummaryFormat"}})
    answer = tmp_path / "answer.txt"
    answer.write_text("A summary.", encoding="utf-8")
    done = harness_cli(tmp_path, [site], "parse", str(answer), "--format", "nothing-by-this-name")
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("plugin greedy-plugin, entry point summary = harness.formats.summary:SummaryFormat "
            "(kg_prompt_harness.formats): format 'summary' is already registered") in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
