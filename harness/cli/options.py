"""The options and arguments commands share, declared once, and help texts read from the registries.

A list of names a registry holds (the output formats, the cache layouts ...) is never written
into a help text by hand: `from_registry` leaves a placeholder that `RegistryHelpCommand` fills
when the help is shown. The registries are read then, not when the CLI is imported, so the
start-up of light commands does not pay for them (tests/test_startup.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand

# --------------------------------------------------------------------------- help from registries

_MARK = "\ue000"  # private use, never typed in a help text, and not whitespace (which typer strips)
_PENDING: dict[str, Callable[[], str]] = {}


def from_registry(render: Callable[[], str]) -> str:
    """A placeholder for the text `render()` returns, filled in when a command's help is shown."""
    token = f"{_MARK}{len(_PENDING)}{_MARK}"
    _PENDING[token] = render
    return token


def fill_help(text: str | None) -> str | None:
    """`text` with every `from_registry` placeholder replaced by what its registry holds now."""
    if text is None or _MARK not in text:
        return text
    for token, render in _PENDING.items():
        if token in text:
            text = text.replace(token, render())
    return text


class RegistryHelpCommand(TyperCommand):
    """A command whose option and argument help may hold `from_registry` placeholders."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            if hasattr(param, "help"):
                param.help = fill_help(param.help)
        super().format_help(ctx, formatter)


def one_of(names: Sequence[str]) -> str:
    """`a, b or c`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _auto_and_formats() -> list[str]:
    from ..formats import AUTO, format_names

    return [AUTO, *format_names()]


def _format_list() -> str:
    from ..formats import format_names

    return ", ".join(format_names())


def _tunable_formats() -> str:
    from ..formats import format_names, get_format

    return one_of([name for name in format_names() if get_format(name).tune_base is not None])


# What each query-phase answer `harness parse` checks is (checks.query.QUERY_FORMATS); a query
# format that is also a registered output format is listed with those.
_QUERY_ANSWERS = {"map": "global-search map points", "drift": "DRIFT primer or local answer",
                  "rate": "rate-query answer"}


def _parse_formats() -> str:
    from ..checks.query import QUERY_FORMATS
    from ..formats import format_names

    registered = set(format_names())
    queries = [f"{name} ({_QUERY_ANSWERS[name]})" if name in _QUERY_ANSWERS else name
               for name in QUERY_FORMATS if name not in registered]
    return f"{one_of(_auto_and_formats())}; or a query-phase answer: {', '.join(queries)}."


def _cache_engines() -> str:
    from ..cache_audit.entry import ENGINES

    return one_of(ENGINES)


FORMAT_HELP = from_registry(lambda: one_of(_auto_and_formats()) + ".")
PARSE_FORMAT_HELP = from_registry(_parse_formats)
LINT_FORMAT_HELP = from_registry(lambda: f"Output format the answers are parsed as: {_format_list()}.")
TUNE_FORMAT_HELP = from_registry(lambda: f"Output format of the tuned prompt: {_tunable_formats()}.")
CACHE_ENGINE_HELP = from_registry(
    lambda: f"Force the engine and version instead of reading it from the layout: {_cache_engines()}.")

# --------------------------------------------------------------------------- shared options

SuitesArg = Annotated[list[Path], typer.Argument(help="Suite files (suites/*.yaml).", show_default=False)]
ModeOpt = Annotated[
    Optional[str],
    typer.Option("--record-mode", help="none (replay only), once, rewrite or all. Default: none for run; once for record (none when CI is set)."),
]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", help="Only these variants (repeatable).")]
ModelOpt = Annotated[Optional[list[str]], typer.Option("--model", help="Only the cells of these models of the suite's `models:` (repeatable; docs/suites.md).")]
CaseOpt = Annotated[Optional[list[str]], typer.Option("--case", help="Only these cases (repeatable).")]
ReportsOpt = Annotated[Path, typer.Option("--reports", help="Folder for run outputs.")]
RunIdOpt = Annotated[Optional[str], typer.Option("--run-id", help="Name the run folder, reports/<suite>/<run-id>/, of every suite given (resumes it if unfinished).")]
FreshOpt = Annotated[bool, typer.Option("--fresh", help="Start a new run instead of resuming an unfinished one.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
ShardOpt = Annotated[Optional[str], typer.Option("--shard", help="Run shard i of n (i/n, 1-based): the cases at positions i, i+n, ...; join shards with `harness merge`.")]
GateOpt = Annotated[bool, typer.Option("--gate", help="Exit 1 when a variant breaks a threshold or regresses against the baseline.")]
# the baseline a run being made is gated against (run, evaluate) ...
GateBaselineOpt = Annotated[Optional[Path], typer.Option("--baseline", help="Baseline file or folder for --gate (default: <reports>/baselines/<suite>.json).")]
# ... and the one a finished run is judged or reported against (gate, merge, report)
BaselineOpt = Annotated[
    Optional[Path],
    typer.Option("--baseline", help="Baseline file, or a folder of <suite>.json files. "
                                     "Default: <reports>/baselines/<suite>.json when it exists."),
]
AllowChangedGoldOpt = Annotated[bool, typer.Option("--allow-changed-gold", help="Give a verdict even when the gold of some case differs between the two sides (refused by default, exit 2): with a warning, recorded in the output.")]
RepeatOpt = Annotated[int, typer.Option("--repeat", min=1, help="Samples per case and variant: the same requests N times, each sample in its own cassette; the summary adds the spread across samples (docs/reports.md).")]
WorkersOpt = Annotated[Optional[int], typer.Option("--workers", min=0, help="Processes replaying cases: by default every usable CPU when the run has 100 rows or more; 1: all in this process (also HARNESS_WORKERS; see the README).")]
RayOpt = Annotated[Optional[str], typer.Option("--ray", help="Run the suite's shards as tasks on the Ray cluster at this address (host:port, or auto: the one this machine joined), then merge them into one run folder; the reports folder must be on storage every node sees (docs/ray.md; needs the ray extra).")]
RayShardsOpt = Annotated[Optional[int], typer.Option("--ray-shards", min=1, help="With --ray: how many shards (default: one per CPU of the cluster; a resumed run keeps its count).")]
BudgetOpt = Annotated[Optional[float], typer.Option("--budget", help="Dollars per 1,000 chunks: the report's frontier names the variant to pick within it (docs/reports.md, \"Frontier\").", show_default=False)]
OutsideChunksOpt = Annotated[bool, typer.Option("--allow-outside-chunks", help="Read chunk and variant prompt files that resolve outside the project folder (refused by default: both are sent to the model and written to cassettes and reports).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite files that exist.")]

FormatOpt = Annotated[str, typer.Option("--format", help=FORMAT_HELP)]
ParseFormatOpt = Annotated[str, typer.Option("--format", help=PARSE_FORMAT_HELP)]
TupleOpt = Annotated[str, typer.Option("--tuple-delimiter", help="Field delimiter of delimited output.")]
RecordOpt = Annotated[str, typer.Option("--record-delimiter", help="Record delimiter of delimited output.")]
CompletionOpt = Annotated[str, typer.Option("--completion-delimiter", help="Completion delimiter.")]
