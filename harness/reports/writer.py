"""Writes a finished run's outputs into its folder, atomically, summary.json last.

`report.md`, `report.html`, `junit.xml`, `plots/*.png`, `gate.json` and `summary.json`. Every file
but summary.json is free of timings and clocks; summary.json keeps them under keys ending in `_s`
(and `created_at`), so a replayed run reproduces every other byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomicfile import atomic_write, atomic_write_json
from ..errors import InputError
from ..gate import Verdict, case_checks, evaluate, gate_config, load_baseline
from ..model import CaseResult
from ..runfolder import GATE, SUMMARY, default_baseline_path
from ..runner import RunOutcome
from ..summary import build_summary
from .html_report import render_html
from .junit import render_junit
from .markdown import render_markdown
from .plots import render_plots
from .view import ReportView, run_view

@dataclass
class GateInputs:
    baseline: dict[str, Any] | None
    baseline_file: str | None
    notes: list[str]


def resolve_baseline(run_dir: Path, suite: str, baseline: Path | None, *, strict: bool) -> GateInputs:
    """The baseline a run is gated against: `baseline` (a file, or a folder of <suite>.json files),
    else `<reports>/baselines/<suite>.json` when it exists.

    With strict=False (report writing), an unreadable default baseline is a note, not an error.
    """
    if baseline is not None:
        path = baseline / f"{suite}.json" if baseline.is_dir() else baseline
        return GateInputs(load_baseline(path, suite=suite), str(path), [])
    path = default_baseline_path(run_dir, suite)
    if not path.exists():
        return GateInputs(None, None, [f"no baseline (baselines/{suite}.json beside the run folders): regression "
                                       "rules not applied; accept a run with `harness baseline update RUN`"])
    try:
        return GateInputs(load_baseline(path, suite=suite), _relative(path), [])
    except InputError as exc:
        if strict:
            raise
        return GateInputs(None, None, [f"baseline not used: {exc.message}"])


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def gate_run(summary: dict[str, Any], rows: list[CaseResult], run_dir: Path, *, baseline: Path | None = None,
             strict: bool = True) -> tuple[Verdict, dict]:
    """The verdict of a run and its per-case rules."""
    inputs = resolve_baseline(run_dir, summary["suite"], baseline, strict=strict)
    verdict = evaluate(summary, rows, baseline=inputs.baseline, baseline_file=inputs.baseline_file, notes=inputs.notes)
    checks = case_checks(summary, rows, baseline=inputs.baseline)
    return verdict, checks


def write_run_reports(run_dir: Path, view: ReportView, *, suite_file: str = "") -> None:
    """report.md, report.html, junit.xml and plots/*.png of one view."""
    plots = render_plots(view)
    for name, png in plots.items():
        atomic_write(run_dir / "plots" / f"{name}.png", png)
    atomic_write(run_dir / "report.md", render_markdown(view))
    atomic_write(run_dir / "report.html", render_html(view, plots))
    atomic_write(run_dir / "junit.xml", render_junit(view, suite_file))


def render_run(run_dir: Path, summary: dict[str, Any], rows: list[CaseResult], *, suite: Any | None = None,
               baseline: Path | None = None, strict: bool = False) -> Verdict:
    """Gate a run and (re)write its reports and gate.json (summary.json is left alone)."""
    verdict, checks = gate_run(summary, rows, run_dir, baseline=baseline, strict=strict)
    view = run_view(summary, rows, suite=suite, verdict=verdict, checks=checks)
    write_run_reports(run_dir, view, suite_file=summary.get("suite_file", ""))
    atomic_write_json(run_dir / GATE, verdict.to_json())
    return verdict


def write_outputs(suite: Any, run_dir: Path, rows: list[CaseResult], *, record_mode: str, wall_s: float,
                  baseline: Path | None = None) -> tuple[dict[str, Any], Verdict]:
    """Summary, gate and reports of a run from its rows (used by `run`, `merge` and the pytest plugin)."""
    summary = build_summary(suite=suite, run_id=run_dir.name, results=rows, record_mode=record_mode, wall_s=wall_s)
    summary["gate_config"] = gate_config(suite)
    verdict = render_run(run_dir, summary, rows, suite=suite, baseline=baseline, strict=baseline is not None)
    # summary.json last: its presence marks the run as finished (an unfinished run is resumed)
    atomic_write_json(run_dir / SUMMARY, summary)
    return summary, verdict


def write_run_outputs(outcome: RunOutcome, *, record_mode: str) -> dict[str, Any]:
    summary, _ = write_outputs(outcome.suite, outcome.run_dir, outcome.results, record_mode=record_mode,
                               wall_s=outcome.wall_s)
    return summary
