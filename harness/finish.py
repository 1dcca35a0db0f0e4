"""The end of a run, in one place: results -> summary -> verdict -> report views -> files.

`finish_run` is called once per finished run (`harness run`, `harness merge`, the pytest plugin):
the comparisons against the baseline variant are computed once and handed to the summary, the
gate is evaluated once (rules and per-case checks together), one view feeds every report, and
the files are written with summary.json last (its presence marks a finished run); every case
diff of the comparisons goes to case_diffs.jsonl, summary.json keeping the worst regressions'. `refinish`
does the same for a run already finished (`harness gate`, `harness report`), leaving its
summary.json alone. Both return a `FinishedRun` that callers print from: nobody re-reads
gate.json or re-runs the gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .artifacts import (Baseline, CaseCheck, ComparisonSummary, ConventionsSummary, EntityTypesUsed, InputsCheck,
                        OutputsSummary, RunSummary, Verdict)
from .atomicfile import atomic_write
from .errors import InputError
from .gate import gate_config, judge
from .gc_rest import objects_at_rest
from .judges.summary import judges_summary
from .matrix import matrix_summary
from .model import CaseResult, first_samples
from .runfolder import GATE, SUMMARY, bound_comparisons, default_baseline_path, read_baseline, write_artifact
from .summary import build_summary

if TYPE_CHECKING:
    from .reports.view import ReportView
    from .suites import Suite


class Outcome(Protocol):
    """What `finish_outcome` reads of a run just made (the runner's `RunOutcome`)."""

    @property
    def suite(self) -> Suite: ...
    @property
    def run_dir(self) -> Path: ...
    @property
    def results(self) -> list[CaseResult]: ...
    @property
    def wall_s(self) -> float: ...
    @property
    def entity_types(self) -> Mapping[str, EntityTypesUsed]: ...
    @property
    def prompts(self) -> Mapping[str, str]: ...


@dataclass
class GateInputs:
    """The baseline a run is gated against, where it came from, and notes on why there is none."""

    baseline: Baseline | None
    baseline_file: str | None
    notes: list[str]
    error: InputError | None = None  # an unreadable default baseline, left out of a non-strict gate


@dataclass
class FinishedRun:
    """A run with its summary, its verdict and per-case rules, and the files written."""

    run_dir: Path
    summary: RunSummary
    verdict: Verdict
    checks: dict[tuple[str, str], CaseCheck]
    rows: list[CaseResult] = field(repr=False)
    paths: list[Path] = field(default_factory=list)
    baseline_error: InputError | None = None  # see GateInputs.error; `--gate` refuses the run with it

    def gate_exit_code(self) -> int:
        """The exit code of a gated run: 2 (raised) when its default baseline was unreadable."""
        if self.baseline_error is not None:
            raise self.baseline_error
        return self.verdict.exit_code


def compare_to_baseline(suite: Suite, rows: list[CaseResult]) -> dict[str, ComparisonSummary]:
    """Every variant present against the suite's baseline variant (none when that did not run)."""
    present = [name for name in suite.variant_names() if any(r.variant == name for r in rows)]
    baseline = suite.baseline
    if baseline not in present:
        return {}
    from .compare import compare  # lazy: numpy and deepdiff

    base_rows = [r for r in rows if r.variant == baseline]
    return {
        name: compare(base_rows, [r for r in rows if r.variant == name], label_a=baseline, label_b=name).summary()
        for name in present
        if name != baseline
    }


def summarize(suite: Suite, run_id: str, rows: list[CaseResult], *, record_mode: str, wall_s: float,
              entity_types: Mapping[str, EntityTypesUsed], run_dir: Path | None = None,
              prompts: Mapping[str, str] | None = None, budget: float | None = None) -> RunSummary:
    """The run's summary, comparisons and gate configuration included (`entity_types` and
    `prompts`, each variant's types and prompt fingerprint as it ran: `RunOutcome.entity_types`,
    `RunOutcome.prompts`; `budget`: the frontier's, `--budget`)."""
    summary = build_summary(suite=suite, run_id=run_id, results=rows, record_mode=record_mode, wall_s=wall_s,
                            comparisons=compare_to_baseline(suite, rows), entity_types=entity_types,
                            prompts=prompts, budget=budget)
    summary.gate_config = gate_config(suite)
    summary.judges = judges_summary(suite, rows, run_dir)  # the judge's questions and calibration, when it has one
    summary.matrix = matrix_summary(suite, rows, summary)  # a suite with `models:`: its prompt x model matrix
    return summary


def resolve_baseline(run_dir: Path, suite: str, baseline: Path | None, *, strict: bool) -> GateInputs:
    """The baseline a run is gated against: `baseline` (a file, or a folder of <suite>.json files),
    else `<reports>/baselines/<suite>.json` when it exists.

    With strict=False (report writing), an unreadable default baseline is a note, not an error.
    """
    if baseline is not None:
        path = baseline / f"{suite}.json" if baseline.is_dir() else baseline
        return GateInputs(read_baseline(path, suite=suite), str(path), [])
    path = default_baseline_path(run_dir, suite)
    if not path.exists():
        return GateInputs(None, None, [f"no baseline (baselines/{suite}.json beside the run folders): regression "
                                       "rules not applied; accept a run with `harness baseline update RUN`"])
    try:
        return GateInputs(read_baseline(path, suite=suite), _relative(path), [])
    except InputError as exc:
        if strict:
            raise
        return GateInputs(None, None, [f"baseline not used: {exc.message}"], error=exc)


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def write_reports(run_dir: Path, view: ReportView, *, suite_file: str = "") -> list[Path]:
    """report.md, report.html, junit.xml and plots/*.png of one view (and the per-case pages,
    cases/*.html, when report.html details only the worst cases); returns the paths written."""
    from .reports.junit import iter_junit
    from .reports.plots import render_plots
    from .reports import case_pages
    from .reports.html_report import worst_cases
    from .reports.writers import render_html, render_markdown  # lazy: matplotlib and numpy

    written: list[Path] = []

    def write(path: Path, content: str | bytes | Iterable[str]) -> None:
        atomic_write(path, content)
        written.append(path)

    plots = render_plots(view)
    for name, png in plots.items():
        write(run_dir / "plots" / f"{name}.png", png)
    write(run_dir / "report.md", render_markdown(view))
    write(run_dir / "report.html", render_html(view, plots))
    if case_pages.needed(view):  # report.html details the worst cases: every case is on these pages
        for name, page in case_pages.case_pages(view, worst_cases(view)):
            write(run_dir / name, page)
    if view.report_of == "run":
        write(run_dir / "junit.xml", iter_junit(view, suite_file))
    return written


def pin_baseline(inputs: GateInputs, summary: RunSummary, *, allow_changed_gold: bool,
                 raise_refusal: bool) -> InputsCheck | None:
    """The run's inputs against its baseline's (`harness.pins`), said in the verdict's notes. Gold
    changed since the baseline was scored refuses the regression verdict (`InputError`, exit 2):
    raised when `raise_refusal`, else the baseline is not used and the error kept in `inputs` (as
    for an unreadable default baseline), unless `allow_changed_gold`, which gives the verdict with
    a warning and records it (`InputsCheck.allowed_changed_gold`)."""
    if inputs.baseline is None:
        return None
    from .pins import allowed_warning, check_inputs, gold_refusal, inputs_line

    check = check_inputs(inputs.baseline.inputs, summary.inputs, against="baseline")
    inputs.notes.append(inputs_line(check))
    if check.gold_changed and allow_changed_gold:
        check.allowed_changed_gold = True
        inputs.notes.append(allowed_warning(check))
    elif check.gold_changed:
        error = InputError(gold_refusal(check, inputs.baseline_file or "the baseline"))
        if raise_refusal:
            raise error
        inputs.baseline, inputs.baseline_file, inputs.error = None, None, error
        inputs.notes.append(f"baseline not used: {error.message}")
    return check


def refinish(run_dir: Path, summary: RunSummary, rows: list[CaseResult], *, suite: Suite | None = None,
             baseline: Path | None = None, strict: bool = False, reports: bool = True,
             fallback: bool = False, allow_changed_gold: bool = False) -> FinishedRun:
    """Gate a run once and (re)write gate.json and, unless `reports=False`, its reports;
    summary.json is left alone.

    `fallback`: a `baseline` that cannot be read does not stop the run from being written: the
    default baseline is used as for report writing, and the error is kept (`baseline_error`).
    A baseline scored on other gold is refused the same way (`pin_baseline`): raised when
    `strict` without `fallback`, else kept, unless `allow_changed_gold`."""
    from .reports.view import run_view

    try:
        inputs = resolve_baseline(run_dir, summary.suite, baseline, strict=strict)
    except InputError as exc:
        if not fallback or baseline is None:
            raise
        inputs = resolve_baseline(run_dir, summary.suite, None, strict=False)
        inputs.error = exc
    pinned = pin_baseline(inputs, summary, allow_changed_gold=allow_changed_gold,
                          raise_refusal=strict and not fallback and inputs.error is None)
    # per-case rules judge each case once: sample 0 of a repeated run (`--repeat`); the
    # thresholds judge the summary, which pools every sample
    judgement = judge(summary, first_samples(rows), baseline=inputs.baseline, baseline_file=inputs.baseline_file,
                      notes=inputs.notes, inputs=pinned)
    paths: list[Path] = []
    if reports:
        view = run_view(summary, rows, suite=suite, verdict=judgement.verdict, checks=judgement.checks)
        paths += write_reports(run_dir, view, suite_file=summary.suite_file)
    write_artifact(run_dir / GATE, judgement.verdict)
    paths.append(run_dir / GATE)
    return FinishedRun(run_dir, summary, judgement.verdict, judgement.checks, rows, paths, inputs.error)


@objects_at_rest()  # the rows outlive the finish: its collections need not walk them
def finish_run(suite: Suite, run_dir: Path, rows: list[CaseResult], *, record_mode: str, wall_s: float,
               entity_types: Mapping[str, EntityTypesUsed], baseline: Path | None = None,
               fallback: bool = False, outputs: OutputsSummary | None = None,
               conventions: ConventionsSummary | None = None, prompts: Mapping[str, str] | None = None,
               allow_changed_gold: bool = False, budget: float | None = None) -> FinishedRun:
    """Summary, verdict, reports and files of a run from its rows; summary.json is written last.
    `outputs` and `conventions`: the blocks of a `harness evaluate` run (harness.evaluate);
    `prompts`: each variant's prompt fingerprint (`RunOutcome.prompts`); `budget`: dollars per
    1,000 chunks the frontier picks a variant for (`--budget`)."""
    summary = summarize(suite, run_dir.name, rows, record_mode=record_mode, wall_s=wall_s, entity_types=entity_types,
                        run_dir=run_dir, prompts=prompts, budget=budget)
    summary.outputs, summary.conventions = outputs, conventions
    # every case diff to case_diffs.jsonl; the summary keeps the worst regressions' (what the
    # reports show), so this finish and a later `harness report` see the same summary
    summary.comparisons = bound_comparisons(run_dir, summary.comparisons)
    finished = refinish(run_dir, summary, rows, suite=suite, baseline=baseline, strict=baseline is not None,
                        fallback=fallback, allow_changed_gold=allow_changed_gold)
    # summary.json last: its presence marks the run as finished (an unfinished run is resumed)
    write_artifact(run_dir / SUMMARY, summary)
    finished.paths.append(run_dir / SUMMARY)
    return finished


def finish_outcome(outcome: Outcome, *, record_mode: str, baseline: Path | None = None,
                   allow_changed_gold: bool = False, budget: float | None = None) -> FinishedRun:
    """`finish_run` of a runner outcome (`harness run`): a run just made is always written, even when
    the `--baseline` it is to be gated against is unreadable or scored on other gold (`--gate` then
    exits 2)."""
    return finish_run(outcome.suite, outcome.run_dir, outcome.results, record_mode=record_mode,
                      wall_s=outcome.wall_s, entity_types=outcome.entity_types, baseline=baseline, fallback=True,
                      prompts=outcome.prompts, allow_changed_gold=allow_changed_gold, budget=budget)


__all__ = ["FinishedRun", "GateInputs", "Outcome", "compare_to_baseline", "finish_outcome", "finish_run",
           "pin_baseline", "refinish", "resolve_baseline", "summarize", "write_reports"]
