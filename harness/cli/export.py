"""`harness export RUN --to TARGET DEST`: a finished run written for other tools (docs/export.md;
the targets: harness/export/).

Registering the command imports nothing of a target: `otel` needs OpenTelemetry's SDK, loaded
only when a run is exported (tests/test_startup.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError

TARGETS = ("otel",)

RunArg = Annotated[Path, typer.Argument(help="A finished run folder (reports/<suite>/<run-id>/, or a file in it).", show_default=False)]
DestArg = Annotated[str, typer.Argument(help="A file (OTLP/JSON lines) or an http(s):// URL of an OTLP receiver (OTLP/HTTP protobuf; /v1/traces is added unless the URL ends in it).", show_default=False)]
ToOpt = Annotated[str, typer.Option("--to", help="What to write: otel (OpenTelemetry spans in the GenAI semantic conventions).", show_default=False)]


def export_command(run: RunArg, destination: DestArg, to: ToOpt) -> None:
    """Export a run for other tools: --to otel writes each call and its scores as OpenTelemetry spans."""
    if to not in TARGETS:
        raise InputError(f"--to: '{to}' is not one of {', '.join(TARGETS)}")
    try:
        from ..export.otel import export_run
    except ImportError:
        raise InputError("export --to otel needs OpenTelemetry's SDK and OTLP exporter: "
                         "pip install 'kg-prompt-harness[otel]'") from None
    done = export_run(run, destination)
    typer.echo(f"{done.spans} spans ({done.cases} cases, {done.calls} model calls, {done.evaluations} "
               f"evaluation events) in {done.requests} OTLP request(s) -> {done.destination}")
