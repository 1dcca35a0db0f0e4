"""Run folders under concurrency and after kill -9: real processes against the local server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .support.fake_server import FakeOpenAIServer, Faults
from harness.runfolder import RunLock, claim_new_dir, open_run_folder, selection_of
from harness.errors import InputError
from harness.suites import load_suite

from .conftest import SECRET, script_for
from .reports.helpers import harness, record_cassettes, replay, strip_volatile
from .run.test_schedule import rows_of


def _harness(*argv: str) -> list[str]:
    return [sys.executable, "-m", "harness.cli", *argv]


def _runs(reports: Path) -> list[Path]:
    return sorted(d for d in (reports / "towns").iterdir() if d.is_dir()) if (reports / "towns").is_dir() else []


def _row_keys(run_dir: Path) -> list[tuple[str, str]]:
    return [(r["variant"], r["case_id"]) for r in rows_of(run_dir)]


# --------------------------------------------------------------------------- claiming and locking


def test_claimed_folders_are_distinct(tmp_path):
    taken = [claim_new_dir(tmp_path, "same") for _ in range(4)]
    assert [p.name for p in taken] == ["same", "same-2", "same-3", "same-4"]


def test_a_locked_run_is_not_resumed_and_an_explicit_one_is_refused(tmp_path):
    selection = selection_of(["default"], ["mayor"])
    first = open_run_folder(tmp_path, "towns", selection)
    (first.path / "results.jsonl").write_text("")  # unfinished
    try:
        second = open_run_folder(tmp_path, "towns", selection)  # the same selection, but `first` writes it
        assert second.path != first.path and not second.resumed
        second.lock.release()
        with pytest.raises(InputError, match="another harness process is writing"):
            open_run_folder(tmp_path, "towns", selection, run_id=first.path.name)
    finally:
        first.lock.release()
    third = open_run_folder(tmp_path, "towns", selection)  # released (as by a killed process): resumed
    assert third.path == first.path and third.resumed
    third.lock.release()


def test_lock_is_dropped_when_the_holder_is_killed(tmp_path):
    code = ("import sys, time; from pathlib import Path; from harness.runfolder import RunLock; "
            "assert RunLock(Path(sys.argv[1])).acquire(); print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert not RunLock(tmp_path).acquire()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    lock = RunLock(tmp_path)
    assert lock.acquire()
    lock.release()


# --------------------------------------------------------------------------- concurrent runs


@pytest.fixture
def recorded(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    return suite


@pytest.mark.parametrize("pair", [("default", "tuned"), ("tuned", "default"), ("default", "tuned"),
                                  ("tuned", "tuned")])
@pytest.mark.slow
def test_concurrent_runs_never_share_a_folder(recorded, project, tmp_path, pair):
    """Two `harness run` of one suite started together (same second), each with its --variant."""
    reports = tmp_path / "reports"
    env = {**os.environ, "CI": "true"}
    procs = [subprocess.Popen(_harness("run", str(project), "--variant", v, "--reports", str(reports)),
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for v in pair]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    runs = _runs(reports)
    assert len(runs) == 2, runs
    ids = [c.id for c in recorded.cases]
    got = sorted(tuple(_row_keys(d)) for d in runs)
    assert got == sorted(tuple((v, c) for c in ids) for v in pair)
    for d in runs:
        summary = json.loads((d / "summary.json").read_text())
        assert summary["run_id"] == d.name and set(summary["variants"]) == {_row_keys(d)[0][0]}


@pytest.mark.slow
def test_a_run_stays_locked_until_its_outputs_are_written(recorded, tmp_path):
    """Between the last row and summary.json (the reports take a while) nobody may resume the run."""
    from harness.finish import finish_outcome
    from harness.run.schedule import RunOptions, run_suite

    reports = tmp_path / "held"
    outcome = run_suite(recorded, RunOptions(reports_dir=reports, hold_lock=True))
    selection = selection_of(recorded.variant_names(), [c.id for c in recorded.cases])
    try:
        other = open_run_folder(reports, "towns", selection)
        assert other.path != outcome.run_dir
        other.lock.release()
        finish_outcome(outcome, record_mode="none").summary
    finally:
        outcome.release()
    assert (outcome.run_dir / "summary.json").exists()


# --------------------------------------------------------------------------- kill -9, then another selection


def _start_killed_run(project: Path, reports: Path, srv: FakeOpenAIServer, env: dict) -> Path:
    """A `harness record` of the whole suite, killed with SIGKILL after two rows; returns its folder."""
    cmd = _harness("record", str(project), "--base-url", srv.base_url, "--concurrency", "1", "--reports", str(reports))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    killed = None
    while time.monotonic() < deadline:
        for run in _runs(reports):
            results = run / "results.jsonl"
            if results.exists() and len(results.read_text().splitlines()) >= 2:
                killed = run
        if killed:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert killed is not None, "the run wrote no rows before the deadline"
    return killed


@pytest.mark.slow
def test_rerun_with_another_selection_leaves_a_killed_run_alone(project, api_key, tmp_path):
    suite = load_suite(project)
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    reports = tmp_path / "reports"
    with FakeOpenAIServer(script_for(suite), Faults(latency_s=0.3)) as srv:
        killed = _start_killed_run(project, reports, srv, env)
        partial = (killed / "results.jsonl").read_bytes()
        assert 2 <= len(partial.splitlines()) < 6 and not (killed / "summary.json").exists()

        for other in (["--case", "mayor"], ["--variant", "tuned"]):
            done = subprocess.run(_harness("record", str(project), "--base-url", srv.base_url, "--reports",
                                           str(reports), *other), env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
            assert f"not resuming {killed}" in done.stderr and "another selection" in done.stderr
            assert (killed / "results.jsonl").read_bytes() == partial  # untouched
            assert not (killed / "summary.json").exists()
        # an explicit --run-id of the killed run with another selection is refused, not rewritten
        done = subprocess.run(_harness("record", str(project), "--base-url", srv.base_url, "--reports", str(reports),
                                       "--run-id", killed.name, "--case", "fair"),
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and "another selection" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert (killed / "results.jsonl").read_bytes() == partial

        # the same selection resumes the killed run
        done = subprocess.run(_harness("record", str(project), "--base-url", srv.base_url, "--reports", str(reports)),
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert str(killed) in done.stdout.replace("\n", "")
    assert (killed / "summary.json").exists() and len(_runs(reports)) == 3
    # ... to the results of an uninterrupted run
    fresh, _ = replay(load_suite(project), tmp_path / "fresh", "uninterrupted")
    assert rows_of(killed) == rows_of(fresh.run_dir)
    assert strip_volatile(json.loads((killed / "summary.json").read_text()))["variants"] == \
        strip_volatile(json.loads((fresh.run_dir / "summary.json").read_text()))["variants"]


# --------------------------------------------------------------------------- --run-id with several suites

@pytest.mark.slow
def test_run_id_names_the_run_of_every_suite(suite, server, api_key, project, tmp_path, capsys):
    import yaml

    data = yaml.safe_load(project.read_text())
    data["name"] = "villages"
    other = project.with_name("villages.yaml")
    other.write_text(yaml.safe_dump(data, sort_keys=False))
    code, _, err = harness(capsys, "record", str(project), str(other), "--base-url", server.base_url,
                           "--reports", str(tmp_path / "r"), "--run-id", "nightly")
    assert code == 0, err
    for name in ("towns", "villages"):
        assert json.loads((tmp_path / "r" / name / "nightly" / "summary.json").read_text())["run_id"] == "nightly"
    # the same file twice runs once
    code, out, err = harness(capsys, "record", str(project), str(project), "--base-url", server.base_url,
                             "--reports", str(tmp_path / "r3"), "--run-id", "twice")
    assert code == 0, err
    assert out.count("reports: ") == 1 and (tmp_path / "r3" / "towns" / "twice" / "summary.json").exists()
    # two files of one suite name would share reports/<suite>/<run-id>/: refused before any call
    twin = project.with_name("twin.yaml")
    twin.write_text(project.read_text())
    calls = server.calls
    code, _, err = harness(capsys, "record", str(project), str(twin), "--base-url", server.base_url,
                           "--reports", str(tmp_path / "r2"))
    assert code == 2 and "towns" in err and len(err.strip().splitlines()) == 1
    assert server.calls == calls and not (tmp_path / "r2").exists()


# --------------------------------------------------------------------------- results and baseline files


def _row(variant: str, case_id: str):
    from harness.model import CaseResult

    return CaseResult(suite="s", variant=variant, case_id=case_id, latency_s=0.25)


def test_results_round_trip_and_a_torn_last_line_is_ignored(tmp_path):
    from harness.runfolder import RESULTS, read_results, write_results

    path = tmp_path / RESULTS
    assert read_results(path) == []  # no file yet: nothing done
    rows = [_row("v", "a"), _row("v", "b"), _row("w", "a")]
    write_results(path, rows)
    assert read_results(path) == rows
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"suite": "s", "variant": "v", "case_')  # killed while writing
    assert read_results(path) == rows


def test_damaged_or_duplicate_rows_are_refused_with_the_line(tmp_path):
    from harness.runfolder import read_results, write_results

    path = tmp_path / "results.jsonl"
    write_results(path, [_row("v", "a"), _row("v", "a"), _row("v", "b")])
    with pytest.raises(InputError, match=r"results.jsonl:2: case 'a' of variant 'v' appears twice"):
        read_results(path)
    path.write_text('{"nope": 1}\n' + _row("v", "a").model_dump_json() + "\n\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"results.jsonl:1: not a result row"):
        read_results(path)


def test_baselines_live_beside_the_suites_run_folders(tmp_path):
    from harness.runfolder import default_baseline_path

    run_dir = tmp_path / "reports" / "biomed" / "20250101T000000"
    assert default_baseline_path(run_dir, "biomed") == (tmp_path / "reports" / "baselines" / "biomed.json").resolve()


# --------------------------------------------------------------------------- results written as cases finish


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_results_writer_ends_with_the_file_write_results_writes_in_suite_order(tmp_path_factory, data):
    """Kept rows first, then rows in whatever order their cases finish: the finished file is the
    one `write_results` writes from the rows sorted by place (copied line by line, not re-serialised)."""
    from harness.runfolder import ResultsWriter, read_results, write_results

    folder = tmp_path_factory.mktemp("writer")
    count = data.draw(st.integers(0, 12))
    # case ids of 1 to 3 bytes a character: the copy counts bytes, not characters
    rows = {place: _row(f"v{place % 3}", data.draw(st.text(min_size=1, max_size=6)) + f"-{place}")
            for place in range(count)}
    kept = sorted(data.draw(st.sets(st.sampled_from(range(count)))) if count else set())
    finishing = data.draw(st.permutations([place for place in range(count) if place not in kept]))
    path = folder / "results.jsonl"
    path.write_text("an interrupted run's file, replaced by the kept rows\n", encoding="utf-8")
    writer = ResultsWriter(path, [(place, rows[place].model_dump_json()) for place in kept])
    assert read_results(path) == [rows[place] for place in kept]  # on disk before any new row
    for place in finishing:
        writer.append(place, rows[place].model_dump_json())
    writer.finish()
    expected = folder / "expected.jsonl"
    write_results(expected, [rows[place] for place in sorted(rows)])
    assert path.read_bytes() == expected.read_bytes()


def test_results_writer_leaves_a_file_in_suite_order_alone(tmp_path):
    from harness.runfolder import ResultsWriter

    path = tmp_path / "results.jsonl"
    writer = ResultsWriter(path, [(0, _row("v", "a").model_dump_json())])
    writer.append(1, _row("v", "b").model_dump_json())
    inode = path.stat().st_ino
    writer.finish()
    assert path.stat().st_ino == inode  # not rewritten: every row already followed the one before
    writer = ResultsWriter(path, [])
    writer.append(1, _row("v", "b").model_dump_json())
    writer.append(0, _row("v", "a").model_dump_json())
    inode = path.stat().st_ino
    writer.finish()
    assert path.stat().st_ino != inode  # rewritten (atomically) in suite order
    assert [json.loads(line)["case_id"] for line in path.read_text().splitlines()] == ["a", "b"]


def test_results_writer_appends_rows_scrubbed_and_still_reorders_them_byte_for_byte(tmp_path, monkeypatch):
    """A row is scrubbed before its size is kept (issue 28): the final reordering copies the
    lines that are on disk, so a key (longer than its mark) cannot shift them."""
    from harness.runfolder import ResultsWriter, read_results

    key = "sk-rows-" + "Jd8Ks2Lq5Wm9Xn3Bv7Cz" * 3
    monkeypatch.setenv("OPENAI_API_KEY", key)
    path = tmp_path / "results.jsonl"
    writer = ResultsWriter(path, [(2, _row("v", f"c-{key}").model_dump_json())])
    writer.append(1, _row("v", "b").model_dump_json())
    writer.append(0, _row("v", f"a-{key[:30]}").model_dump_json())
    writer.finish()
    assert key[:16] not in path.read_text(encoding="utf-8")
    assert [r.case_id for r in read_results(path)] == ["a-[REDACTED]", "b", "c-[REDACTED]"]


def test_a_finished_runs_torn_last_row_is_damage(tmp_path):
    """Issue 28 item 22: a torn last row is a killed run's only while the run is unfinished; in a
    finished run (summary.json written) it is a damaged file, and merge took it as one row fewer."""
    from harness.runfolder import RESULTS, SUMMARY, read_results, read_rows, write_results

    rows = [_row("v", "a"), _row("v", "b")]
    write_results(tmp_path / RESULTS, rows)
    with (tmp_path / RESULTS).open("a", encoding="utf-8") as fh:
        fh.write('{"suite": "s", "variant": "w", "case_')
    assert read_rows(tmp_path) == rows  # unfinished: the row being written when it was killed
    (tmp_path / SUMMARY).write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match=r"results.jsonl:3: not a result row"):
        read_rows(tmp_path)
    assert read_results(tmp_path / RESULTS) == rows  # resuming reads it as before


@pytest.mark.parametrize("link", ["reports", "reports/towns", "reports/towns/r1"])
def test_a_run_folder_linked_out_of_the_project_is_refused(tmp_path, monkeypatch, link):
    """Issue 28 item 5: a planted link sent the run (rows, lock, reports) outside the project."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / link).parent.mkdir(parents=True)
    outside.mkdir()
    (project / link).symlink_to(outside)
    monkeypatch.chdir(project)
    for run_id in ("r1", None) if link != "reports/towns/r1" else ("r1",):
        with pytest.raises(InputError, match="is a link to .*outside the project folder"):
            open_run_folder(Path("reports"), "towns", selection_of(["v"], ["a"]), run_id=run_id)
    assert list(outside.iterdir()) == []


def test_a_planted_lock_link_creates_nothing_outside(tmp_path, monkeypatch):
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "reports" / "towns" / "r1").mkdir(parents=True)
    outside.mkdir()
    (project / "reports" / "towns" / "r1" / ".lock").symlink_to(outside / "created")
    monkeypatch.chdir(project)
    with pytest.raises(InputError, match=r"\.lock: is a link"):
        open_run_folder(Path("reports"), "towns", selection_of(["v"], ["a"]), run_id="r1")
    assert list(outside.iterdir()) == []


def test_provenance_is_written_for_a_new_run_and_kept_for_a_resumed_one(tmp_path, monkeypatch):
    from harness.runfolder import PROVENANCE, read_commit

    monkeypatch.setattr("harness.provenance.source_commit", lambda folder: "a" * 40)
    first = open_run_folder(tmp_path, "s", selection_of(["v"], ["c"]))
    first.lock.release()
    assert read_commit(first.path) == "a" * 40
    (first.path / "results.jsonl").write_text("", encoding="utf-8")  # rows, no summary: unfinished
    monkeypatch.setattr("harness.provenance.source_commit", lambda folder: "b" * 40)
    resumed = open_run_folder(tmp_path, "s", selection_of(["v"], ["c"]))
    resumed.lock.release()
    assert resumed.resumed and resumed.path == first.path
    assert read_commit(resumed.path) == "a" * 40  # the commit the run was started at
    again = open_run_folder(tmp_path, "s", selection_of(["v"], ["c"]), run_id=first.path.name, fresh=True)
    again.lock.release()
    assert read_commit(again.path) == "b" * 40  # started over
    (again.path / PROVENANCE).write_text('{"commit": "<script>"}', encoding="utf-8")
    assert read_commit(again.path) is None
    (again.path / PROVENANCE).write_text("[1", encoding="utf-8")
    assert read_commit(again.path) is None


# --------------------------------------------------------------------------- case diffs (summary schema 2)

V1_RUN = Path(__file__).resolve().parent / "fixtures" / "summary_v1" / "podcast" / "golden"


def _v1_run(tmp_path: Path) -> Path:
    import shutil

    run_dir = tmp_path / "reports" / "podcast" / "golden"
    shutil.copytree(V1_RUN, run_dir)
    return run_dir


def test_case_diffs_move_to_their_file_and_read_back_as_a_version_1_summary_held_them(tmp_path: Path) -> None:
    from harness.runfolder import CASE_DIFFS, bound_comparisons, read_case_diffs, read_summary

    run_dir = _v1_run(tmp_path)
    old = read_summary(run_dir)
    assert old.schema_version == 1 and all(c.case_diffs_file is None for c in old.comparisons.values())
    inline = {v: [d.model_dump() for d in read_case_diffs(run_dir, old, v)] for v in old.comparisons}
    assert {v: len(d) for v, d in inline.items()} == {"tuned": 12, "auto": 12}

    bounded = bound_comparisons(run_dir, old.comparisons)
    lines = (run_dir / CASE_DIFFS).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["variant"] for line in lines] == ["tuned"] * 12 + ["auto"] * 12
    new = old.model_copy(update={"comparisons": bounded, "schema_version": 2})
    for variant, comparison in new.comparisons.items():
        # summary.json keeps the worst regressions' diffs only, in the same order as before
        worst = [w.case_id for w in comparison.worst_regressions]
        assert [d.case_id for d in comparison.case_diffs] == [d.case_id for d in old.comparisons[variant].case_diffs
                                                              if d.case_id in worst]
        assert comparison.case_diffs_file == CASE_DIFFS
        assert [d.model_dump() for d in read_case_diffs(run_dir, new, variant)] == inline[variant]
    assert list(read_case_diffs(run_dir, new, "default")) == []  # the baseline variant is compared with nothing
    assert bound_comparisons(run_dir, {}) == {} and not (run_dir / CASE_DIFFS).exists()


@pytest.mark.parametrize("damage, message", [
    ("name", "case_diffs_file: not a file name of the run folder"),
    ("missing", "case_diffs.jsonl: missing"),
    ("line", "case_diffs.jsonl:2: not a JSON line"),
    ("value", "case_diffs.jsonl:1: not a valid case diff: a: "),
])
def test_a_damaged_case_diffs_file_is_one_line_naming_it(tmp_path: Path, damage: str, message: str) -> None:
    from harness.runfolder import CASE_DIFFS, bound_comparisons, read_case_diffs, read_summary

    run_dir = _v1_run(tmp_path)
    old = read_summary(run_dir)
    summary = old.model_copy(update={"comparisons": bound_comparisons(run_dir, old.comparisons)})
    path = run_dir / CASE_DIFFS
    lines = path.read_text(encoding="utf-8").splitlines()
    if damage == "name":
        summary.comparisons["tuned"].case_diffs_file = "../podcast.json"
    elif damage == "missing":
        path.unlink()
    elif damage == "line":
        path.write_text(lines[0] + "\n{torn\n", encoding="utf-8")
    else:
        path.write_text(json.dumps({**json.loads(lines[0]), "a": "high"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        list(read_case_diffs(run_dir, summary, "tuned"))
    assert message in error.value.message
