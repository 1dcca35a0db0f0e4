"""`harness run|record SUITE --ray ADDRESS`: the suite's shards as Ray tasks, then `harness merge`.

The run folder (`<reports>/<suite>/<run-id>/`, on storage every node sees at the same path) holds
each shard's run below it, `shards/<suite>/<i>-of-<n>/`: shard i of n is exactly what `harness
run SUITE --shard i/n` makes (the cases at positions i-1, i-1+n, ... of the suite, every
variant), run, judged and finished by one Ray task. The driver then merges them
(`merge.merge_runs`) into the run folder itself, so the folder ends as a one-machine run's does,
with the same rows in the same order.

A task whose worker process or node is lost is retried by Ray (`RETRIES` times); the retry opens
the same shard folder and resumes it from the rows the lost attempt wrote, as any interrupted
run resumes. A command run again (same selection, or the same `--run-id`) resumes every shard
the same way. Errors the harness reports (a missing cassette, calls that keep failing) are
returned by the task, not raised, so they are not retried: the driver raises the first in shard
order with its own exit code.

Ray is imported only here, and this module only with `--ray` (an optional extra).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CassetteMissingError, HarnessError, InputError, ModelCallError
from ..names import check_name
from ..runfolder import SUMMARY, RunLock, claim_new_dir, read_selection, selection_of, write_provenance, write_selection

if TYPE_CHECKING:
    from ..finish import FinishedRun
    from ..suites import Suite
    from .schedule import RunOptions

# where the shard runs live inside the run folder: shards/<suite>/<i>-of-<n>/
SHARDS = "shards"
# retries of a task whose worker process (or node) died; an error the harness reports is not retried
RETRIES = 3
SHARD_NAME = re.compile(r"^(\d+)-of-(\d+)$")
HOST_PORT = re.compile(r"^(?:ray://)?\[?([^\[\]/]+?)\]?:(\d{1,5})$")  # host:port, ray://host:port, [v6]:port
PROBE_S = 5.0  # how long the address may take to accept a connection
ERRORS: dict[str, type[HarnessError]] = {cls.__name__: cls for cls in
                                         (HarnessError, InputError, CassetteMissingError, ModelCallError)}


@dataclass(frozen=True)
class ShardJob:
    """What one task needs, all of it plain values: paths are absolute (the same on every node)."""

    suite_path: str
    allow_outside_chunks: bool
    shard: tuple[int, int]
    reports_dir: str  # <run folder>/shards
    record_mode: str
    variants: list[str] | None
    models: list[str] | None  # `--model`: the matrix cells of these models only
    cases: list[str] | None
    base_url: str | None
    concurrency: int | None
    repeat: int
    workers: int | None
    fresh: bool

    @property
    def run_id(self) -> str:
        return shard_run_id(*self.shard)


@dataclass
class ShardReport:
    """What a task hands back: its shard run's folder and counts, or the error it reported."""

    shard: tuple[int, int]
    run_dir: str
    rows: int = 0
    resumed: int = 0  # rows kept from an earlier attempt (a retried task, or a command run again)
    recorded: int = 0
    host: str = ""
    node: str = ""  # the Ray node's id (two nodes may share a host name)
    pid: int = 0
    notes: list[str] = field(default_factory=list)
    error: tuple[str, str] | None = None  # (HarnessError class name, message)


def shard_run_id(index: int, count: int) -> str:
    return f"{index}-of-{count}"


def run_shard(job: ShardJob) -> ShardReport:
    """One shard, as `harness run SUITE --shard i/n --run-id i-of-n` runs it (the Ray task's body)."""
    from ..finish import finish_outcome
    from ..judges.stage import judge_rows
    from ..runfolder import RESULTS
    from ..suites import load_suite
    from .schedule import RunOptions, check_outcome, run_suite

    report = ShardReport(job.shard, str(Path(job.reports_dir)), host=socket.gethostname(), node=_node_id(),
                         pid=os.getpid())
    try:
        suite = load_suite(Path(job.suite_path), allow_outside_chunks=job.allow_outside_chunks)
        options = RunOptions(record_mode=job.record_mode, reports_dir=Path(job.reports_dir), run_id=job.run_id,
                             fresh=job.fresh, variants=job.variants, models=job.models, cases=job.cases, base_url=job.base_url,
                             concurrency=job.concurrency, shard=job.shard, hold_lock=True, repeat=job.repeat,
                             workers=job.workers)
        outcome = run_suite(suite, options)
        try:
            report.run_dir = str(outcome.run_dir)
            report.notes = list(outcome.notes)
            check_outcome(outcome)
            outcome.recorded += judge_rows(suite, outcome.results, job.record_mode, outcome.run_dir / RESULTS)
            finish_outcome(outcome, record_mode=job.record_mode)
        finally:
            outcome.release()
        report.rows, report.resumed, report.recorded = len(outcome.results), outcome.resumed, outcome.recorded
    except HarnessError as exc:
        report.error = (type(exc).__name__ if type(exc).__name__ in ERRORS else "HarnessError", exc.message)
    return report


def _node_id() -> str:
    """The id of the Ray node running this task; empty outside a Ray worker."""
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return ""
    return str(ray.get_runtime_context().get_node_id())


@dataclass
class RayRun:
    """The merged run and what the shards said."""

    finished: FinishedRun
    shards: list[ShardReport]
    recorded: int
    notes: list[str]


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise InputError("--ray: Ray is not installed; install it with: pip install 'kg-prompt-harness[ray]'") from None
    return ray


def _reachable(address: str) -> bool:
    """Whether a `host:port` (or `ray://host:port`) address answers at all: Ray itself keeps
    retrying an address where nothing listens for minutes before it gives up."""
    found = HOST_PORT.match(address)
    if found is None:
        return True  # `auto`, or a form Ray resolves itself: it says quickly when there is none
    try:
        with socket.create_connection((found[1], int(found[2])), timeout=PROBE_S):
            return True
    except (OSError, ValueError, OverflowError):
        return False


def _connect(ray: Any, address: str) -> bool:
    """Join the cluster at `address` (`auto`: the one this machine belongs to); False when this
    process had joined one already (the caller then leaves it joined)."""
    if ray.is_initialized():
        return False
    if not _reachable(address):
        raise InputError(f"--ray: nothing answers at '{address}' (start a cluster with `ray start --head`, "
                         "or give its address, host:port)")
    try:
        ray.init(address=address, log_to_driver=False, logging_level="ERROR", configure_logging=False)
    except (ConnectionError, ValueError, RuntimeError, TimeoutError):
        raise InputError(f"--ray: no Ray cluster found at '{address}' (start one with `ray start --head`, "
                         "or give its address, host:port)") from None
    return True


def _shard_counts(top: Path, suite: str) -> set[int]:
    """The shard counts of the shard runs already in a run folder."""
    below = top / SHARDS / suite
    if not below.is_dir():
        return set()
    return {int(m[2]) for d in below.iterdir() if (m := SHARD_NAME.match(d.name))}


def _open_top(reports: Path, suite: str, selection: dict[str, list[str]], *, run_id: str | None,
              fresh: bool) -> tuple[Path, RunLock, bool]:
    """The run folder, locked: `run_id`'s; else the newest unfinished `--ray` run of the same
    selection that nobody holds; else a new one. True when it holds shard runs to resume."""
    suite_dir = reports / suite
    if run_id is not None:
        check_name(run_id, "--run-id", "run id")
        candidates = [suite_dir / run_id]
    elif fresh or not suite_dir.is_dir():
        candidates = []
    else:
        found = [d for d in suite_dir.iterdir() if (d / SHARDS).is_dir() and not (d / SUMMARY).exists()
                 and read_selection(d) == selection]
        candidates = sorted(found, key=lambda d: ((d / SHARDS).stat().st_mtime_ns, d.name), reverse=True)
    for top in candidates:
        top.mkdir(parents=True, exist_ok=True)
        lock = RunLock(top)
        if not lock.acquire():
            if run_id is not None:
                raise InputError(f"{top}: another harness process is writing this run; wait for it or pick another --run-id")
            continue
        stored = read_selection(top)
        if run_id is not None and not fresh and stored is not None and stored != selection and (top / SHARDS).is_dir():
            lock.release()
            raise InputError(f"{top}: holds a run of another selection; rerun it with that selection, start it "
                             "over with --fresh, or pick another --run-id")
        write_selection(top, selection)
        return top, lock, (top / SHARDS).is_dir() and not fresh
    top = claim_new_dir(suite_dir)
    lock = RunLock(top)
    lock.acquire()  # a folder we just created
    write_selection(top, selection)
    return top, lock, False


def run_on_ray(suite: Suite, options: RunOptions, *, address: str, shards: int | None,
               allow_outside_chunks: bool, baseline: Path | None = None, allow_changed_gold: bool = False) -> RayRun:
    """The suite's shards as Ray tasks on the cluster at `address`, merged into one run folder."""
    from ..merge import merge_runs
    from .schedule import select_cases

    ray = _import_ray()
    started = time.perf_counter()
    variants, cases = select_cases(suite, options)  # bad --variant/--case: before joining any cluster
    if shards is not None and shards < 1:
        raise InputError(f"--ray-shards: {shards} must be at least 1")
    reports = Path(os.path.abspath(options.reports_dir))
    joined = _connect(ray, address)  # before the run folder: no cluster leaves no folder behind
    try:
        top, lock, resuming = _open_top(reports, suite.name, selection_of(variants, [c.id for c in cases]),
                                        run_id=options.run_id, fresh=options.fresh)
    except BaseException:
        if joined:
            ray.shutdown()
        raise
    try:
        write_provenance(top, suite.root, replace=not resuming)
        if options.fresh and (top / SHARDS).exists():
            # started over here, once: a task Ray retries must resume its own rows, not start over again
            shutil.rmtree(top / SHARDS)
        count = shards
        if count is None and resuming:
            earlier = _shard_counts(top, suite.name)
            count = max(earlier) if len(earlier) == 1 else None
        if count is None:
            count = max(1, int(ray.cluster_resources().get("CPU", 1)))
        count = max(1, min(count, len(cases)))
        task = ray.remote(run_shard).options(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)
        jobs = [ShardJob(suite_path=str(Path(suite.path).resolve()), allow_outside_chunks=allow_outside_chunks,
                         shard=(i, count), reports_dir=str(top / SHARDS), record_mode=options.record_mode,
                         variants=options.variants, models=options.models, cases=options.cases, base_url=options.base_url,
                         concurrency=options.concurrency, repeat=options.repeat,
                         # a task has one CPU: its shard replays in its own process unless told otherwise
                         workers=options.workers if options.workers is not None else 0, fresh=False)
                for i in range(1, count + 1)]
        reports_back: list[ShardReport] = ray.get([task.remote(job) for job in jobs])
        failed = [(r.shard, r.error) for r in reports_back if r.error is not None]
        if failed:
            (index, total), (kind, message) = failed[0]
            more = f" (and {len(failed) - 1} more shard(s))" if len(failed) > 1 else ""
            raise ERRORS.get(kind, HarnessError)(f"shard {index}/{total}: {message}{more}")
        merged = merge_runs([Path(r.run_dir) for r in reports_back], suite_path=Path(suite.path), into=top,
                            baseline=baseline, allow_changed_gold=allow_changed_gold)
    finally:
        if joined:
            ray.shutdown()
        lock.release()
    assert merged.finished is not None
    notes = [note for r in reports_back for note in r.notes]
    notes += [f"shard {r.shard[0]}/{r.shard[1]}: kept {r.resumed} row(s) an earlier attempt wrote" for r in reports_back
              if r.resumed]
    hosts = sorted({r.host for r in reports_back})
    nodes = len({r.node or r.host for r in reports_back})
    notes.append(f"{count} shard(s) on {nodes} node(s) ({', '.join(hosts)}) in {time.perf_counter() - started:.1f} s")
    return RayRun(finished=merged.finished, shards=reports_back, recorded=sum(r.recorded for r in reports_back),
                  notes=notes)


__all__ = ["RETRIES", "SHARDS", "RayRun", "ShardJob", "ShardReport", "run_on_ray", "run_shard", "shard_run_id"]
