"""`harness run`, `harness record` and `harness evaluate`: the commands that make a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import InputError
from ..names import check_name
from .inputs import budget as checked_budget, parse_shard, record_mode as checked_record_mode
from .options import (
    AllowChangedGoldOpt,
    BudgetOpt,
    CaseOpt,
    FreshOpt,
    GateBaselineOpt,
    GateOpt,
    JsonOpt,
    ModeOpt,
    OutsideChunksOpt,
    RayOpt,
    RayShardsOpt,
    RepeatOpt,
    ReportsOpt,
    RunIdOpt,
    ShardOpt,
    SuitesArg,
    ModelOpt,
    VariantOpt,
    WorkersOpt,
)
from .render import emit_json

# how the shipped suites' notes say their cassettes hold the team's answers (a suite copied from
# one keeps the words after its cassettes hold a real model's)
HAND_WRITTEN = "written by hand"


def _without_gold_side_files(paths: list[Path]) -> list[Path]:
    """The suites among `paths`: a gold side file of `harness annotate` (`<suite>.gold.yaml`,
    beside its suite, so `suites/*.yaml` matches it) is not a suite. Given among suites it is
    skipped with a note; given alone it is refused in one line."""
    from ..annotate.gold_file import GOLD_FILE_SUFFIX

    side = [p for p in paths if p.name.endswith(GOLD_FILE_SUFFIX)]
    kept = [p for p in paths if not p.name.endswith(GOLD_FILE_SUFFIX)]
    if side and not kept:
        raise InputError(f"{side[0]}: a gold side file of `harness annotate`, not a suite: "
                         "give the suite that names it in `gold_file:`")
    for path in side:
        typer.echo(f"harness: note: {path}: a gold side file of `harness annotate`, not a suite: skipped", err=True)
    return kept


def evaluate_suites(
    suites: list[Path],
    *,
    command: str,
    record_mode: str | None,
    variants: list[str] | None,
    cases: list[str] | None,
    reports: Path,
    models: list[str] | None = None,
    run_id: str | None,
    fresh: bool,
    base_url: str | None = None,
    concurrency: int | None = None,
    shard: str | None = None,
    allow_outside_chunks: bool = False,
    baseline: Path | None = None,
    repeat: int = 1,
    workers: int | None = None,
    allow_changed_gold: bool = False,
    ray: str | None = None,
    ray_shards: int | None = None,
    budget: float | None = None,
) -> list[Any]:
    """Run (or record) every suite given, each to a finished run; the FinishedRuns in order.
    `budget`: dollars per 1,000 chunks the frontier picks a variant for."""
    from ..finish import finish_outcome
    from ..judges.stage import plan_judge
    from ..reports.console import print_run_table
    from ..run.schedule import RunOptions, check_outcome, run_suite
    from ..suites import check_base_url, load_suite

    if run_id is not None:
        check_name(run_id, "--run-id", "run id")  # it names a folder: nothing outside --reports
    mode = checked_record_mode(record_mode, command)
    budget = checked_budget(budget)
    if base_url is not None:
        try:
            check_base_url(base_url)
        except ValueError as exc:
            raise InputError(f"--base-url: {exc}") from None
    if not suites:
        raise InputError("no suite given (try: harness run suites/*.yaml)")
    shard_of = parse_shard(shard)
    if ray is not None and shard_of is not None:
        raise InputError("--ray: runs every shard itself; leave out --shard")
    if ray is None and ray_shards is not None:
        raise InputError("--ray-shards: only with --ray")
    unique: dict[Path, Path] = {}
    for path in suites:  # a file given twice (suites/a.yaml suites/*.yaml) runs once
        unique.setdefault(path.resolve(), path)
    suites = _without_gold_side_files(list(unique.values()))
    loaded = [load_suite(path, allow_outside_chunks=allow_outside_chunks) for path in suites]  # validate every suite before any call
    first_file: dict[str, Path] = {}
    for suite in loaded:  # reports/<suite>/<run-id>/ is per suite name: two files of one name would share it
        if suite.name in first_file:
            raise InputError(f"{suite.path}: suite '{suite.name}' is also {first_file[suite.name]}; "
                             "give one file per suite name")
        first_file[suite.name] = suite.path
        plan_judge(suite)  # a judge prompt that does not load stops the command before any call
    outcomes = []
    for suite in loaded:
        options = RunOptions(
            record_mode=mode,
            reports_dir=reports,
            run_id=run_id,  # each suite's own folder: reports/<suite>/<run-id>/
            fresh=fresh,
            variants=variants,
            models=models,
            cases=cases,
            base_url=base_url,
            concurrency=concurrency,
            progress=True,
            shard=shard_of,
            hold_lock=True,
            repeat=repeat,
            workers=workers,
        )
        if ray is not None:
            outcomes.append(_run_on_ray(suite, options, address=ray, shards=ray_shards,
                                        allow_outside_chunks=allow_outside_chunks, baseline=baseline,
                                        allow_changed_gold=allow_changed_gold))
            continue
        outcome = run_suite(suite, options)
        try:
            for note in outcome.notes:
                typer.echo(f"harness: note: {note}", err=True)
            if outcome.recorded and HAND_WRITTEN in suite.spec.notes:
                typer.echo(f"harness: note: {suite.path}: its notes say the answers were {HAND_WRITTEN}, but "
                           f"{outcome.recorded} case(s) were just recorded from the endpoint: update `notes:`", err=True)
            check_outcome(outcome)  # the suite's judge judged the rows in run_suite (docs/judges.md)
            finished = finish_outcome(outcome, record_mode=mode, baseline=baseline,
                                      allow_changed_gold=allow_changed_gold, budget=budget)
        finally:
            outcome.release()  # after summary.json: the run is finished before anyone else may take it
        print_run_table(finished.summary, outcome.run_dir, finished.verdict)
        outcomes.append(finished)
    return outcomes


def _run_on_ray(suite: Any, options: Any, *, address: str, shards: int | None, allow_outside_chunks: bool,
                baseline: Path | None, allow_changed_gold: bool) -> Any:
    """One suite's shards on a Ray cluster, merged (harness.run.ray_shards); its FinishedRun."""
    from ..reports.console import print_run_table
    from ..run.ray_shards import run_on_ray

    done = run_on_ray(suite, options, address=address, shards=shards, allow_outside_chunks=allow_outside_chunks,
                      baseline=baseline, allow_changed_gold=allow_changed_gold)
    for note in done.notes:
        typer.echo(f"harness: note: {note}", err=True)
    if done.recorded and HAND_WRITTEN in suite.spec.notes:
        typer.echo(f"harness: note: {suite.path}: its notes say the answers were {HAND_WRITTEN}, but "
                   f"{done.recorded} case(s) were just recorded from the endpoint: update `notes:`", err=True)
    print_run_table(done.finished.summary, done.finished.run_dir, done.finished.verdict)
    return done.finished


def run_command(
    suites: SuitesArg,
    record_mode: ModeOpt = None,
    variant: VariantOpt = None,
    model: ModelOpt = None,
    case: CaseOpt = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    fresh: FreshOpt = False,
    shard: ShardOpt = None,
    gate: GateOpt = False,
    baseline: GateBaselineOpt = None,
    allow_outside_chunks: OutsideChunksOpt = False,
    repeat: RepeatOpt = 1,
    workers: WorkersOpt = None,
    allow_changed_gold: AllowChangedGoldOpt = False,
    ray: RayOpt = None,
    ray_shards: RayShardsOpt = None,
    budget: BudgetOpt = None,
) -> None:
    """Evaluate suites: render, replay (or call), parse, score, report."""
    outcomes = evaluate_suites(suites, command="run", record_mode=record_mode, variants=variant, models=model, cases=case,
                               reports=reports, run_id=run_id, fresh=fresh, shard=shard,
                               allow_outside_chunks=allow_outside_chunks, baseline=baseline if gate else None,
                               repeat=repeat, workers=workers, allow_changed_gold=allow_changed_gold, ray=ray,
                               ray_shards=ray_shards, budget=budget)
    if gate:
        from .finished import gate_outcomes

        raise typer.Exit(gate_outcomes(outcomes))


def record_command(
    suites: SuitesArg,
    record_mode: ModeOpt = None,
    variant: VariantOpt = None,
    model: ModelOpt = None,
    case: CaseOpt = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    fresh: FreshOpt = False,
    shard: ShardOpt = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible endpoint (overrides the suite and OPENAI_BASE_URL).")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Most calls in flight.")] = None,
    allow_outside_chunks: OutsideChunksOpt = False,
    repeat: RepeatOpt = 1,
    batch: Annotated[bool, typer.Option("--batch", help="Send the calls through the OpenAI Batch API (half the price, answers within 24 h), then record what failed live; resumable (docs/batch.md).")] = False,
    batch_id: Annotated[Optional[str], typer.Option("--batch-id", help="With --batch: attach to this batch (created earlier) instead of creating one.")] = None,
    batch_poll: Annotated[float, typer.Option("--batch-poll", help="With --batch: seconds before the first check of a batch (1 to 300; doubling, at most 300).")] = 10.0,
    ray: RayOpt = None,
    ray_shards: RayShardsOpt = None,
) -> None:
    """Run against the live endpoint and write cassettes (needs an API key)."""
    if batch_id is not None and not batch:
        raise InputError("--batch-id: only with --batch")
    if batch and ray is not None:
        raise InputError("--ray: not with --batch (the Batch API already runs the calls elsewhere)")
    from ..run.batch import MAX_POLL_S, MIN_POLL_S

    if not MIN_POLL_S <= batch_poll <= MAX_POLL_S:  # NaN fails too
        raise InputError(f"--batch-poll: {batch_poll:g} s between checks of a batch; give {MIN_POLL_S:g} to "
                         f"{MAX_POLL_S:g} seconds (a batch takes minutes to hours)")
    if batch:
        record_mode = _record_batch(suites, record_mode=record_mode, variants=variant, models=model, cases=case, shard=shard,
                                    base_url=base_url, allow_outside_chunks=allow_outside_chunks, repeat=repeat,
                                    batch_id=batch_id, poll_s=batch_poll)
    evaluate_suites(suites, command="record", record_mode=record_mode, variants=variant, models=model, cases=case,
                    reports=reports, run_id=run_id, fresh=fresh, base_url=base_url, concurrency=concurrency,
                    shard=shard, allow_outside_chunks=allow_outside_chunks, repeat=repeat, ray=ray, ray_shards=ray_shards)


def _record_batch(suites: list[Path], *, record_mode: str | None, variants: list[str] | None,
                  models: list[str] | None, cases: list[str] | None, shard: str | None, base_url: str | None, allow_outside_chunks: bool,
                  repeat: int, batch_id: str | None, poll_s: float) -> str:
    """`record --batch`: every suite's calls through the Batch API; the record mode of the live
    run that follows (once: it replays what the batch recorded and records the failed cases)."""
    from ..run.batch import plan_batch, record_batch
    from ..suites import check_base_url, load_suite

    mode = checked_record_mode(record_mode, "record")
    if mode == "none":
        raise InputError("--batch records, but the record mode is none (CI is set, or --record-mode none): nothing may be sent")
    if base_url is not None:
        try:
            check_base_url(base_url)
        except ValueError as exc:
            raise InputError(f"--base-url: {exc}") from None
    if batch_id is not None and len(suites) != 1:
        raise InputError("--batch-id: give exactly one suite (a batch holds one suite's calls)")
    for path in suites:
        suite = load_suite(path, allow_outside_chunks=allow_outside_chunks)
        todo, skipped = plan_batch(suite, mode=mode, variants=variants, models=models, cases=cases, base_url=base_url,
                                   shard=parse_shard(shard), repeat=repeat)
        report = record_batch(suite, todo, replace=mode != "once", poll_s=poll_s, batch_id=batch_id)
        report.skipped = skipped
        typer.echo(report.line(), err=True)
    return "once"


def evaluate_command(
    suite: Annotated[Path, typer.Argument(help="The suite whose cases the outputs answer.")],
    outputs: Annotated[Path, typer.Option("--outputs", help="JSONL: one {\"id\": CASE_ID, \"output\": TEXT} a line (or `response` for `output`), or {\"id\": CASE_ID, \"rounds\": [FIRST, CONTINUATION, ...]} for a conversation with gleaning.")],
    variant: Annotated[Optional[str], typer.Option("--variant", help="Name of the variant the outputs are (default: the file's name); a suite variant's name uses its prompt's format and examples.")] = None,
    format: Annotated[Optional[str], typer.Option("--format", help="Format the outputs are parsed in (default: the variant's, else auto).")] = None,
    conventions: Annotated[str, typer.Option("--conventions", help="harness (default), text2kgbench or webnlg: also score exactly as Text2KGBench's run_eval.py or the WebNLG+ 2020 text-to-RDF scorer (docs/benchmarks.md).")] = "harness",
    examples: Annotated[Optional[str], typer.Option("--examples", help="The prompt the outputs answered (file or builtin:<name>): example leaks and copies are read against its text, type conformance against its entity types (default: the suite variant's prompt when --variant names one; else n/a).")] = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    gate: GateOpt = False,
    baseline: GateBaselineOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Score answers another pipeline produced (no model, no cassettes) into a normal run folder."""
    from ..evaluate import evaluate_outputs
    from ..reports.console import print_run_table
    from ..suites import load_suite

    if run_id is not None:
        check_name(run_id, "--run-id", "run id")
    loaded = load_suite(suite)
    result = evaluate_outputs(loaded, outputs, variant=variant, fmt=format, conventions=conventions,
                              reports_dir=reports, run_id=run_id, baseline=baseline, examples=examples)
    for note in result.notes:
        typer.echo(f"harness: note: {note}", err=True)
    if json_out:
        emit_json(result.to_json())
    else:
        print_run_table(result.finished.summary, result.finished.run_dir, result.finished.verdict)
        if result.conventions != "harness":
            from ..scoring import rate_text

            typer.echo(f"{result.conventions} conventions, {result.cases} sentences: " + "  ".join(
                f"{name} {rate_text(value)}" for name, value in result.metrics.items()))
    if gate:
        raise typer.Exit(result.finished.gate_exit_code())

