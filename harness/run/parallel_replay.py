"""Replayed cases on every core: forked worker processes read each case's cassette, replay its
calls, parse and score it (the CPU-bound part of a replayed run), and hand back the row's JSON
line; the runner's process writes the lines. Recording stays in one process: its cases wait on
the network, not on the CPU.

The workers are forked (they inherit the suite, the plans, the clients and the rows of an
interrupted run instead of receiving them), so the pool is used only where `fork` is, and only
for runs large enough to repay starting it (`MIN_POOLED_ROWS`); `--workers N` or
HARNESS_WORKERS=N chooses (1: in this process). Rows, their order, missing cassettes, failures
and the calls counted are the same either way; what a client says once on stderr (that an
endpoint's token counts are estimated) is said once per worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..errors import CassetteMissingError, InputError, ModelCallError
from ..gc_rest import Rest, objects_at_rest
from ..llm.cassette_store import replaying
from ..llm.client import ModelClient
from ..model import CaseResult, GoldCase, Round
from ..runfolder import RunLock
from ..suites import Suite

WORKERS_ENV = "HARNESS_WORKERS"
# Below this many rows the pool is not worth starting. Measured on the benchmark's cases: a row
# costs ~1.2 ms of CPU in one process and the same in a worker; starting and stopping two
# workers takes 10-20 ms and each worker's first batch ~5 ms more (pages copied on write), so on
# an idle 2-CPU machine the pool breaks even near 50 rows; on a busy one (no idle CPU to take)
# it only costs. 100 rows keeps small runs, where the most it could save is ~30 ms, in one process.
MIN_POOLED_ROWS = 100
ROW, MISSING, STALE, FAILED = "row", "missing", "stale", "failed"

# (place, status, text): the row's JSON line for ROW, the message for FAILED, "" otherwise
Settled = tuple[int, str, str]
# (place, calls digest): the digest of a kept row to score again, None for a case to replay
Item = tuple[int, str | None]


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, which a container or `taskset` narrows)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity
        return os.cpu_count() or 1


def worker_count(requested: int | None, rows: int) -> int:
    """How many worker processes replay a run of `rows` rows (cases x variants x samples); 0:
    replay them in this process.

    `requested` (`--workers`, else HARNESS_WORKERS) is obeyed whatever the run's size (1 or 0: in
    this process); by default every usable CPU works when the run has MIN_POOLED_ROWS rows."""
    if requested is None and os.environ.get(WORKERS_ENV, "").strip():
        raw = os.environ[WORKERS_ENV].strip()
        try:
            requested = int(raw)
        except ValueError:
            raise InputError(f"{WORKERS_ENV}: '{raw}' is not a number of worker processes") from None
        if requested < 0:
            raise InputError(f"{WORKERS_ENV}: '{raw}' must be 0 or more")
    if "fork" not in multiprocessing.get_all_start_methods() or rows == 0:
        return 0
    if requested is not None:
        return requested if requested >= 2 else 0
    cpus = usable_cpus()
    return cpus if cpus >= 2 and rows >= MIN_POOLED_ROWS else 0


@dataclass
class RunnerSteps:
    """The runner's own steps, handed over by the runner (which imports this module, so this
    module cannot import it): `run.requests.case_request`, `run.requests.converse`, `run.evaluation.evaluate_case`.
    Plans and requests are the runner's VariantPlan and CaseRequest."""

    case_request: Callable[[Any, ModelClient, GoldCase], Any]
    converse: Callable[[ModelClient, Any], Coroutine[Any, Any, list[Round]]]
    evaluate_case: Callable[..., CaseResult]


@dataclass
class ReplayJob:
    """What every worker needs, inherited through fork (nothing of it is pickled)."""

    suite: Suite
    steps: RunnerSteps
    plans: dict[str, Any]  # variant -> run.plan.VariantPlan
    pairs: list[tuple[str, GoldCase]]  # (variant, case) in suite order: Suite.pairs
    repeat: int
    client_of: dict[str, ModelClient]
    clients: list[ModelClient]  # each client once: the calls and retries counted per batch
    previous: dict[tuple[str, str, int], CaseResult]  # the interrupted run's rows
    lock: RunLock

    def where(self, place: int) -> tuple[str, GoldCase, int]:
        """The variant, case and sample at a place in suite order (runner: place = its index)."""
        pair, sample = divmod(place, self.repeat)
        variant, case = self.pairs[pair]
        return variant, case, sample


@dataclass
class BatchResult:
    settled: list[Settled]
    calls: list[int]  # per job.clients, made during the batch
    retries: list[int]


_JOB: ReplayJob | None = None  # set in the parent before the workers fork


def _finish_without_suspending(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The value of a coroutine that never waits: a replayed call is answered from the cassette
    at once, so a worker needs no event loop (and a forked child must not reuse its parent's)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a replayed case waited for I/O; replay answers every call from its cassette")


def _replay_case(job: ReplayJob, request: Any) -> tuple[str, str]:
    """One case (a run.requests.CaseRequest) replayed and scored, as the runner's own worker does it."""
    path = request.cassette_path(job.suite)
    existed = path.exists()
    try:
        with replaying(path):
            rounds = _finish_without_suspending(job.steps.converse(job.client_of[request.plan.name], request))
    except CassetteMissingError:
        return (STALE if existed else MISSING), ""
    except ModelCallError as exc:
        return FAILED, exc.message
    row = job.steps.evaluate_case(job.suite, request.plan, request.case, rounds, request.calls_digest, request.sample)
    return ROW, row.model_dump_json()


def replay_batch(rescore: bool, items: list[Item]) -> BatchResult:
    """Settle a batch of places: score a kept row's rounds again (`rescore`), or replay the case."""
    job = _JOB
    assert job is not None, "replay_batch runs in a ReplayPool"
    calls = [client.calls for client in job.clients]
    retries = [client.retries for client in job.clients]
    settled: list[Settled] = []
    first: Any = None  # sample 0's run.requests.CaseRequest; the other samples send the same
    for place, digest in items:
        name, case, sample = job.where(place)
        plan = job.plans[name]
        if rescore:
            assert digest is not None
            row = job.steps.evaluate_case(job.suite, plan, case, job.previous[(name, case.id, sample)].rounds,
                                          digest, sample)
            settled.append((place, ROW, row.model_dump_json()))
            continue
        if first is None or first.plan is not plan or first.case is not case:
            first = job.steps.case_request(plan, job.client_of[name], case)
        status, text = _replay_case(job, first if sample == 0 else first.for_sample(sample))
        settled.append((place, status, text))
    return BatchResult(settled,
                       [client.calls - before for client, before in zip(job.clients, calls)],
                       [client.retries - before for client, before in zip(job.clients, retries)])


def _start_worker(parent: int) -> None:
    """In each forked worker: Ctrl-C is the parent's to handle (it stops the pool), the run
    folder's lock is the parent's alone, and a worker whose parent died (kill -9) exits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    assert _JOB is not None
    _JOB.lock.release()  # this process's copy of the descriptor: the parent keeps the lock

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="harness-parent-watch", daemon=True).start()


def batches(items: list[Item], workers: int) -> list[list[Item]]:
    """Items in suite order, cut into batches: several per worker (so a slow batch does not
    leave the others idle at the end), and few enough that passing them costs little."""
    size = max(1, min(64, -(-len(items) // (workers * 8))))
    return [items[i:i + size] for i in range(0, len(items), size)]


class ReplayPool:
    """Forked workers replaying batches. Use as a context manager: the workers fork on entry
    (before any thread or progress bar starts) and are stopped on exit.

    `first` (whether it rescores, and the item) is settled in this process before the fork: what
    a case builds lazily and keeps (compiled patterns, a plan's prompt text without the chunk) is
    then built once and inherited, not built again by every worker; `settle` hands its row back
    first, with its phase's batches (which must not hold it)."""

    def __init__(self, job: ReplayJob, workers: int, first: tuple[bool, Item] | None = None) -> None:
        self.job = job
        self.workers = workers
        self.notes: list[str] = []
        self._first = first
        self._first_settled: list[Settled] | None = None
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._stack = contextlib.ExitStack()  # what entering set up, undone on exit
        self._at_rest: Rest | None = None

    def __enter__(self) -> ReplayPool:
        global _JOB
        _JOB = self.job
        try:
            if self._first is not None:
                rescore, item = self._first
                self._first_settled = replay_batch(rescore, [item]).settled  # this process's clients count it
            # what exists now (the suite, the plans, the kept rows) is never collected while the
            # pool runs: frozen, the collector skips it, in the parent and in the workers, and does
            # not write to the pages the workers share with the parent (Python's advice for fork)
            self._at_rest = self._stack.enter_context(objects_at_rest())
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("fork"),
                initializer=_start_worker, initargs=(os.getpid(),))
            self._executor.submit(int)  # a `fork` pool forks every worker on its first task: here, now
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        global _JOB
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        self._stack.close()
        self._at_rest = None
        _JOB = None

    async def settle(self, rescore: bool, work: list[list[Item]]) -> AsyncIterator[list[Settled]]:
        """Each batch's settled places, as batches finish (in any order). The calls and retries
        the workers made are added to the parent's clients. When a worker dies (killed, out of
        memory) the batches not yet returned are settled in this process: no place is lost, none
        is settled twice."""
        assert self._executor is not None
        if self._first is not None and self._first[0] == rescore and self._first_settled is not None:
            settled, self._first_settled = self._first_settled, None
            yield settled
        executor = self._executor
        try:
            pending = {asyncio.wrap_future(executor.submit(replay_batch, rescore, batch)): index
                       for index, batch in enumerate(work)}
        except BrokenProcessPool:
            pending = {}
        left = set(range(len(work)))
        broken = not pending and bool(work)
        try:
            while pending and not broken:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    index = pending.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken = True
                        continue
                    left.discard(index)
                    for client, calls, retries in zip(self.job.clients, result.calls, result.retries):
                        client.calls += calls
                        client.retries += retries
                    yield result.settled
                    if self._at_rest is not None:  # the rows made of it are kept to the end
                        self._at_rest.more()
        finally:
            for future in pending:
                future.cancel()
        if broken:
            note = "a replay worker process died; its cases were replayed in this process"
            if note not in self.notes:  # said once, though both phases find the pool broken
                self.notes.append(note)
            for index in sorted(left):  # this process's clients count their own calls
                yield replay_batch(rescore, work[index]).settled
