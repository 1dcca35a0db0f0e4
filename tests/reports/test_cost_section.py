"""The Cost and latency and Frontier sections of both reports and the console: a replay's latency
labelled "recorded", the suite's own prices with their date, the Pareto marks and the budget's pick
(`harness run --budget`, `harness report --budget`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ..support.fake_server import Faults, FakeOpenAIServer
from ..conftest import script_for
from .helpers import harness, record_cassettes, set_suite

PRICES = {"gpt-4o-mini": {"input": 1.0, "output": 10.0, "as_of": "2026-03-01"}}


@pytest.fixture
def timed(project, suite, api_key, tmp_path):
    """The towns suite with its own prices, recorded from a server that takes a while to answer."""
    suite = set_suite(project, prices=PRICES)
    with FakeOpenAIServer(script_for(suite), Faults(latency_s=0.02)) as srv:
        record_cassettes(suite, srv, tmp_path)
    return suite


def _run_dir(reports: Path) -> Path:
    return next(p for p in (reports / "towns").iterdir() if (p / "summary.json").exists())


def test_a_replay_reports_recorded_latency_suite_prices_and_the_frontier(timed, project, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    reports = tmp_path / "reports"
    code, out, _ = harness(capsys, "run", str(project), "--reports", str(reports), "--budget", "1000")
    assert code == 0
    # the console: dollars per 1,000 chunks and the recorded latency per variant, then the pick
    assert re.search(r"default: \$[\d.]+ per 1,000 chunks, 2\.00 calls per chunk; latency p50 / p95 per call "
                     r"[\d.]+ s / [\d.]+ s \(recorded\)", out)
    assert "For a budget of $1,000.00 per 1,000 chunks, pick tuned: entity F1" in out
    run_dir = _run_dir(reports)
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    latency = summary["variants"]["default"]["latency"]
    assert latency["source"] == "recorded" and latency["p95_call_s"] >= 0.02  # the server's delay, as kept
    assert summary["variants"]["default"]["cost"]["price"] == {"model": "gpt-4o-mini", "as_of": "2026-03-01",
                                                               "source": "suite"}
    assert summary["frontier"]["pick"] == "tuned" and summary["frontier"]["budget"] == 1000
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "## Cost and latency" in md and "gpt-4o-mini (suite, 2026-03-01)" in md and "(recorded)" in md
    assert "## Frontier" in md and "| tuned (pick) |" in md and "**For a budget of $1,000.00" in md
    assert "<h2>Frontier</h2>" in html and "id='plot-frontier'" in html and "(recorded)" in html
    assert (run_dir / "plots" / "frontier.png").exists()
    # the same run's reports again, for another budget: the pick changes, summary.json does not
    code, _, _ = harness(capsys, "report", str(run_dir), "--budget", "0")
    assert code == 0
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "No variant fits a budget of $0 per 1,000 chunks: the cheapest, default" in md
    assert json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["frontier"]["pick"] == "tuned"


def test_old_cassettes_show_latency_n_a(timed, project, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    for path in timed.cassette_dir().rglob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data["interactions"]:
            item["response"].pop("harness", None)
        path.write_text(json.dumps(data), encoding="utf-8")
    reports = tmp_path / "reports"
    code, out, _ = harness(capsys, "run", str(project), "--reports", str(reports))
    assert code == 0
    assert "latency p50 / p95 per call n/a, per chunk n/a" in out and "(recorded)" not in out
    md = (_run_dir(reports) / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| default | 3 |"))
    assert row.endswith("| n/a | n/a |")


def test_a_budget_that_is_no_amount_is_one_line(project, capsys):
    code, _, err = harness(capsys, "run", str(project), "--budget", "-1")
    assert code == 2 and "--budget: -1.0 is not a number of dollars >= 0" in err


def test_tokens_counted_offline_are_marked_estimated(project, suite, api_key, tmp_path, capsys, monkeypatch):
    with FakeOpenAIServer(script_for(suite), Faults(report_usage=False)) as srv:  # as some local servers answer
        record_cassettes(suite, srv, tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY")
    reports = tmp_path / "reports"
    code, out, _ = harness(capsys, "run", str(project), "--reports", str(reports))
    assert code == 0 and "per 1,000 chunks (tokens estimated)" in out
    run_dir = _run_dir(reports)
    assert json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["variants"]["default"]["cost"][
        "tokens_estimated"] is True
    row = next(line for line in (run_dir / "report.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| default | 3 |"))
    assert re.search(r"\| [\d,]+\* \| 0 \| [\d,]+\* \|", row)  # input and output counts marked, cached not
