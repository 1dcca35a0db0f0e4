"""Which finished runs and accepted baselines a reports folder holds.

Runs live in `<reports>/<suite>/<run-id>/` (harness/runfolder.py); a folder counts as a run when
it holds summary.json (written last, so an unfinished run is never shown). A summary or baseline
that does not read is skipped with its one-line reason rather than stopping the whole site: the
other runs are still worth seeing, and the page lists what was left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..artifacts import Baseline, RunSummary
from ..errors import HarnessError
from ..runfolder import BASELINES, RESULTS, SUMMARY, read_baseline, read_summary


@dataclass(frozen=True)
class FoundRun:
    """A finished run: its folder, its summary, and a stamp that changes when its files do."""

    run_dir: Path
    summary: RunSummary
    stamp: str


@dataclass
class Found:
    """Every run per suite (oldest first), the accepted baseline per suite, and what was skipped."""

    suites: dict[str, list[FoundRun]] = field(default_factory=dict)
    baselines: dict[str, Baseline] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)


def _stamp(run_dir: Path) -> str:
    """Size and modification time of summary.json and results.jsonl: a finished run's files are
    only rewritten by `harness report`/`merge`/`evaluate`, which change them."""
    parts = []
    for name in (SUMMARY, RESULTS):
        try:
            stat = (run_dir / name).stat()
        except OSError:
            parts.append("-")
            continue
        parts.append(f"{stat.st_mtime_ns}:{stat.st_size}")
    return "/".join(parts)


def _run_dirs(reports: Path) -> list[Path]:
    found = []
    for suite_dir in sorted(reports.iterdir()):
        if suite_dir.name == BASELINES or not suite_dir.is_dir():
            continue
        for run_dir in sorted(suite_dir.iterdir()):
            if run_dir.is_dir() and (run_dir / SUMMARY).is_file():
                found.append(run_dir)
    return found


def find_runs(reports: Path) -> Found:
    """The runs and baselines under `reports` (a missing folder is the caller's error to report)."""
    found = Found()
    for run_dir in _run_dirs(reports):
        try:
            summary = read_summary(run_dir)
        except HarnessError as exc:
            found.skipped.append((str(run_dir), str(exc)))
            continue
        found.suites.setdefault(summary.suite, []).append(FoundRun(run_dir, summary, _stamp(run_dir)))
    for runs in found.suites.values():
        runs.sort(key=lambda run: (run.summary.created_at, run.summary.run_id))
    baselines = reports / BASELINES
    if baselines.is_dir():
        for path in sorted(baselines.glob("*.json")):
            if path.stem not in found.suites:
                continue  # a baseline of a suite with no run here: nothing to mark
            try:
                found.baselines[path.stem] = read_baseline(path, suite=path.stem)
            except HarnessError as exc:
                found.skipped.append((str(path), str(exc)))
    return found
