"""Which runs and baselines `harness view` finds, and what it skips."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.cli import main
from harness.viewer.scan import find_runs


def _copy(runs_project: Path, tmp_path: Path) -> Path:
    reports = tmp_path / "reports"
    shutil.copytree(runs_project / "reports", reports)
    return reports


def test_finds_finished_runs_oldest_first(runs_project, tmp_path):
    reports = _copy(runs_project, tmp_path)
    found = find_runs(reports)
    assert list(found.suites) == ["podcast"]
    assert [run.summary.run_id for run in found.suites["podcast"]] == ["r1", "r2"]
    assert found.baselines == {} and found.skipped == []


def test_unfinished_run_is_left_out_and_a_damaged_summary_skipped_with_its_reason(runs_project, tmp_path):
    reports = _copy(runs_project, tmp_path)
    unfinished = reports / "podcast" / "r3"
    shutil.copytree(reports / "podcast" / "r1", unfinished)
    (unfinished / "summary.json").unlink()
    (reports / "podcast" / "r2" / "summary.json").write_text("{\"suite\": 1}", encoding="utf-8")
    found = find_runs(reports)
    assert [run.summary.run_id for run in found.suites["podcast"]] == ["r1"]
    assert len(found.skipped) == 1
    path, reason = found.skipped[0]
    assert path.endswith("r2") and "summary" in reason


def test_baseline_of_a_suite_is_read(runs_project, tmp_path, capsys):
    reports = _copy(runs_project, tmp_path)
    assert main(["baseline", "update", str(reports / "podcast" / "r1")]) == 0
    capsys.readouterr()
    found = find_runs(reports)
    assert found.baselines["podcast"].run_id == "r1"


def test_stamp_changes_when_a_run_is_rewritten(runs_project, tmp_path):
    reports = _copy(runs_project, tmp_path)
    before = find_runs(reports).suites["podcast"][0].stamp
    summary = reports / "podcast" / "r1" / "summary.json"
    summary.write_text(summary.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert find_runs(reports).suites["podcast"][0].stamp != before
