"""The shipped example suites replay offline, and their cassettes hold exactly the team's hand-written answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.artifacts import RunSummary, Verdict
from harness.model import CaseResult
from harness.gate import judge, gate_config
from harness.run.schedule import RunOptions, run_suite
from harness.suites import load_suite
from harness.finish import summarize

from .conftest import REPO


def evaluate(summary: RunSummary, rows: list[CaseResult], **options: Any) -> Verdict:
    """The verdict alone, as `harness run --gate` gets it from `judge`."""
    return judge(summary, rows, **options).verdict


SUITES = sorted((REPO / "suites").glob("*.yaml"))


@pytest.mark.parametrize("path", SUITES, ids=[p.stem for p in SUITES])
def test_shipped_suite_replays_the_hand_written_answers(path: Path, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = load_suite(path)
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path))
    assert outcome.missing == [] and outcome.failures == []
    assert len(outcome.results) == len(suite.cases) * len(suite.variant_names())
    for row in outcome.results:
        answers = yaml.safe_load((REPO / "fixtures" / "responses" / suite.name / row.variant / f"{row.case_id}.yaml").read_text())
        assert [r.output for r in row.rounds if r.kind != "loop"] == [str(a) for a in answers["rounds"]]
        assert row.score is not None


@pytest.mark.parametrize("path", SUITES, ids=[p.stem for p in SUITES])
def test_every_hand_written_answer_says_so(path: Path):
    suite = load_suite(path)
    folder = REPO / "fixtures" / "responses" / suite.name
    files = sorted(f for variant in suite.variant_names() for f in (folder / variant).glob("*.yaml"))
    assert len(files) == len(suite.cases) * len(suite.variant_names())
    tuning = sorted((folder / "tune").glob("*.yaml"))  # answers to `harness tune`, see scripts/record_tuning.py
    for file in files + tuning:
        assert "Hand-written" in file.read_text(encoding="utf-8").splitlines()[0], file


def test_the_auto_tuned_podcast_variant_is_flagged_for_the_cases_it_shows(tmp_path, monkeypatch):
    """`auto` was tuned from the suite's own chunks: three of them are its few-shot examples."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = load_suite(REPO / "suites" / "podcast.yaml")
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path))
    shown = {(r.variant, r.case_id) for r in outcome.results if r.in_prompt_examples}
    # Stated here, not read from auto.tuning.json (which `harness tune` wrote): the three chunks
    # whose text stands in prompts/podcast/auto.yaml's examples, as the README shows them.
    expected = {"headset-launch", "host-welcomes-guest", "series-a-funding"}
    assert shown == {("auto", case) for case in expected}
    tuning = json.loads((REPO / "prompts" / "podcast" / "auto.tuning.json").read_text())
    assert set(tuning["examples_kept"]) == expected  # and the tuning report agrees
    verdict = evaluate(summarize(suite, "t", outcome.results, record_mode="none", wall_s=0, entity_types=outcome.entity_types), outcome.results,
                       config=gate_config(suite))
    leak = [r for r in verdict.rules if r.rule == "leakage"]
    assert [(r.variant, r.status, r.value) for r in leak] == [("auto", "warn", 3.0)]
    assert "on the 9 others" in leak[0].message and verdict.status == "warn"
