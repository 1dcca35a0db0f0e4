"""Writes a finished run's outputs: summary.json and report.md (atomically, summary last)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..runner import SUMMARY, RunOutcome
from ..summary import build_summary
from .markdown import render_run_markdown


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_run_outputs(outcome: RunOutcome, *, record_mode: str) -> dict[str, Any]:
    summary = build_summary(
        suite=outcome.suite,
        run_id=outcome.run_dir.name,
        results=outcome.results,
        record_mode=record_mode,
        wall_s=outcome.wall_s,
    )
    atomic_write(outcome.run_dir / "report.md", render_run_markdown(summary, outcome.results))
    # summary.json last: its presence marks the run as finished (an unfinished run is resumed)
    atomic_write(outcome.run_dir / SUMMARY, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return summary
