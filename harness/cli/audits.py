"""`harness audit-cache` and `harness cassettes audit`: commands that audit stored model answers
(an engine's LLM cache; the suites' cassettes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import InputError
from .options import CACHE_ENGINE_HELP, JsonOpt
from .render import emit_json


def audit_cache_command(
    folder: Annotated[Path, typer.Argument(help="A GraphRAG cache folder (0.x to 3.x) or a LightRAG kv_store_llm_response_cache.json (or a folder holding them).")],
    engine: Annotated[Optional[str], typer.Option("--engine", help=CACHE_ENGINE_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON row per entry (JSON lines), then one line of totals.")] = False,
) -> None:
    """Classify every cached call by kind, read it with its kind's parser, and show what the engine's own parser kept and lost."""
    from ..cache_audit import ENGINES, audit_cache
    from ..cache_audit.totals import render

    if engine is not None and engine not in ENGINES:
        raise InputError(f"--engine: '{engine}' is not one of {', '.join(ENGINES)}")
    if not folder.exists():
        raise InputError(f"{folder}: not found")
    result = audit_cache(folder, engine=engine)
    if not result.rows and not result.skipped.empty_stores:
        skipped = result.skipped.line()
        raise InputError(f"{folder}: no cache entry here" + (f" ({skipped})" if skipped else ""))
    if json_out:
        for row in result.rows:
            sys.stdout.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
        sys.stdout.write(json.dumps({"totals": result.totals.to_json(), "skipped": dict(result.skipped.reasons),
                                     "empty_stores": result.skipped.empty_stores, "notes": result.notes},
                                    ensure_ascii=False) + "\n")
        return
    for line in render(result.rows, result.totals, result.skipped.line(), str(folder), result.notes,
                       result.skipped.empty_stores):
        typer.echo(line)



def _default_suites(suites: list[Path] | None) -> list[Path]:
    if suites:
        return suites
    found = sorted(Path("suites").glob("*.yaml"))
    if not found:
        raise InputError("no suite given and no suites/*.yaml here")
    return found


def cassettes_audit_command(
    suites: Annotated[Optional[list[Path]], typer.Argument(help="Suites to audit (default: suites/*.yaml).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Credentials, orphaned cassettes, and per case cassettes missing, stale or holding unused recordings; exit 1 on any."""
    from ..run.audit import audit_suites
    from ..suites import load_suite

    loaded = [load_suite(p) for p in _default_suites(suites)]
    findings = audit_suites(loaded)
    if json_out:
        emit_json({"findings": [f.to_json() for f in findings], "suites": [s.name for s in loaded]})
    else:
        for finding in findings:
            typer.echo(f"{finding.kind}: {finding.path}: {finding.detail}")
        typer.echo(f"{len(findings)} finding(s) in {len(loaded)} suite(s)")
    corrupt = [f for f in findings if f.kind == "corrupt"]
    if corrupt:  # a damaged cassette is bad input (exit 2), named on stderr after the full list
        more = f" (and {len(corrupt) - 1} more corrupt)" if len(corrupt) > 1 else ""
        raise InputError(corrupt[0].detail + more)
    raise typer.Exit(1 if findings else 0)

