"""The finish step: one summary, one verdict, one set of files, summary.json last."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.finish import compare_to_baseline, finish_outcome, finish_run, refinish
from harness.runfolder import GATE, SUMMARY, read_summary
from harness.run.schedule import RunOptions, run_suite

from .reports.helpers import harness, record_cassettes, set_suite


@pytest.fixture
def recorded(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    return suite


def _replayed(suite, reports: Path, run_id: str):
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=reports, run_id=run_id))
    assert not outcome.missing and not outcome.failures
    return outcome


def test_one_finish_writes_every_file_and_summary_last(recorded, tmp_path):
    outcome = _replayed(recorded, tmp_path / "reports", "r")
    finished = finish_outcome(outcome, record_mode="none")
    names = [p.relative_to(outcome.run_dir).as_posix() for p in finished.paths]
    assert names[-1] == SUMMARY and names[-2] == GATE
    assert {"report.md", "report.html", "junit.xml"} <= set(names) and any(n.startswith("plots/") for n in names)
    assert all(p.exists() for p in finished.paths)
    mtimes = [os.stat(p).st_mtime_ns for p in finished.paths]
    assert max(mtimes) == mtimes[-1]
    # what the caller holds is what is on disk: nobody needs to read it back
    assert json.loads((outcome.run_dir / GATE).read_text()) == finished.verdict.to_json()
    assert read_summary(outcome.run_dir).to_json() == finished.summary.to_json()
    assert set(finished.checks) == {(r.variant, r.case_id) for r in outcome.results}
    assert finished.summary.gate_config is not None
    # comparisons are computed here, once, against the baseline variant
    assert list(finished.summary.comparisons) == ["tuned"] == list(compare_to_baseline(recorded, outcome.results))


def test_without_the_baseline_variant_there_is_nothing_to_compare(recorded, tmp_path):
    outcome = run_suite(recorded, RunOptions(record_mode="none", reports_dir=tmp_path / "reports", run_id="t",
                                             variants=["tuned"]))
    assert compare_to_baseline(recorded, outcome.results) == {}
    assert finish_outcome(outcome, record_mode="none").summary.comparisons == {}


def test_refinish_without_reports_writes_only_the_verdict(recorded, tmp_path):
    outcome = _replayed(recorded, tmp_path / "reports", "r")
    first = finish_outcome(outcome, record_mode="none")
    (outcome.run_dir / "report.md").unlink()
    again = refinish(outcome.run_dir, first.summary, outcome.results, reports=False)
    assert [p.name for p in again.paths] == [GATE]
    assert not (outcome.run_dir / "report.md").exists()
    assert again.verdict == first.verdict and again.checks == first.checks


@pytest.mark.slow
def test_an_unreadable_default_baseline_is_a_note_for_reports_and_bad_input_for_the_gate(recorded, tmp_path):
    reports = tmp_path / "reports"
    (reports / "baselines").mkdir(parents=True)
    (reports / "baselines" / "towns.json").write_text("{nope", encoding="utf-8")
    outcome = _replayed(recorded, reports, "r")
    finished = finish_outcome(outcome, record_mode="none")
    assert (outcome.run_dir / SUMMARY).exists()  # the run is finished all the same
    assert any("baseline not used" in note for note in finished.verdict.notes)
    with pytest.raises(InputError, match="towns.json: not JSON"):
        finished.gate_exit_code()


@pytest.mark.slow
def test_an_unreadable_given_baseline_stops_a_merge_but_not_a_run(recorded, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1]", encoding="utf-8")
    outcome = _replayed(recorded, tmp_path / "reports", "r")
    with pytest.raises(InputError, match="not a baseline file"):
        finish_run(recorded, outcome.run_dir, outcome.results, record_mode="none", wall_s=0.0,
                   entity_types=outcome.entity_types, baseline=bad)
    assert not (outcome.run_dir / SUMMARY).exists()
    finished = finish_outcome(outcome, record_mode="none", baseline=bad)
    assert (outcome.run_dir / SUMMARY).exists()
    with pytest.raises(InputError, match="not a baseline file"):
        finished.gate_exit_code()


@pytest.mark.slow
def test_run_gate_prints_the_verdict_it_wrote(recorded, project, tmp_path, capsys):
    set_suite(project, thresholds={"relationship_recall": 0.9})
    code, out, _ = harness(capsys, "run", str(project), "--reports", str(tmp_path / "reports"), "--run-id", "g",
                           "--gate")
    assert code == 1
    gate = json.loads((tmp_path / "reports" / "towns" / "g" / GATE).read_text())
    failed = [r for r in gate["rules"] if r["status"] == "fail"]
    assert f"gate: FAIL — {len(failed)} rule(s) failed: {failed[0]['variant']}: {failed[0]['message']}" in out


def test_the_summary_is_handed_its_comparisons_and_computes_none() -> None:
    import ast

    source = (Path(__file__).resolve().parents[1] / "harness" / "summary.py").read_text(encoding="utf-8")
    imported = {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
    assert not any(name and name.endswith("compare") for name in imported)


@pytest.mark.slow
def test_the_finish_hands_frozen_objects_back_and_leaves_a_callers_freeze_alone(recorded, tmp_path, monkeypatch):
    import gc

    import harness.finish as finish_module

    seen: list[int] = []
    summarize = finish_module.summarize

    def watching(*args, **kwargs):
        seen.append(gc.get_freeze_count())
        return summarize(*args, **kwargs)

    monkeypatch.setattr(finish_module, "summarize", watching)
    assert gc.get_freeze_count() == 0
    finish_outcome(_replayed(recorded, tmp_path / "a", "r"), record_mode="none")
    assert seen[-1] > 0 and gc.get_freeze_count() == 0  # frozen while finishing, handed back after
    gc.freeze()
    try:
        finish_outcome(_replayed(recorded, tmp_path / "b", "r"), record_mode="none")
        assert gc.get_freeze_count() > 0  # the caller's freeze stays (unfreezing would empty it)
    finally:
        gc.unfreeze()


def test_every_case_diff_goes_to_its_file_and_the_summary_keeps_the_worst_regressions(recorded, tmp_path):
    from harness.runfolder import CASE_DIFFS, read_case_diffs

    outcome = _replayed(recorded, tmp_path / "reports", "r")
    full = compare_to_baseline(recorded, outcome.results)["tuned"]
    finished = finish_outcome(outcome, record_mode="none")
    names = [p.relative_to(outcome.run_dir).as_posix() for p in finished.paths]
    assert (outcome.run_dir / CASE_DIFFS).exists() and CASE_DIFFS not in names[-1:]
    written = json.loads((outcome.run_dir / SUMMARY).read_text(encoding="utf-8"))
    assert written["schema_version"] == 2
    comparison = written["comparisons"]["tuned"]
    assert comparison["case_diffs_file"] == CASE_DIFFS
    worst = [w["case_id"] for w in comparison["worst_regressions"]]
    assert [d["case_id"] for d in comparison["case_diffs"]] == [d.case_id for d in full.case_diffs if d.case_id in worst]
    summary = read_summary(outcome.run_dir)
    assert [d.model_dump() for d in read_case_diffs(outcome.run_dir, summary, "tuned")] == \
        [d.model_dump() for d in full.case_diffs]


def test_summary_json_does_not_grow_with_the_cases(tmp_path):
    """Five times the cases (the shipped podcast run's rows, copied under new ids): summary.json
    keeps its size but for the worst regressions' diffs, at most 10 a comparison (a version 1
    summary grew with every paired case); case_diffs.jsonl holds every paired case."""
    import shutil

    from harness.model import CaseResult
    from harness.runfolder import CASE_DIFFS, read_rows
    from harness.suites import load_suite

    source = Path(__file__).resolve().parent / "fixtures" / "summary_v1" / "podcast" / "golden"
    rows = read_rows(source)
    suite = load_suite(Path(__file__).resolve().parents[1] / "suites" / "podcast.yaml")
    sizes = {}
    for copies in (1, 5):
        run_dir = tmp_path / f"x{copies}" / "podcast" / "r"
        run_dir.mkdir(parents=True)
        shutil.copy(source / "results.jsonl", run_dir / "results.jsonl")
        copied: list[CaseResult] = [r.model_copy(update={"case_id": f"{r.case_id}-{k:02d}"})
                                    for r in rows for k in range(copies)]
        copied.sort(key=lambda r: [*suite.variant_names()].index(r.variant))
        finish_run(suite, run_dir, copied, record_mode="none", wall_s=0.0, entity_types={})
        diffs = (run_dir / CASE_DIFFS).read_text(encoding="utf-8").splitlines()
        assert len(diffs) == 2 * 12 * copies  # two compared variants, every paired case
        written = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))
        for comparison in written["comparisons"].values():
            assert len(comparison["case_diffs"]) == len(comparison["worst_regressions"]) <= 10
            comparison["case_diffs"] = comparison["worst_regressions"] = []
        sizes[copies] = len(json.dumps(written))
    assert sizes[5] < sizes[1] * 1.02, sizes
