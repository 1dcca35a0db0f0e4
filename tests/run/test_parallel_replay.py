"""Replay on forked workers (harness.run.parallel_replay): the same rows, bytes, order, missing
cassettes, failures and resumes as replaying in one process."""

from __future__ import annotations

import json
import os
import random
import types
from pathlib import Path

import pytest

import harness.run.parallel_replay as parallel_replay
import harness.run.schedule as schedule
from harness.errors import InputError
from harness.finish import finish_outcome
from harness.llm import client as client_module
from harness.runfolder import RunLock, read_results
from harness.run.schedule import RunOptions, RunOutcome, Unsettled, run_suite
from harness.suites import Suite

from ..reports.helpers import strip_volatile
from .test_schedule import rows_of

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool forks its workers")


@pytest.fixture
def recorded(suite: Suite, server, api_key, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Suite:
    """The towns project recorded with two samples a case (`--repeat 2`), replayed offline with
    a clock that stands still, so that every row's bytes repeat (latencies are 0)."""
    outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "recording",
                                          base_url=server.base_url, fresh=True, repeat=2))
    assert not outcome.missing and not outcome.failures
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setattr(client_module, "time", types.SimpleNamespace(perf_counter=lambda: 0.0))
    return suite


def replay(suite: Suite, reports: Path, workers: int, **options) -> RunOutcome:
    return run_suite(suite, RunOptions(record_mode="none", reports_dir=reports, run_id="r", workers=workers,
                                       **options))


def assert_same_run(here: RunOutcome, pooled: RunOutcome) -> None:
    """The same file, rows, counts, missing cassettes and failures; and the same outputs."""
    assert (pooled.run_dir / "results.jsonl").read_bytes() == (here.run_dir / "results.jsonl").read_bytes()
    assert [r.model_dump_json() for r in pooled.results] == [r.model_dump_json() for r in here.results]
    for name in ("resumed", "missing", "missing_repeats", "failures", "calls", "retries"):
        assert getattr(pooled, name) == getattr(here, name), name
    if not here.missing and not here.missing_repeats and not here.failures:
        summaries = [finish_outcome(o, record_mode="none").summary for o in (here, pooled)]
        assert strip_volatile(summaries[1].to_json()) == strip_volatile(summaries[0].to_json())
        for name in ("junit.xml", "gate.json"):
            assert (pooled.run_dir / name).read_bytes() == (here.run_dir / name).read_bytes(), name


@pytest.mark.slow
@pytest.mark.parametrize("repeat", [1, 2])
def test_the_pool_writes_the_bytes_one_process_writes(recorded, tmp_path, repeat):
    here = replay(recorded, tmp_path / "here", workers=1, repeat=repeat)
    pooled = replay(recorded, tmp_path / "pool", workers=2, repeat=repeat)
    assert len(here.results) == 2 * 3 * repeat and not here.notes
    assert_same_run(here, pooled)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rows_end_in_suite_order_whatever_order_the_batches_finish_in(recorded, tmp_path, monkeypatch, seed):
    cut = parallel_replay.batches

    def shuffled(items, workers):
        work = cut(items, workers)
        random.Random(seed).shuffle(work)
        return work

    monkeypatch.setattr(parallel_replay, "batches", shuffled)
    pooled = replay(recorded, tmp_path / "pool", workers=3, repeat=2)
    order = [(v, c.id, s) for v in recorded.variant_names() for c in recorded.cases for s in range(2)]
    assert [(r.variant, r.case_id, r.sample) for r in read_results(pooled.run_dir / "results.jsonl")] == order
    assert [(r.variant, r.case_id, r.sample) for r in pooled.results] == order


def test_missing_stale_and_unreadable_cassettes_come_out_as_in_one_process(recorded, tmp_path):
    cassettes = recorded.cassette_dir()
    (cassettes / "tuned" / "flood.json").unlink()
    (cassettes / "default" / "sample-1" / "mayor.json").unlink()
    stale = cassettes / "tuned" / "fair.json"
    data = json.loads(stale.read_text())
    data["interactions"][0]["request"]["body"]["json"]["messages"][0]["content"] += " (an older prompt)"
    stale.write_text(json.dumps(data))
    for sample in ("", "sample-1/"):  # answers that are no chat completion, more often than retried
        broken = cassettes / "default" / f"{sample}flood.json"
        data = json.loads(broken.read_text())
        first = data["interactions"][0]
        first["response"]["body"]["string"] = {"json": {"unexpected": True}}
        data["interactions"] = [first] * 20
        broken.write_text(json.dumps(data))
    here = replay(recorded, tmp_path / "here", workers=1, repeat=2)
    pooled = replay(recorded, tmp_path / "pool", workers=2, repeat=2)
    assert sorted(m.cassette for m in here.missing) == [("tuned", "fair", "stale"), ("tuned", "flood", "missing")]
    assert here.missing_repeats == [Unsettled("default", "mayor", "missing", 1)]
    assert [(f.variant, f.case_id, f.sample) for f in here.failures] == [("default", "flood", 0), ("default", "flood", 1)]
    assert len(here.results) == 2 * 3 * 2 - 5
    assert_same_run(here, pooled)


def test_an_interrupted_pooled_run_resumes_to_the_same_rows(recorded, tmp_path):
    whole = replay(recorded, tmp_path / "whole", workers=1, repeat=2)
    first = replay(recorded, tmp_path / "pool", workers=2, repeat=2)
    path = first.run_dir / "results.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    # killed part-way: rows in the order their cases finished, the last one torn
    path.write_text("".join([lines[7], lines[2], lines[10], lines[0]]) + lines[5][:50])
    again = replay(recorded, tmp_path / "pool", workers=2, repeat=2)
    assert again.run_dir == first.run_dir and again.resumed == 4
    assert path.read_bytes() == (whole.run_dir / "results.jsonl").read_bytes()
    assert [r.model_dump_json() for r in again.results] == [r.model_dump_json() for r in whole.results]


@pytest.mark.slow
def test_a_worker_that_dies_loses_no_row_and_repeats_none(recorded, tmp_path, monkeypatch):
    parent = os.getpid()
    evaluate = schedule.evaluate_case

    def dies_in_a_worker(suite, plan, case, *args, **kwargs):
        if os.getpid() != parent and case.id == "flood":
            os._exit(9)  # as the OOM killer would end it
        return evaluate(suite, plan, case, *args, **kwargs)

    monkeypatch.setattr(schedule, "evaluate_case", dies_in_a_worker)
    here = replay(recorded, tmp_path / "here", workers=1, repeat=2)
    pooled = replay(recorded, tmp_path / "pool", workers=2, repeat=2)
    assert pooled.notes == ["a replay worker process died; its cases were replayed in this process"]
    assert_same_run(here, pooled)


def test_an_error_in_a_worker_ends_the_run_and_frees_the_run_folder(recorded, tmp_path, monkeypatch):
    evaluate = schedule.evaluate_case

    def fails_on_fair(suite, plan, case, *args, **kwargs):
        if case.id == "fair":
            raise InputError("fair: no gold")
        return evaluate(suite, plan, case, *args, **kwargs)

    monkeypatch.setattr(schedule, "evaluate_case", fails_on_fair)
    with pytest.raises(InputError, match="fair: no gold"):
        replay(recorded, tmp_path / "pool", workers=2)
    lock = RunLock(tmp_path / "pool" / recorded.name / "r")
    assert lock.acquire()  # no worker kept the run folder's lock
    lock.release()
    assert parallel_replay._JOB is None


# --------------------------------------------------------------------------- how many workers


def test_worker_count_follows_the_setting_else_the_cpus_for_a_large_run(monkeypatch):
    monkeypatch.delenv(parallel_replay.WORKERS_ENV, raising=False)
    monkeypatch.setattr(parallel_replay, "usable_cpus", lambda: 4)
    large = parallel_replay.MIN_POOLED_ROWS
    assert parallel_replay.worker_count(None, large) == 4
    assert parallel_replay.worker_count(None, large - 1) == 0  # the pool would cost more than it saves
    assert parallel_replay.worker_count(3, 2) == 3  # asked for: whatever the size
    assert parallel_replay.worker_count(1, large) == parallel_replay.worker_count(0, large) == 0
    assert parallel_replay.worker_count(None, 0) == 0
    monkeypatch.setenv(parallel_replay.WORKERS_ENV, "2")
    assert parallel_replay.worker_count(None, 5) == 2
    assert parallel_replay.worker_count(1, 5) == 0  # --workers wins over the variable
    monkeypatch.setenv(parallel_replay.WORKERS_ENV, "many")
    with pytest.raises(InputError, match="HARNESS_WORKERS: 'many'"):
        parallel_replay.worker_count(None, 5)
    monkeypatch.setattr(parallel_replay, "usable_cpus", lambda: 1)
    monkeypatch.delenv(parallel_replay.WORKERS_ENV)
    assert parallel_replay.worker_count(None, 10 * large) == 0  # one CPU: nothing to share


def test_batches_keep_suite_order_and_cover_every_item_once():
    items = [(place, None) for place in range(1000)]
    work = parallel_replay.batches(items, 2)
    assert [item for batch in work for item in batch] == items
    assert len(work) >= 16 and max(len(batch) for batch in work) <= 64
    assert parallel_replay.batches([], 2) == []


def test_a_replayed_case_that_waits_is_refused():
    import asyncio

    async def answered():
        return 7

    async def waits():
        await asyncio.sleep(0)

    assert parallel_replay._finish_without_suspending(answered()) == 7
    with pytest.raises(RuntimeError, match="waited for I/O"):
        parallel_replay._finish_without_suspending(waits())


SLOW_POOLED_RUN = """
import sys, time
import harness.run.schedule as schedule
from harness.cli import main

evaluate = schedule.evaluate_case

def slowly(*args, **kwargs):
    time.sleep(0.3)
    return evaluate(*args, **kwargs)

schedule.evaluate_case = slowly
sys.exit(main(["run", sys.argv[1], "--reports", sys.argv[2], "--run-id", "killed", "--repeat", "2", "--workers", "2"]))
"""


@pytest.mark.slow
def test_a_killed_pooled_run_frees_its_folder_and_resumes_to_the_same_rows(recorded, project, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    reports = tmp_path / "killed-reports"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_POOLED_RUN, str(project), str(reports)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = reports / recorded.name / "killed" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 2):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)  # the parent only: its workers are left behind
    proc.wait()
    written = results.read_text().count("\n")
    assert 2 <= written < 12, "the run should have been killed part-way"
    lock = RunLock(results.parent)
    # Each orphaned worker notices its parent is gone and exits. The wait is bounded so a worker
    # that never exits fails the test instead of hanging it; what is asserted is the lock, not a time.
    deadline = time.monotonic() + 120
    freed = lock.acquire()
    while not freed and time.monotonic() < deadline:
        time.sleep(0.05)
        freed = lock.acquire()
    assert freed, "a worker outlived its parent and holds the run folder"
    lock.release()
    again = run_suite(recorded, RunOptions(record_mode="none", reports_dir=reports, run_id="killed", repeat=2,
                                           workers=2))
    assert again.resumed >= 2 and not again.missing and not again.failures
    whole = replay(recorded, tmp_path / "whole", workers=1, repeat=2)
    assert rows_of(results.parent) == rows_of(whole.run_dir)  # the killed process timed its calls


@pytest.mark.slow
def test_run_passes_workers_on_and_replays_the_same_rows(recorded, project, tmp_path, monkeypatch, capsys):
    from harness.cli import main

    asked = []
    count = parallel_replay.worker_count
    monkeypatch.setattr(parallel_replay, "worker_count", lambda requested, rows: asked.append(requested) or count(requested, rows))
    for workers in ("1", "2"):
        assert main(["run", str(project), "--reports", str(tmp_path / workers), "--run-id", "r", "--workers", workers]) == 0
    assert asked == [1, 2]
    capsys.readouterr()
    first, second = (tmp_path / workers / recorded.name / "r" / "results.jsonl" for workers in ("1", "2"))
    assert first.read_bytes() == second.read_bytes()


def test_a_run_killed_after_its_last_row_only_scores_again(recorded, tmp_path):
    whole = replay(recorded, tmp_path / "whole", workers=1, repeat=2)
    first = replay(recorded, tmp_path / "pool", workers=2, repeat=2)
    path = first.run_dir / "results.jsonl"
    path.write_text("".join(reversed(path.read_text().splitlines(keepends=True))))  # no summary.json yet
    again = replay(recorded, tmp_path / "pool", workers=2, repeat=2)
    assert again.resumed == 12 and again.calls == 0
    assert path.read_bytes() == (whole.run_dir / "results.jsonl").read_bytes()
