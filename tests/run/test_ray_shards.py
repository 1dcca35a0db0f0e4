"""`harness run|record SUITE --ray ADDRESS` (harness.run.ray_shards): the shards as Ray tasks, merged.

The cluster tests start their own Ray head on 127.0.0.1 (one process group, two CPUs, a small
object store) and stop it by its process group; they are skipped where Ray is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.run.ray_shards import SHARDS, ShardJob, _open_top, run_shard
from harness.runfolder import RESULTS, SUMMARY, selection_of

from ..conftest import SECRET, script_for
from ..reports.helpers import harness, record_cassettes, replay, strip_volatile, summary_of
from ..support.fake_server import Faults, FakeOpenAIServer

REPO = Path(__file__).resolve().parents[2]


def _rows(run_dir: Path) -> list[dict]:
    return [strip_volatile(json.loads(line)) for line in (run_dir / RESULTS).read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def recorded(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    return suite


# --------------------------------------------------------------------------- without a cluster


def test_without_ray_installed_it_is_one_line_and_exit_2(project, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, _, err = harness(capsys, "run", str(project), "--ray", "auto")
    assert code == 2
    assert err.strip() == ("harness: --ray: Ray is not installed; install it with: "
                           "pip install 'kg-prompt-harness[ray]'")


@pytest.mark.parametrize("argv,message", [
    (["--ray", "auto", "--shard", "1/2"], "--ray: runs every shard itself; leave out --shard"),
    (["--ray-shards", "2"], "--ray-shards: only with --ray"),
])
def test_options_that_do_not_go_with_ray_are_refused(project, capsys, argv, message):
    code, _, err = harness(capsys, "run", str(project), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_record_with_batch_and_ray_is_refused(project, capsys):
    code, _, err = harness(capsys, "record", str(project), "--batch", "--ray", "auto")
    assert code == 2 and "--ray: not with --batch" in err


def test_an_address_where_nothing_listens_is_one_line_and_leaves_no_folder(project, capsys, tmp_path):
    """Ray itself retries such an address for minutes; the harness says so at once."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'kg-prompt-harness[ray]')")
    closed = _free_port()  # bound and released: nothing listens there
    code, _, err = harness(capsys, "run", str(project), "--reports", str(tmp_path / "r"), "--ray", f"127.0.0.1:{closed}")
    assert code == 2
    assert err.strip() == (f"harness: --ray: nothing answers at '127.0.0.1:{closed}' (start a cluster with "
                           "`ray start --head`, or give its address, host:port)")
    assert not (tmp_path / "r").exists()


def test_the_run_folder_is_resumed_by_selection_and_never_taken_from_its_holder(tmp_path):
    selection = selection_of(["default"], ["a", "b"])
    first, lock, resuming = _open_top(tmp_path, "towns", selection, run_id=None, fresh=False)
    assert not resuming
    (first / SHARDS).mkdir()
    lock.release()
    again, lock, resuming = _open_top(tmp_path, "towns", selection, run_id=None, fresh=False)
    assert (again, resuming) == (first, True)
    # held: another process is running it, so a new folder
    other, other_lock, resuming = _open_top(tmp_path, "towns", selection, run_id=None, fresh=False)
    assert other != first and not resuming
    lock.release()
    other_lock.release()
    # another selection is never resumed; --fresh starts over
    third, lock, _ = _open_top(tmp_path, "towns", selection_of(["tuned"], ["a"]), run_id=None, fresh=False)
    assert third not in (first, other)
    lock.release()
    fresh, lock, resuming = _open_top(tmp_path, "towns", selection, run_id=None, fresh=True)
    assert fresh not in (first, other, third) and not resuming
    lock.release()
    # a finished run is not resumed
    (first / SUMMARY).write_text("{}", encoding="utf-8")
    (other / SHARDS).mkdir()
    found, lock, _ = _open_top(tmp_path, "towns", selection, run_id=None, fresh=False)
    assert found == other
    lock.release()


def test_a_run_id_of_another_selection_is_refused(tmp_path):
    from harness.errors import InputError

    top, lock, _ = _open_top(tmp_path, "towns", selection_of(["default"], ["a"]), run_id="r", fresh=False)
    (top / SHARDS).mkdir()
    lock.release()
    with pytest.raises(InputError, match="another selection"):
        _open_top(tmp_path, "towns", selection_of(["tuned"], ["a"]), run_id="r", fresh=False)
    _, lock, resuming = _open_top(tmp_path, "towns", selection_of(["tuned"], ["a"]), run_id="r", fresh=True)
    assert not resuming
    lock.release()


def _job(suite, reports: Path, shard: tuple[int, int], **changes) -> ShardJob:
    values = dict(suite_path=str(suite.path), allow_outside_chunks=False, shard=shard, reports_dir=str(reports),
                  record_mode="none", variants=None, models=None, cases=None, base_url=None, concurrency=None, repeat=1,
                  workers=0, fresh=False)
    values.update(changes)
    return ShardJob(**values)  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_task_runs_its_shard_as_run_shard_does_and_returns_harness_errors(recorded, tmp_path):
    """The task's body without Ray: shard 1/2 is `harness run --shard 1/2`; a missing cassette
    comes back as a value (not retried by Ray), with the exit code's class."""
    report = run_shard(_job(recorded, tmp_path / "shards", (1, 2)))
    assert report.error is None and report.rows == 4 and report.resumed == 0
    alone, _ = replay(recorded, tmp_path / "alone", "s", shard=(1, 2))
    assert _rows(Path(report.run_dir)) == _rows(alone.run_dir)
    again = run_shard(_job(recorded, tmp_path / "shards", (1, 2)))
    assert again.resumed == 4  # a task run again keeps the rows its shard already has

    (recorded.root / "fixtures" / "cassettes" / "towns" / "tuned" / "flood.json").unlink()
    failed = run_shard(_job(recorded, tmp_path / "shards", (2, 2)))
    assert failed.error is not None and failed.error[0] == "CassetteMissingError"
    assert "case 'flood' of variant 'tuned'" in failed.error[1]


# --------------------------------------------------------------------------- on a local Ray head


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def ray_head() -> Iterator[str]:
    """A Ray head on 127.0.0.1 with two CPUs, its own temp folder, stopped by its process group."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'kg-prompt-harness[ray]')")
    ray_cli = Path(sys.executable).parent / "ray"
    if not ray_cli.exists():
        pytest.skip("the ray command is not installed beside this Python")
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="kgh-ray-", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "OPENAI_BASE_URL", "RAY_ADDRESS")}
    env["OPENAI_API_KEY"] = SECRET  # the workers record with it (they inherit the head's environment)
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    head = subprocess.Popen(
        [str(ray_cli), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
         "--num-cpus=2", "--object-store-memory=80000000", "--include-dashboard=false", f"--temp-dir={temp}",
         "--disable-usage-stats"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # up when the GCS port answers
            if head.poll() is not None:
                pytest.fail(f"ray start exited with {head.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.5)
        time.sleep(2)  # the raylet registers after the GCS
        yield address
    finally:
        try:
            os.killpg(head.pid, signal.SIGTERM)
            head.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(head.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.slow
def test_a_run_on_ray_equals_the_one_process_run_and_resumes(ray_head, recorded, tmp_path, capsys):
    full, _ = replay(recorded, tmp_path / "one", "run")
    code, out, err = harness(capsys, "run", str(recorded.path), "--reports", str(tmp_path / "ray"), "--run-id", "run",
                             "--ray", ray_head, "--ray-shards", "2")
    assert code == 0, err
    merged = tmp_path / "ray" / "towns" / "run"
    assert str(merged) in out and "2 shard(s) on 1 node(s)" in err
    assert sorted(p.name for p in (merged / SHARDS / "towns").iterdir()) == ["1-of-2", "2-of-2"]
    assert _rows(merged) == _rows(full.run_dir)
    assert strip_volatile(summary_of(merged)) == strip_volatile(summary_of(full.run_dir))
    for name in ("report.md", "report.html", "junit.xml", "gate.json", "plots/metrics.png"):
        assert (merged / name).read_bytes() == (full.run_dir / name).read_bytes(), name

    # run again: every shard keeps its rows (resumed as any run is), the same run comes out
    code, _, err = harness(capsys, "run", str(recorded.path), "--reports", str(tmp_path / "ray"), "--run-id", "run",
                           "--ray", ray_head)
    assert code == 0, err
    assert "shard 1/2: kept 4 row(s)" in err and "shard 2/2: kept 2 row(s)" in err
    assert _rows(merged) == _rows(full.run_dir)

    # --fresh: the shards start over (once, by the driver: a retried task still resumes)
    stale = merged / SHARDS / "towns" / "3-of-3"
    stale.mkdir()
    code, _, err = harness(capsys, "run", str(recorded.path), "--reports", str(tmp_path / "ray"), "--run-id", "run",
                           "--ray", ray_head, "--ray-shards", "2", "--fresh")
    assert code == 0, err
    assert "kept" not in err and not stale.exists()
    assert _rows(merged) == _rows(full.run_dir)


@pytest.mark.slow
def test_a_missing_cassette_on_ray_exits_3_naming_shard_and_case(ray_head, recorded, tmp_path, capsys):
    (recorded.root / "fixtures" / "cassettes" / "towns" / "tuned" / "flood.json").unlink()
    code, _, err = harness(capsys, "run", str(recorded.path), "--reports", str(tmp_path / "ray"),
                           "--ray", ray_head, "--ray-shards", "2")
    assert code == 3, err
    assert "shard 2/2: " in err and "case 'flood' of variant 'tuned'" in err
    assert len(err.strip().splitlines()) == 1


def _holder_of(lock: Path) -> int | None:
    """The process holding a file open (Linux /proc): the shard's worker holds its run lock."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) == str(lock):
                    return int(entry.name)
        except OSError:
            continue
    return None


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="finds the worker through /proc (Linux)")
def test_a_lost_workers_shard_is_retried_and_resumes_from_its_rows(ray_head, project, suite, tmp_path, capsys):
    """Recording on Ray, the worker of shard 1 is killed after its first row: Ray runs the task
    again, the retry keeps that row, and the merged run equals a one-process replay."""
    reports = tmp_path / "ray"
    shard_dir = reports / "towns" / "rec" / SHARDS / "towns" / "1-of-2"
    with FakeOpenAIServer(script_for(suite), Faults(latency_s=0.4)) as server:
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env["OPENAI_API_KEY"] = SECRET
        command = subprocess.Popen(
            [sys.executable, "-m", "harness.cli", "record", str(project), "--reports", str(reports), "--run-id", "rec",
             "--base-url", server.base_url, "--concurrency", "1", "--ray", ray_head, "--ray-shards", "2"],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed: list[int] = []

        def kill_after_first_row() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and command.poll() is None:
                results = shard_dir / RESULTS
                if results.exists() and results.read_text(encoding="utf-8").count("\n") >= 1:
                    pid = _holder_of(shard_dir / ".lock")
                    if pid is not None:
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                        return
                time.sleep(0.05)

        killer = threading.Thread(target=kill_after_first_row)
        killer.start()
        out, err = command.communicate(timeout=300)
        killer.join()
    assert command.returncode == 0, err
    assert len(killed) == 1, "the shard's worker was not found while it ran"
    assert "shard 1/2: kept" in err  # the retry resumed from the rows the lost worker wrote
    merged = reports / "towns" / "rec"
    full, _ = replay(suite, tmp_path / "one", "rec")
    assert _rows(merged) == _rows(full.run_dir)
