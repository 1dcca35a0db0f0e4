"""Suite x variants -> results: which cases run, in which process, resumed from which rows.

Results are appended to results.jsonl as each case finishes, so an interrupted run
loses nothing; a rerun resumes the newest unfinished run of the suite that was started with
the same variants and cases and that no other process is writing (see runfolder.py), and
recomputes only the rows whose request changed. When every case is done the file is rewritten in
suite order, so the same cassettes give the same bytes."""

from __future__ import annotations
import asyncio
import contextlib
import functools
import shlex
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from ..artifacts import EntityTypesUsed
from ..errors import CassetteMissingError, InputError, ModelCallError
from ..llm.cassette_store import replaying
from ..llm.client import ModelClient
from ..model import CaseResult, GoldCase
from ..runfolder import RESULTS, ResultsWriter, RunFolder, RunLock, open_run_folder, read_results, selection_of
from ..suites import Suite
from .plan import VariantPlan, plan_variant
from .requests import CaseRequest, case_request, clients_for, converse
from .evaluation import evaluate_case


@dataclass
class RunOptions:
    record_mode: str = "none"
    reports_dir: Path = Path("reports")
    run_id: str | None = None
    fresh: bool = False
    variants: list[str] | None = None
    models: list[str] | None = None  # `--model`: the matrix cells of these models only (docs/suites.md)
    cases: list[str] | None = None
    concurrency: int | None = None
    base_url: str | None = None
    progress: bool = False
    # (i, n), 1-based: keep only the cases at positions i-1, i-1+n, i-1+2n, ... of the selected cases
    # (suite order, after --case); every variant runs on its shard's cases. `harness merge` joins shards.
    shard: tuple[int, int] | None = None
    # keep the run folder locked after the rows are written, until the caller has written the
    # outputs (summary.json marks the run finished) and calls `outcome.release()`: no other
    # process resumes a run in between. Otherwise the lock ends with the rows.
    hold_lock: bool = False
    # samples per case and variant (`--repeat N`): the same requests N times, sample k answered
    # by (or recorded into) its own cassette; 1 is a run without repeats
    repeat: int = 1
    # worker processes replaying cases (record mode none only; harness.run.parallel_replay): None
    # chooses (HARNESS_WORKERS, else every usable CPU for a large run), 0 or 1 replays in this process
    workers: int | None = None
    # the suite's `judge:` (docs/judges.md) judges the rows once every case has one, before the
    # lock is let go; False leaves the rows unjudged (scripts/record_handwritten.py records the
    # judge's cassettes itself, after replaying the extraction's)
    judge: bool = True


@dataclass(frozen=True, order=True)
class Unsettled:
    """A case (one sample of it) left without a row: its cassette missing or stale, or its calls
    failing (`message` says how)."""

    variant: str
    case_id: str
    status: str  # "missing" | "stale" | "failed"
    sample: int = 0
    message: str = ""

    @property
    def cassette(self) -> tuple[str, str, str]:
        """(variant, case, missing|stale): what `rerecord_command` records."""
        return (self.variant, self.case_id, self.status)


@dataclass
class RunOutcome:
    # repr=False: asyncio formats the result of a finished task, and these hold every row
    suite: Suite = field(repr=False)
    run_dir: Path
    results: list[CaseResult] = field(repr=False)
    resumed: int = 0
    missing: list[Unsettled] = field(default_factory=list)  # sample 0's cassette missing or stale
    # the same for samples 1 .. N-1 of `--repeat N`
    missing_repeats: list[Unsettled] = field(default_factory=list)
    failures: list[Unsettled] = field(default_factory=list)  # calls that failed (any sample)
    wall_s: float = 0.0
    calls: int = 0
    retries: int = 0
    notes: list[str] = field(default_factory=list)  # for the user: e.g. an unfinished run not resumed, and why
    recorded: int = 0  # cases whose cassette took answers sent to the endpoint during this run
    lock: RunLock | None = field(default=None, repr=False)  # held with RunOptions.hold_lock
    # the entity types each variant's prompt was filled with, as planned (summary.json reports them)
    entity_types: dict[str, EntityTypesUsed] = field(default_factory=dict)
    # each variant's prompt fingerprint, from the same plans (summary.json's `inputs.prompts`)
    prompts: dict[str, str] = field(default_factory=dict)

    def release(self) -> None:
        """Let other processes resume or rewrite this run folder."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None


@dataclass
class RunContext:
    """What both schedulers (`_run_here`, `_replay_in_pool`) share: the suite and its options, the
    (variant, case) pairs with each variant's plan and client, the interrupted run's rows by
    (variant, case, sample), and where the new rows and the run's outcome go."""

    suite: Suite
    options: RunOptions
    pairs: list[tuple[str, GoldCase]]
    plans: dict[str, VariantPlan]
    client_of: dict[str, ModelClient]
    clients: list[ModelClient]  # each shared client once
    previous: dict[tuple[str, str, int], CaseResult]
    outcome: RunOutcome
    rows: list[CaseResult | None]  # by place in suite order, filled as cases settle


def select_cases(suite: Suite, options: RunOptions) -> tuple[list[str], list[GoldCase]]:
    # a matrix cell is selected by its own name or its variant's (`--variant`) and its model (`--model`)
    variants = suite.select(options.variants, options.models)
    cases = suite.cases
    if options.cases:
        ids = {c.id for c in cases}
        unknown = [c for c in options.cases if c not in ids]
        if unknown:
            raise InputError(f"{suite.path}: no case named {', '.join(unknown)}")
        cases = [c for c in cases if c.id in options.cases]
    if options.shard is not None:
        index, count = options.shard
        if not (count >= 1 and 1 <= index <= count):
            raise InputError(f"--shard: '{index}/{count}' must be i/n with 1 <= i <= n")
        cases = [c for position, c in enumerate(cases) if position % count == index - 1]
    return variants, cases


async def run_suite_async(suite: Suite, options: RunOptions) -> RunOutcome:
    started = time.perf_counter()
    if options.repeat < 1:
        raise InputError(f"--repeat: {options.repeat} must be at least 1")
    variants, cases = select_cases(suite, options)
    plans = {name: plan_variant(suite, name) for name in variants}
    if options.progress:  # the run header (stdout: stderr is kept for the one-line errors)
        for name, plan in plans.items():
            if not plan.kind.extraction_figures:
                continue  # entity types fill no summary or report prompt
            types = plan.types.describe() if plan.types else ", ".join(plan.entity_types)
            sys.stdout.write(f"{suite.name}/{name}: entity types {types}\n")
    folder = open_run_folder(options.reports_dir, suite.name, selection_of(variants, [c.id for c in cases]),
                             run_id=options.run_id, fresh=options.fresh, project=suite.root)
    try:
        outcome = await _run_in(folder, suite, options, variants, cases, plans, started)
        if options.judge and not (outcome.missing or outcome.missing_repeats or outcome.failures):
            from ..judges.stage import judge_rows_async

            # the suite's judge, on the rows of a settled run, while the folder is still locked:
            # every path to a finished run (run, record, resume, the pytest plugin) judges here
            outcome.recorded += await judge_rows_async(suite, outcome.results, options.record_mode,
                                                       folder.path / RESULTS)
    except BaseException:
        folder.lock.release()  # the OS drops it too if the process is killed
        raise
    if options.hold_lock:
        outcome.lock = folder.lock
    else:
        folder.lock.release()
    return outcome


async def _run_in(folder: RunFolder, suite: Suite, options: RunOptions, variants: list[str], cases: list[GoldCase],
                  plans: dict[str, VariantPlan], started: float) -> RunOutcome:
    for plan in plans.values():
        if options.base_url:  # the one endpoint: in place of the suite's, replicas too
            plan.endpoint.base_url = options.base_url
            plan.endpoint.base_urls = ()
        if options.concurrency:
            plan.endpoint.concurrency = options.concurrency
    replay = options.record_mode == "none"
    client_of = clients_for(plans, replay=replay)
    clients = list({id(c): c for c in client_of.values()}.values())

    run_dir = folder.path
    results_path = run_dir / RESULTS
    previous = {(r.variant, r.case_id, r.sample): r for r in read_results(results_path)} if folder.reuse else {}

    outcome = RunOutcome(suite=suite, run_dir=run_dir, results=[], notes=list(folder.notes),
                         entity_types={name: EntityTypesUsed.model_validate(plan.types.to_json())
                                       for name, plan in plans.items() if plan.types is not None},
                         prompts={name: fp for name, plan in plans.items() if (fp := plan.fingerprint()) is not None})
    # every row at its place in suite order (variant, then case, then sample): place =
    # (index of the (variant, case) pair) * repeat + sample
    # the (variant, case) pairs of the run: a variant with a `cases:` list runs only those
    pairs = suite.pairs(variants, cases)
    rows: list[CaseResult | None] = [None] * (len(pairs) * options.repeat)
    workers = 0
    if replay:
        from .parallel_replay import worker_count

        workers = worker_count(options.workers, len(rows))
    context = RunContext(suite, options, pairs, plans, client_of, clients, previous, outcome, rows)
    if workers:
        writer = await _replay_in_pool(context, folder, workers)
    else:
        writer = await _run_here(context, results_path, replay)
    writer.finish()  # suite order
    outcome.results = [row for row in rows if row is not None]
    outcome.wall_s = time.perf_counter() - started
    return outcome


def _kept_rows(pairs: list[tuple[str, GoldCase]], plans: dict[str, VariantPlan],
               client_of: dict[str, ModelClient], previous: dict[tuple[str, str, int], CaseResult], repeat: int,
               *, every_request: bool) -> Iterable[tuple[int, CaseRequest | None, bool]]:
    """(place, request, kept) for every place in suite order: `kept` when the interrupted run's
    row made the same calls without an error (its rounds are parsed and scored again, in case gold
    or parser changed). The request is built where it is needed: always with `every_request`,
    else only for a case with a row to compare."""
    place = 0
    for name, case in pairs:
        plan = plans[name]
        olds = [previous.get((name, case.id, sample)) for sample in range(repeat)]
        first = (case_request(plan, client_of[name], case)
                 if every_request or any(old is not None for old in olds) else None)
        for sample, old in enumerate(olds):  # finished samples of an interrupted run are kept
            request = first if first is None or sample == 0 else first.for_sample(sample)
            kept = (old is not None and request is not None and old.request_hash == request.calls_digest
                    and old.error is None)
            yield place, request, kept
            place += 1


def _not_settled(outcome: RunOutcome, variant: str, case_id: str, sample: int, status: str, message: str = "") -> None:
    """A case without a row: its cassette missing or stale, or its calls failing."""
    if status == "failed":
        where = f"sample {sample}: " if sample else ""
        outcome.failures.append(Unsettled(variant, case_id, status, sample, where + message))
    elif sample:
        outcome.missing_repeats.append(Unsettled(variant, case_id, status, sample))
    else:
        outcome.missing.append(Unsettled(variant, case_id, status))


async def _run_here(context: RunContext, results_path: Path, replay: bool) -> ResultsWriter:
    """Every case in this process: calls in flight concurrently (recording), one after the
    other (replay, whose calls never wait)."""
    suite, options, pairs, plans = context.suite, context.options, context.pairs, context.plans
    client_of, clients, previous = context.client_of, context.clients, context.previous
    outcome, rows = context.outcome, context.rows
    kept: list[tuple[int, str]] = []
    todo: list[tuple[int, CaseRequest]] = []
    for place, request, reuse in _kept_rows(pairs, plans, client_of, previous, options.repeat,
                                            every_request=True):
        assert request is not None
        if reuse:
            old = previous[(request.plan.name, request.case.id, request.sample)]
            row = evaluate_case(suite, request.plan, request.case, old.rounds, request.calls_digest, request.sample)
            rows[place] = row
            kept.append((place, row.model_dump_json()))
            outcome.resumed += 1
        else:
            todo.append((place, request))
    # keep what is still valid, in a fresh file, before appending new rows
    writer = ResultsWriter(results_path, kept)
    del kept

    queue: asyncio.Queue[tuple[int, CaseRequest]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    progress = _Progress(len(todo), enabled=options.progress)

    with contextlib.ExitStack() as stack:
        stack.callback(writer.close)
        router = None
        if replay:  # answers come from the cassette store: nothing is sent, nothing patched
            cassette_for = replaying
        else:  # the SDK sends, and vcrpy records into the case's cassette
            from ..llm.cassettes import CassetteRouter

            router = stack.enter_context(CassetteRouter(options.record_mode, roots=(suite.root,)).patched())
            cassette_for = functools.partial(router.case, save=False)  # saved below, in a thread

        async def worker() -> None:
            while True:
                try:
                    place, request = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                plan, case = request.plan, request.case
                path = request.cassette_path(suite)
                existed = path.exists()
                try:
                    with cassette_for(path) as cassette:
                        rounds = await converse(client_of[plan.name], request)
                    if router is not None:
                        if getattr(cassette, "dirty", False):  # new exchanges, answered live
                            outcome.recorded += 1
                        # serialising and writing the cassette is CPU and disk work: off the
                        # event loop, so the other cases' calls go on meanwhile; the row is
                        # written after it, so a resumed run never trusts an unwritten cassette
                        await asyncio.to_thread(router.save_case, cassette)
                except CassetteMissingError:
                    _not_settled(outcome, plan.name, case.id, request.sample, "stale" if existed else "missing")
                    progress.step()
                    continue
                except ModelCallError as exc:
                    _not_settled(outcome, plan.name, case.id, request.sample, "failed", exc.message)
                    progress.step()
                    continue
                row = evaluate_case(suite, plan, case, rounds, request.calls_digest, request.sample)
                rows[place] = row
                writer.append(place, row.model_dump_json())
                progress.step()

        width = max(1, min(len(todo), 2 * max(c.capacity for c in clients)))
        try:
            await asyncio.gather(*(worker() for _ in range(width)))
        finally:
            await _close_clients(outcome, clients)
            progress.close()
    return writer


async def _close_clients(outcome: RunOutcome, clients: list[ModelClient]) -> None:
    for client in clients:
        outcome.calls += client.calls
        outcome.retries += client.retries
        await client.close()


async def _replay_in_pool(context: RunContext, folder: RunFolder, workers: int) -> ResultsWriter:
    """Every case replayed by forked workers (harness.run.parallel_replay), as `_run_here` would:
    the same rows, the same file, the same missing cassettes and failures, in suite order."""
    suite, options, pairs, plans = context.suite, context.options, context.pairs, context.plans
    client_of, clients, previous = context.client_of, context.clients, context.previous
    outcome, rows = context.outcome, context.rows
    from .parallel_replay import ROW, ReplayJob, ReplayPool, RunnerSteps, batches

    rescore: list[tuple[int, str | None]] = []
    todo: list[tuple[int, str | None]] = []
    for place, request, reuse in _kept_rows(pairs, plans, client_of, previous, options.repeat,
                                            every_request=False):
        if reuse:
            assert request is not None
            rescore.append((place, request.calls_digest))
        else:
            todo.append((place, None))
    outcome.resumed = len(rescore)
    progress_total = len(todo)
    # settled before the fork, to warm what every worker would otherwise build for itself
    first = (False, todo.pop(0)) if todo else (True, rescore.pop(0)) if rescore else None
    job = ReplayJob(suite=suite, steps=RunnerSteps(case_request, converse, evaluate_case), plans=plans,
                    pairs=pairs, repeat=options.repeat, client_of=client_of, clients=clients,
                    previous=previous, lock=folder.lock)
    unsettled: list[tuple[int, str, str]] = []  # put in suite order below, as _run_here finds them
    with ReplayPool(job, workers, first) as pool:  # forks now: before the progress bar's thread starts
        progress = _Progress(progress_total, enabled=options.progress)
        try:
            kept: list[tuple[int, str]] = []
            async for settled in pool.settle(True, batches(rescore, workers)):
                kept.extend((place, line) for place, _, line in settled)
            kept.sort()
            for place, line in kept:
                rows[place] = CaseResult.model_validate_json(line)
            # keep what is still valid, in a fresh file, before appending new rows
            writer = ResultsWriter(folder.path / RESULTS, kept)
            del kept
            with contextlib.closing(writer):
                async for settled in pool.settle(False, batches(todo, workers)):
                    for place, status, text in settled:
                        if status == ROW:
                            rows[place] = CaseResult.model_validate_json(text)
                            writer.append(place, text)
                        else:
                            unsettled.append((place, status, text))
                        progress.step()
        finally:
            await _close_clients(outcome, clients)
            progress.close()
    outcome.notes.extend(pool.notes)
    for place, status, text in sorted(unsettled):
        name, case, sample = job.where(place)
        _not_settled(outcome, name, case.id, sample, status, text)
    return writer


def run_suite(suite: Suite, options: RunOptions) -> RunOutcome:
    return asyncio.run(run_suite_async(suite, options))


def check_outcome(outcome: RunOutcome) -> None:
    """Turn missing cassettes and failed calls into the documented exit codes."""
    suite = outcome.suite
    if outcome.missing_repeats and not outcome.missing:
        order = {(v, c.id): i for i, (v, c) in enumerate((v, c) for v in suite.variant_names() for c in suite.cases)}
        repeats = sorted(outcome.missing_repeats, key=lambda m: (order.get((m.variant, m.case_id), len(order)), m.sample))
        first = repeats[0]
        more = f" (and {len(repeats) - 1} more)" if len(repeats) > 1 else ""
        needed = max(m.sample for m in repeats) + 1
        command = rerecord_command(suite, [m.cassette for m in repeats], repeat=needed)
        raise CassetteMissingError(
            f"{suite.path}: cassette {first.status} for sample {first.sample} of case '{first.case_id}' of variant "
            f"'{first.variant}'{more}; "
            f"record the samples with: {command}"
        )
    if outcome.missing:
        order = {(v, c.id): i for i, (v, c) in enumerate((v, c) for v in suite.variant_names() for c in suite.cases)}
        missing = sorted(outcome.missing, key=lambda m: order.get((m.variant, m.case_id), len(order)))
        variant, case, why = missing[0].cassette
        # samples of --repeat missing too: the command records them with the rest
        repeat = max((m.sample for m in outcome.missing_repeats), default=0) + 1
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        verb = "re-record them" if len(missing) > 1 else "record it"
        raise CassetteMissingError(
            f"{suite.path}: cassette {why} for case '{case}' of variant '{variant}'{more}; "
            f"{verb} with: {rerecord_command(suite, [m.cassette for m in missing], repeat=repeat)}"
        )
    if outcome.failures:
        failed = outcome.failures[0]
        variant, case, message = failed.variant, failed.case_id, failed.message
        more = f" (and {len(outcome.failures) - 1} more)" if len(outcome.failures) > 1 else ""
        raise ModelCallError(f"{suite.path}: case '{case}' of variant '{variant}': {message}{more}")


def case_order(suite: Suite) -> dict[str, int]:
    """Each case id's position in the suite (computed once by a caller that asks for many hints)."""
    return {case.id: i for i, case in enumerate(suite.cases)}


def rerecord_command(suite: Suite, missing: list[tuple[str, str, str]], *, repeat: int = 1,
                     order: dict[str, int] | None = None) -> str:
    """A shell command that records exactly these (variant, case, missing|stale) cassettes.

    `--variant` and `--case` select a grid, so variants that lack the same cases share one
    `harness record`; distinct groups are joined with `&&` rather than re-recording (and paying
    for) cases whose cassettes are fine. Stale cassettes need `rewrite`; missing ones `once`.
    The mode is always spelled out, since `record` defaults to `none` when CI is set.
    `repeat` > 1 asks for that many samples (`--repeat`). `order` is `case_order(suite)`, given by
    a caller that asks for one hint per cassette, so that each costs its own cassettes' work and
    not the whole suite's.
    """
    positions = case_order(suite) if order is None else order
    by_variant: dict[str, dict[str, None]] = {}
    whys: dict[str, set[str]] = {}
    for variant, case, why in missing:
        by_variant.setdefault(variant, {})[case] = None
        whys.setdefault(variant, set()).add(why)
    groups: dict[tuple[str, ...], list[str]] = {}
    modes: dict[tuple[str, ...], set[str]] = {}
    for variant in suite.variant_names():
        if variant not in by_variant:
            continue
        cases = tuple(sorted((c for c in by_variant[variant] if c in positions), key=positions.__getitem__))
        groups.setdefault(cases, []).append(variant)
        modes.setdefault(cases, set()).update(whys[variant])
    commands = []
    for cases, variants in groups.items():
        argv = ["harness", "record", str(suite.path)]
        for variant in variants:
            argv += ["--variant", variant]
        if len(cases) != len(positions):  # every case: no --case needed
            for case in cases:
                argv += ["--case", case]
        if repeat > 1:
            argv += ["--repeat", str(repeat)]
        argv += ["--record-mode", "rewrite" if "stale" in modes[cases] else "once"]
        commands.append(" ".join(shlex.quote(a) for a in argv))
    return " && ".join(commands)


class _Progress:
    """A progress bar on stderr for long interactive runs; silent otherwise."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._bar = None
        if enabled and total >= 20 and sys.stderr.isatty():
            from rich.progress import Progress

            self._bar = Progress(transient=True)
            self._bar.start()
            self._task = self._bar.add_task("cases", total=total)

    def step(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
