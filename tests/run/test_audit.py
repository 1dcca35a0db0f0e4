"""`harness cassettes audit` matches cassettes by request hash, per variant and case, sending nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.run.audit import audit_suites
from harness.run.schedule import RunOptions, run_suite
from harness.suites import load_suite

from ..conftest import script_for
from ..support.fake_server import FakeOpenAIServer


def recorded(project: Path, tmp_path: Path, monkeypatch) -> None:
    suite = load_suite(project)
    with FakeOpenAIServer(script_for(suite)) as srv:
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec", base_url=srv.base_url))
    assert not outcome.missing and not outcome.failures
    monkeypatch.delenv("OPENAI_API_KEY")


def kinds(project: Path) -> set[tuple[str, str, str]]:
    return {(f.kind, Path(f.path).parent.name, Path(f.path).stem) for f in audit_suites([load_suite(project)])}


@pytest.mark.slow
def test_each_case_is_missing_stale_unused_or_fine(project, api_key, tmp_path, monkeypatch):
    recorded(project, tmp_path, monkeypatch)
    assert kinds(project) == set()
    folder = load_suite(project).cassette_dir()
    (folder / "default" / "flood.json").unlink()
    tuned = project.parent.parent / "prompts" / "tuned.txt"
    tuned.write_text(tuned.read_text(encoding="utf-8") + "\nBe brief.\n", encoding="utf-8")
    fair = folder / "default" / "fair.json"
    data = json.loads(fair.read_text(encoding="utf-8"))
    extra = json.loads(json.dumps(data["interactions"][0]))
    extra["request"]["body"]["json"]["messages"][-1]["content"] += " (an older prompt)"
    data["interactions"].append(extra)
    fair.write_text(json.dumps(data), encoding="utf-8")
    assert kinds(project) == {
        ("missing", "default", "flood"),
        ("unused", "default", "fair"),
        ("stale", "tuned", "mayor"), ("stale", "tuned", "flood"), ("stale", "tuned", "fair"),
    }


def test_a_gleaning_round_that_was_not_recorded_makes_the_cassette_stale(project, api_key, tmp_path, monkeypatch):
    """The follow-up requests are built from the recorded answers, as the runner builds them."""
    recorded(project, tmp_path, monkeypatch)
    mayor = load_suite(project).cassette_dir() / "default" / "mayor.json"
    data = json.loads(mayor.read_text(encoding="utf-8"))
    assert len(data["interactions"]) == 2  # the extraction and one gleaning (max_gleanings: 1)
    data["interactions"] = data["interactions"][:1]
    mayor.write_text(json.dumps(data), encoding="utf-8")
    assert kinds(project) == {("stale", "default", "mayor")}


@pytest.mark.slow
def test_the_audit_writes_no_run_folder(project, api_key, tmp_path, monkeypatch):
    recorded(project, tmp_path, monkeypatch)
    before = sorted(p for p in project.parent.parent.rglob("*"))
    assert audit_suites([load_suite(project)]) == []
    assert sorted(p for p in project.parent.parent.rglob("*")) == before
