"""Reading a finished run back: its folder, summary.json and results.jsonl."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HarnessError, InputError
from ..inputfiles import load_json
from ..model import CaseResult
from ..names import check_name
from ..runfolder import RESULTS, SUMMARY, read_results


@dataclass
class RunData:
    run_dir: Path
    summary: dict[str, Any]
    rows: list[CaseResult] = field(repr=False)

    @property
    def suite_name(self) -> str:
        return self.summary["suite"]


def run_dir_of(path: Path) -> Path:
    """A run folder, or a file inside one (summary.json, results.jsonl, report.md ...)."""
    path = Path(path)
    if path.is_file():
        return path.parent
    if not path.exists():
        raise InputError(f"{path}: no such run folder")
    return path


def read_summary(run_dir: Path) -> dict[str, Any]:
    path = run_dir / SUMMARY
    if not path.exists():
        hint = " (the run is unfinished: rerun `harness run` to finish it)" if (run_dir / RESULTS).exists() else ""
        raise InputError(f"{run_dir}: no {SUMMARY} here{hint}")
    data = load_json(path, what="summary")  # bounded, strict UTF-8, depth-checked
    if not isinstance(data, dict) or not isinstance(data.get("variants"), dict) or "suite" not in data:
        raise InputError(f"{path}: not a run summary (no `suite` and `variants`)")
    _check_names(path, data)
    return data


def _check_names(path: Path, summary: dict[str, Any]) -> None:
    """`suite` and `run_id` become paths (baselines/<suite>.json, compare-<run_id>/): a tampered
    summary must not send a write outside the reports folder."""
    for key in ("suite", "run_id"):
        if key in summary:
            check_name(summary[key], str(path), f"`{key}`")


def read_rows(run_dir: Path) -> list[CaseResult]:
    path = run_dir / RESULTS
    if not path.exists():
        raise InputError(f"{run_dir}: no {RESULTS} here (give a run folder)")
    return read_results(path)


def load_run(path: Path, *, need_summary: bool = True) -> RunData:
    """A finished run (summary.json required unless need_summary=False)."""
    run_dir = run_dir_of(path)
    rows = read_rows(run_dir)
    summary = read_summary(run_dir) if need_summary or (run_dir / SUMMARY).exists() else {}
    return RunData(run_dir, summary, rows)


def load_suite_of(summary: dict[str, Any], override: Path | None = None) -> Any | None:
    """The suite a run came from (chunks and gold for reports), or None when its file is gone."""
    from ..suites import load_suite

    if override is not None:
        return load_suite(override)
    suite_file = summary.get("suite_file")
    if not suite_file or not Path(suite_file).exists():
        return None
    try:
        suite = load_suite(suite_file)
    except HarnessError:
        return None
    return suite if suite.name == summary.get("suite") else None
