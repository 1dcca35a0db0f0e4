"""Names that become paths (run ids, suite names from files, case ids) cannot leave their folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.names import check_name, is_safe_name
from harness.suites import load_suite

from .reports.helpers import harness, record_cassettes, replay


@pytest.mark.parametrize("value", ["a", "run-1", "2026.11.23_x", "A" * 128])
def test_safe_names(value):
    assert is_safe_name(value) and check_name(value, "--run-id", "run id") == value


@pytest.mark.parametrize("value", ["..", ".", "../../x", "/abs/path", "a/b", ".hidden", "-x", "", "x\n", "x\n\n",
                                   "a\\b", "A" * 129, "ü", "a b", None, 5])
def test_unsafe_names(value):
    assert not is_safe_name(value)
    with pytest.raises(InputError) as info:
        check_name(value, "--run-id", "run id")
    assert "\n" not in info.value.message and len(info.value.message) < 300


def test_case_id_with_a_trailing_newline_is_rejected(project):
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    data["cases"][0]["id"] = "mayor\n"
    project.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(InputError, match="case ids"):
        load_suite(project)


def _outside(tmp_path: Path, reports: Path) -> list[Path]:
    """Every file written under tmp_path but outside the reports folder, the suite and its cassettes."""
    keep = (reports, tmp_path / "suites", tmp_path / "prompts", tmp_path / "fixtures")
    return [p for p in tmp_path.rglob("*") if p.is_file() and not any(p.is_relative_to(k) for k in keep)]


@pytest.mark.parametrize("run_id", ["../../x", "..", "ABS", "a/b", "x" * 300, ".hidden"])
@pytest.mark.parametrize("command", ["run", "record"])
def test_run_id_cannot_leave_the_reports_folder(project, capsys, tmp_path, run_id, command):
    run_id = str(tmp_path / "elsewhere") if run_id == "ABS" else run_id
    reports = tmp_path / "reports"
    code, _, err = harness(capsys, command, str(project), "--reports", str(reports), "--run-id", run_id,
                           "--record-mode", "none")
    assert code == 2, err
    assert err.startswith("harness: --run-id:") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert not (tmp_path / "elsewhere").exists() and _outside(tmp_path, reports) == []
    assert not reports.exists()  # refused before anything is written


def test_merge_run_id_is_checked(project, capsys, tmp_path):
    code, _, err = harness(capsys, "merge", str(tmp_path / "a"), "--run-id", "../../merged")
    assert code == 2 and "--run-id" in err


@pytest.fixture
def finished(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    outcome, _ = replay(suite, tmp_path / "reports", "good")
    return outcome.run_dir


@pytest.mark.parametrize("key,value", [("suite", "../../../escaped"), ("suite", "/tmp/x"),
                                       ("run_id", "../../../escaped"), ("suite", "towns\n")])
@pytest.mark.slow
def test_tampered_summary_names_are_refused(finished, capsys, tmp_path, key, value):
    path = finished / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    summary[key] = value
    path.write_text(json.dumps(summary), encoding="utf-8")
    for argv in (["baseline", "update", str(finished)], ["report", str(finished), "--against", str(finished)]):
        code, _, err = harness(capsys, *argv)
        assert code == 2, (argv, err)
        assert str(path) in err and f"`{key}`" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.rglob("escaped*")) and not (tmp_path / "reports" / "baselines").exists()
    assert not list(finished.glob("compare-*"))
