"""Commands on finished runs: gate, baseline update, merge, inspect, report, compare.

Exit codes as everywhere: 0 pass, 1 a rule failed, 2 bad input.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import InputError
from .options import AllowChangedGoldOpt, BaselineOpt, BudgetOpt, JsonOpt, VariantOpt
from .render import comparison_lines, emit_json

# --------------------------------------------------------------------------- gate


def gate_outcomes(finished: list[Any], *, json_out: bool = False) -> int:
    """For `harness run --gate`: the verdicts of the runs just finished (FinishedRun); returns the exit code.

    An unreadable default baseline, a note in the reports, is bad input here (exit 2)."""
    codes = [run.gate_exit_code() for run in finished]
    _print_verdicts([run.verdict for run in finished], json_out)
    return max(codes, default=0)


def _print_verdicts(verdicts: list[Any], json_out: bool) -> None:
    from ..reports.console import print_verdict

    if json_out:
        emit_json({"status": _overall(verdicts), "verdicts": [v.to_json() for v in verdicts]})
        return
    for verdict in verdicts:
        print_verdict(verdict)


def _overall(verdicts: list[Any]) -> str:
    statuses = {v.status for v in verdicts}
    return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"


def gate_command(
    runs: Annotated[list[Path], typer.Argument(help="Finished run folders (reports/<suite>/<run-id>).", show_default=False)],
    baseline: BaselineOpt = None,
    json_out: JsonOpt = False,
    no_reports: Annotated[bool, typer.Option("--no-reports", help="Do not rewrite the run's reports with the verdict.")] = False,
    allow_changed_gold: AllowChangedGoldOpt = False,
) -> None:
    """Apply the suite's thresholds and the baseline to runs; exit 1 when a rule fails, 2 when the
    baseline was scored on other gold (unless --allow-changed-gold)."""
    from ..finish import refinish
    from ..runfolder import load_run, load_suite_of

    loaded = [load_run(path) for path in runs]  # check every input before writing anything
    verdicts = []
    for data in loaded:
        suite = None if no_reports else load_suite_of(data.summary)
        finished = refinish(data.run_dir, data.finished, data.rows, suite=suite, baseline=baseline, strict=True,
                            reports=not no_reports, allow_changed_gold=allow_changed_gold)
        verdicts.append(finished.verdict)
    _print_verdicts(verdicts, json_out)
    raise typer.Exit(max(v.exit_code for v in verdicts))


# --------------------------------------------------------------------------- baseline


def baseline_update(
    run: Annotated[Path, typer.Argument(help="The finished run to accept.", show_default=False)],
    out: Annotated[Optional[Path], typer.Option("--out", help="Write here instead of <reports>/baselines/<suite>.json.")] = None,
) -> None:
    """Accept a run: write <reports>/baselines/<suite>.json (atomically)."""
    from ..gate import make_baseline
    from ..model import first_samples
    from ..runfolder import default_baseline_path, load_run, write_artifact

    data = load_run(run)
    if not data.rows:
        raise InputError(f"{data.run_dir}: the run has no result rows")
    unscored = [f"{r.variant}/{r.case_id}" for r in data.rows if r.score is None]
    path = out or default_baseline_path(data.run_dir, data.suite_name)
    # a baseline holds one value per case: sample 0 of a repeated run
    write_artifact(path, make_baseline(data.finished, first_samples(data.rows), run_dir=data.run_dir))
    typer.echo(f"baseline of {data.suite_name}: {path} (run {data.finished.run_id}, "
               f"{len(data.rows) - len(unscored)} case × variant values)")
    if unscored:
        typer.echo(f"note: {len(unscored)} row(s) without a score are not in the baseline: {', '.join(unscored[:5])}", err=True)


# --------------------------------------------------------------------------- merge


def merge_command(
    runs: Annotated[list[Path], typer.Argument(help="Finished shard runs of one suite.", show_default=False)],
    reports: Annotated[Optional[Path], typer.Option("--reports", help="Folder for the merged run (default: the first run's).")] = None,
    run_id: Annotated[Optional[str], typer.Option("--run-id", help="Name of the merged run folder.")] = None,
    suite: Annotated[Optional[Path], typer.Option("--suite", help="The suite file (default: the one the runs name).")] = None,
    baseline: BaselineOpt = None,
    gate: Annotated[bool, typer.Option("--gate", help="Exit 1 when the merged run fails the gate.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Combine shard runs (harness run --shard i/n) into one run, with summary and reports recomputed."""
    from ..merge import merge_runs
    from ..reports.console import print_run_table, print_verdict

    result = merge_runs(runs, reports=reports, run_id=run_id, suite_path=suite, baseline=baseline)
    if json_out:
        emit_json({"run_dir": str(result.run_dir), "rows": result.rows,
                    "missing": [list(m) for m in result.missing], "gate": result.verdict.to_json()})
    else:
        print_run_table(result.summary, result.run_dir, result.verdict)
        print_verdict(result.verdict)
    if result.missing:
        shown = ", ".join(f"{v}/{c}" for v, c in result.missing[:5])
        typer.echo(f"note: {len(result.missing)} case × variant of the suite in no shard: {shown}", err=True)
    if gate and result.baseline_error is not None:  # as `harness run --gate`: exit 2, the run written
        raise result.baseline_error
    raise typer.Exit(result.verdict.exit_code if gate else 0)


# --------------------------------------------------------------------------- inspect


def inspect_command(
    run: Annotated[Path, typer.Argument(help="A run folder.", show_default=False)],
    entity: Annotated[str, typer.Argument(help="Entity name (any case, punctuation or alias).", show_default=False)],
    variant: VariantOpt = None,
    direction: Annotated[str, typer.Option("--direction", help="Relationships where the entity is the source (out), the target (in), or both.")] = "both",
    min_strength: Annotated[Optional[float], typer.Option("--min-strength", help="Only relationships at least this strong.")] = None,
    related_type: Annotated[Optional[str], typer.Option("--related-type", help="Only relationships to entities of this type.")] = None,
    suite: Annotated[Optional[Path], typer.Option("--suite", help="The suite file, for chunks and gold (default: the one the run names).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """One entity across a run: descriptions, types, relationships, source cases, gold."""
    from ..inspection import inspect_entity, render_text
    from ..runfolder import load_run, load_suite_of

    data = load_run(run, need_summary=False)
    loaded_suite = load_suite_of(data.summary, suite) if data.summary is not None or suite else None
    report = inspect_entity(
        data.rows, entity, suite=loaded_suite, suite_name=data.suite_name, run_dir=str(data.run_dir),
        variants=variant, direction=direction, min_strength=min_strength, related_type=related_type,  # type: ignore[arg-type]
    )
    if json_out:
        emit_json(report.to_json())
    else:
        typer.echo(render_text(report))


# --------------------------------------------------------------------------- report


def report_command(
    run: Annotated[Path, typer.Argument(help="A finished run folder.", show_default=False)],
    against: Annotated[Optional[Path], typer.Option("--against", help="Compare RUN against this run (the reference) instead.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder for a comparison's reports (default: RUN/compare-<other run id>).")] = None,
    variant: Annotated[Optional[list[str]], typer.Option("--variant", help="Only these variants (comparison; repeatable).")] = None,
    baseline: BaselineOpt = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Also print report.md (for $GITHUB_STEP_SUMMARY).")] = False,
    budget: BudgetOpt = None,
) -> None:
    """Write a run's reports again (report.md, report.html, junit.xml, plots), or a comparison of two runs."""
    from ..finish import refinish, write_reports
    from ..runfolder import load_run, load_suite_of
    from ..compare import compare_runs
    from ..reports.view import comparison_view
    from .inputs import budget as checked_budget

    budget = checked_budget(budget)
    if budget is not None and against is not None:
        raise InputError("--budget: a run's report picks within it; a comparison (--against) has no frontier")
    data = load_run(run)
    suite = load_suite_of(data.summary)
    if against is None:
        if budget is not None:  # the reports pick for this budget; summary.json keeps the run's own
            from ..frontier import build_frontier

            summary = data.finished
            summary.frontier = build_frontier(summary.variants, kind=summary.suite_kind, has_gold=summary.has_gold,
                                              budget=budget)
        refinish(data.run_dir, data.finished, data.rows, suite=suite, baseline=baseline, strict=baseline is not None)
        target = data.run_dir
    else:
        other = load_run(against)
        if other.suite_name != data.suite_name:
            raise InputError(f"{against}: a run of suite '{other.suite_name}', not '{data.suite_name}'")
        view = comparison_view(other, data, compare_runs(other, data, variant), suite=suite)
        target = out or data.run_dir / f"compare-{other.finished.run_id}"
        write_reports(target, view)
    if markdown:
        from ..inputfiles import MAX_RUN_FILE_BYTES, read_text

        sys.stdout.write(read_text(target / "report.md", limit=MAX_RUN_FILE_BYTES, what="report"))
    else:
        typer.echo(f"reports: {target}")


# --------------------------------------------------------------------------- compare


def _load_run_rows(path: Path) -> tuple[list[Any], str]:
    from ..runfolder import RESULTS, read_results

    results = path / RESULTS if path.is_dir() else path
    if not results.exists():
        raise InputError(f"{path}: no {RESULTS} here (give a run folder or a results file)")
    rows = read_results(results)
    if not rows:
        raise InputError(f"{results}: no result rows")
    return rows, str(path)


def _side_inputs(path: Path) -> Any:
    """The input fingerprints of a run folder (or of the run a results.jsonl is in): None (unknown)
    without a summary.json or when it records none."""
    from ..runfolder import SUMMARY, read_summary

    folder = path if path.is_dir() else path.parent
    return read_summary(folder).inputs if (folder / SUMMARY).exists() else None


def compare_command(
    run_a: Annotated[Path, typer.Argument(help="Baseline run folder (or its results.jsonl).")],
    run_b: Annotated[Path, typer.Argument(help="Run folder to compare against it.")],
    variant_a: Annotated[Optional[str], typer.Option("--variant-a", help="Variant of RUN_A (default: each variant both runs have).")] = None,
    variant_b: Annotated[Optional[str], typer.Option("--variant-b", help="Variant of RUN_B (default: same as --variant-a).")] = None,
    json_out: JsonOpt = False,
    allow_changed_gold: AllowChangedGoldOpt = False,
) -> None:
    """Compare two runs case by case: deltas with 95% paired bootstrap intervals, per-case diffs.
    Says when gold, chunks, prompts or ontology differ; refuses changed gold (exit 2) unless
    --allow-changed-gold."""
    from ..compare import compare
    from ..pins import allowed_warning, check_inputs, gold_refusal, inputs_line

    rows_a, _ = _load_run_rows(run_a)
    rows_b, _ = _load_run_rows(run_b)
    names_a = list(dict.fromkeys(r.variant for r in rows_a))
    names_b = list(dict.fromkeys(r.variant for r in rows_b))
    if variant_a or variant_b:
        pairs = [(variant_a or variant_b, variant_b or variant_a)]
    else:
        pairs = [(n, n) for n in names_a if n in names_b]
    if not pairs:
        raise InputError(f"{run_a} and {run_b} share no variant; name them with --variant-a/--variant-b")
    output = {}
    for va, vb in pairs:
        if va not in names_a:
            raise InputError(f"{run_a}: no variant '{va}' (have {', '.join(names_a)})")
        if vb not in names_b:
            raise InputError(f"{run_b}: no variant '{vb}' (have {', '.join(names_b)})")
    inputs = check_inputs(_side_inputs(run_a), _side_inputs(run_b), against=f"run {run_a}", names=("RUN_A", "RUN_B"),
                          prompt_pairs=[(va, vb) for va, vb in pairs if va is not None and vb is not None])
    if inputs.gold_changed and not allow_changed_gold:
        raise InputError(gold_refusal(inputs, str(run_b), verdict="comparison"))
    notes = [inputs_line(inputs)]
    if inputs.gold_changed:
        inputs.allowed_changed_gold = True
        notes.append(allowed_warning(inputs, verdict="comparison"))
    for va, vb in pairs:
        comparison = compare([r for r in rows_a if r.variant == va], [r for r in rows_b if r.variant == vb],
                             label_a=f"{run_a}:{va}", label_b=f"{run_b}:{vb}")
        output[vb if va == vb else f"{va}..{vb}"] = comparison
    if json_out:
        if inputs.allowed_changed_gold:
            typer.echo(notes[-1], err=True)
        emit_json({"comparisons": {k: c.to_json() for k, c in output.items()}, "inputs": inputs.model_dump()})
        return
    for comparison in output.values():
        for line in comparison_lines(comparison):
            typer.echo(line)
    for note in notes:  # after the figures, whose header stays the first line
        typer.echo(note)
