"""The `harness` command.

Exit codes, the same everywhere: 0 all good; 1 a gate, lint or check failed; 2 bad input
or configuration (one line, no traceback); 3 a cassette is missing or stale while
replaying; 4 model calls still failing after retries.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import HarnessError, InputError

app = typer.Typer(
    name="harness",
    help="Regression testing for knowledge-graph extraction prompts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SuitesArg = Annotated[list[Path], typer.Argument(help="Suite files (suites/*.yaml).", show_default=False)]
ModeOpt = Annotated[
    Optional[str],
    typer.Option("--record-mode", help="none (replay only), once, rewrite or all. Default: none for run; once for record (none when CI is set)."),
]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", help="Only these variants (repeatable).")]
CaseOpt = Annotated[Optional[list[str]], typer.Option("--case", help="Only these cases (repeatable).")]
ReportsOpt = Annotated[Path, typer.Option("--reports", help="Folder for run outputs.")]
RunIdOpt = Annotated[Optional[str], typer.Option("--run-id", help="Name the run folder (resumes it if unfinished).")]
FreshOpt = Annotated[bool, typer.Option("--fresh", help="Start a new run instead of resuming an unfinished one.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _emit_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _evaluate(
    suites: list[Path],
    *,
    command: str,
    record_mode: str | None,
    variants: list[str] | None,
    cases: list[str] | None,
    reports: Path,
    run_id: str | None,
    fresh: bool,
    base_url: str | None = None,
    concurrency: int | None = None,
) -> list:
    from .llm.cassettes import RECORD_MODES, default_record_mode
    from .reports.console import print_run_table
    from .reports.writer import write_run_outputs
    from .runner import RunOptions, check_outcome, run_suite
    from .suites import load_suite

    mode = record_mode or default_record_mode(command)
    if mode not in RECORD_MODES:
        raise InputError(f"--record-mode: '{mode}' is not one of {', '.join(RECORD_MODES)}")
    if not suites:
        raise InputError("no suite given (try: harness run suites/*.yaml)")
    loaded = [load_suite(path) for path in suites]  # validate every suite before any call
    outcomes = []
    for suite in loaded:
        options = RunOptions(
            record_mode=mode,
            reports_dir=reports,
            run_id=run_id if len(loaded) == 1 else None,
            fresh=fresh,
            variants=variants,
            cases=cases,
            base_url=base_url,
            concurrency=concurrency,
            progress=True,
        )
        outcome = run_suite(suite, options)
        check_outcome(outcome)
        summary = write_run_outputs(outcome, record_mode=mode)
        print_run_table(summary, outcome.run_dir)
        outcomes.append((outcome, summary))
    return outcomes


@app.command()
def run(
    suites: SuitesArg,
    record_mode: ModeOpt = None,
    variant: VariantOpt = None,
    case: CaseOpt = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    fresh: FreshOpt = False,
) -> None:
    """Evaluate suites: render, replay (or call), parse, score, report."""
    _evaluate(suites, command="run", record_mode=record_mode, variants=variant, cases=case,
              reports=reports, run_id=run_id, fresh=fresh)


@app.command()
def record(
    suites: SuitesArg,
    record_mode: ModeOpt = None,
    variant: VariantOpt = None,
    case: CaseOpt = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    fresh: FreshOpt = False,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible endpoint (overrides the suite and OPENAI_BASE_URL).")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Most calls in flight.")] = None,
) -> None:
    """Run against the live endpoint and write cassettes (needs an API key)."""
    _evaluate(suites, command="record", record_mode=record_mode, variants=variant, cases=case,
              reports=reports, run_id=run_id, fresh=fresh, base_url=base_url, concurrency=concurrency)


def _register_subcommands() -> None:
    """Command groups that live beside the stage they drive."""
    from .prompts.commands import import_app, prompts_app

    app.add_typer(prompts_app, name="prompts", help="Check and render prompt files.")
    app.add_typer(import_app, name="import", help="Turn GraphRAG or LightRAG projects into suites.")


@app.command("version")
def version() -> None:
    """Print the harness version."""
    typer.echo(__version__)


def main(argv: list[str] | None = None) -> int:
    """Entry point: every HarnessError becomes one line on stderr and its exit code.

    Typer's own usage errors already print a short message and exit 2.
    """
    try:
        app(args=argv, prog_name="harness")
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except HarnessError as exc:
        sys.stderr.write(f"harness: {exc.message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("harness: interrupted; rerun the same command to resume\n")
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
