"""`harness view [REPORTS_DIR] [--out DIR]`: write the static site over every run (docs/view.md; the
site is built by harness/viewer/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

ReportsArg = Annotated[Path, typer.Argument(help="Folder of run folders (<reports>/<suite>/<run-id>/) and baselines.")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", help="Where the site is written (default: <REPORTS_DIR>/view).")]


def view_command(reports: ReportsArg = Path("reports"), out: OutOpt = None) -> None:
    """Write a static site over every run of every suite: trends, two-run comparisons, per-case graph diffs."""
    from ..viewer.build import INDEX, build_site

    target = out if out is not None else reports / "view"
    result = build_site(reports, target)
    for path, reason in result.skipped:
        typer.echo(f"skipped {path}: {reason}", err=True)
    typer.echo(f"{result.runs} run(s) of {result.suites} suite(s), {result.pairs} precomputed pair(s); "
               f"data files: {result.written} written, {result.reused} reused, {result.removed} removed; "
               f"index {result.index_bytes:,} bytes")
    typer.echo(f"open {target / INDEX}")
