"""Runs of the tiny `towns` project (tests/conftest.py) for the report, gate, merge and inspect tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from ..support.fake_server import FakeOpenAIServer, Script
from harness.cli import main
from harness.finish import finish_outcome
from harness.run.schedule import RunOptions, run_suite
from harness.suites import Suite, load_suite

REPO = Path(__file__).resolve().parents[2]


def record_cassettes(suite: Suite, server: FakeOpenAIServer, tmp_path: Path, mode: str = "once") -> None:
    """Record the project's cassettes from the local server (needs the api_key fixture)."""
    outcome = run_suite(suite, RunOptions(record_mode=mode, reports_dir=tmp_path / "scratch", base_url=server.base_url,
                                          fresh=True))
    assert not outcome.missing and not outcome.failures


def replay(suite: Suite, reports: Path, run_id: str, **options) -> tuple:
    """Replay a run and write its outputs; returns (outcome, summary)."""
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=reports, run_id=run_id, **options))
    assert not outcome.missing and not outcome.failures, (outcome.missing, outcome.failures)
    return outcome, finish_outcome(outcome, record_mode="none").summary


def set_suite(project: Path, **changes) -> Suite:
    """Edit top-level keys of the project's suite file (thresholds, regression ...) and reload it."""
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    data.update(changes)
    project.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return load_suite(project)


# where latencies came from: measured when recording, recorded in a replay (and `latency.source`)
LATENCY_SOURCES = ("latency_from", "latency_source")


def strip_volatile(value, key: str = ""):
    """Everything but timings (keys ending in _s), created_at, and where latencies came from."""
    if isinstance(value, dict):
        return {k: strip_volatile(v, k) for k, v in value.items() if not k.endswith("_s") and k != "created_at"
                and k not in LATENCY_SOURCES and not (key == "latency" and k == "source")}
    if isinstance(value, list):
        return [strip_volatile(v) for v in value]
    return value


def summary_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))


def harness(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `harness ARGV` in-process; returns (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def worse_script(suite: Suite, base: Script) -> Script:
    """The same script, except that `tuned` answers as `default` does (a regression of tuned)."""
    from harness.run.plan import plan_variant

    from ..conftest import ANSWERS

    script = Script(rounds=dict(base.rounds))
    plan = plan_variant(suite, "tuned")
    for case in suite.cases:
        first_user = [m["content"] for m in plan.render(case) if m["role"] == "user"][0]
        script.rounds[first_user] = ANSWERS["default"][case.id]
    return script


PYTHON = sys.executable
