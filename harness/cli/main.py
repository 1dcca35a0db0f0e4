"""The `harness` command: every command and command group, listed here and only here.

Each group's commands live in a module of this package (run, answers, finished, audits, prompts,
imports, tune, annotate, export, diff, estimate, view); the options they share are declared in options.py,
option values are parsed in inputs.py and printed results are formatted in render.py. A command
module imports its stage's modules inside the command, so that listing the commands (and `--help`,
`version`) loads no model client, tokenizer or numerical library (tests/test_startup.py).

Exit codes, the same everywhere: 0 all good; 1 a gate, lint or check failed; 2 bad input
or configuration (one line, no traceback); 3 a cassette is missing or stale while
replaying; 4 model calls still failing after retries.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import typer

from .. import __version__
from ..errors import HarnessError
from . import annotate, answers, audits, diff, estimate, export, finished, imports, prompts, run, tune, view
from .options import RegistryHelpCommand

app = typer.Typer(
    name="harness",
    help="Regression testing for knowledge-graph extraction prompts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def version_command() -> None:
    """Print the harness version."""
    typer.echo(__version__)


def _group(help_text: str | None = None) -> typer.Typer:
    return typer.Typer(help=help_text, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


def _add(group: typer.Typer, commands: dict[str, Callable[..., Any]]) -> None:
    for name, function in commands.items():
        group.command(name, cls=RegistryHelpCommand)(function)


# In the order `harness --help` lists them: commands, then groups.
_add(app, {
    "run": run.run_command,
    "record": run.record_command,
    "parse": answers.parse_command,
    "score": answers.score_command,
    "evaluate": run.evaluate_command,
    "citations": answers.citations_command,
    "audit-cache": audits.audit_cache_command,
    "compare": finished.compare_command,
    "gate": finished.gate_command,
    "merge": finished.merge_command,
    "inspect": finished.inspect_command,
    "report": finished.report_command,
    "estimate": estimate.estimate_command,
    "tune": tune.tune_command,
    "annotate": annotate.annotate_command,
    "export": export.export_command,
    "diff": diff.diff_command,
    "view": view.view_command,
    "version": version_command,
})

cassettes_app = _group("Inspect recorded cassettes.")
_add(cassettes_app, {"audit": audits.cassettes_audit_command})
app.add_typer(cassettes_app, name="cassettes")

baseline_app = _group("Accept runs as the baseline later runs are gated against.")
_add(baseline_app, {"update": finished.baseline_update})
app.add_typer(baseline_app, name="baseline")

prompts_app = _group()
_add(prompts_app, {
    "lint": prompts.lint_command,
    "render": prompts.render_command,
    "export": prompts.export_command,
    "list": prompts.list_command,
    "kinds": prompts.kinds_command,
    "show": prompts.show_command,
})
app.add_typer(prompts_app, name="prompts", help="Check and render prompt files.")

import_app = _group()
_add(import_app, {
    "graphrag": imports.import_graphrag,
    "lightrag": imports.import_lightrag,
    "llamaindex": imports.import_llamaindex,
    "text2kgbench": imports.import_text2kgbench,
    "webnlg": imports.import_webnlg,
    "webnlg-candidates": imports.import_webnlg_candidates,
    "docred": imports.import_docred,
})
app.add_typer(import_app, name="import", help="Turn GraphRAG or LightRAG projects, or benchmarks (Text2KGBench, DocRED), into suites.")


def _usage_error_line(exc: Exception) -> str:
    """A Typer/Click usage error as one line: the command, then the message without its box."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path.removeprefix("harness").strip() if ctx is not None else ""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    return f"harness: {command + ': ' if command else ''}{' '.join(message.split())}"


def _unknown_option_line(exc: Exception) -> str:
    """An option the command does not take, as our own line: the command, the option, and every
    option the command does take, in its declared order (Click's own text suggests only the
    close matches, which can leave out the options the user needs)."""
    ctx = getattr(exc, "ctx", None)
    name = getattr(exc, "option_name", "") or "?"
    if ctx is None:
        return f"harness: unknown option {name}"
    command = ctx.command_path.removeprefix("harness").strip()
    options: list[str] = []
    for param in ctx.command.get_params(ctx):
        if getattr(param, "param_type_name", "") == "option" and not getattr(param, "hidden", False):
            names = [*param.opts, *param.secondary_opts]
            longest = [n for n in names if n.startswith("--")] or names
            options.extend(n for n in longest if n not in options)
    where = f"{command}: " if command else ""
    return (f"harness: {where}unknown option {name}; "
            f"{'`harness ' + command + '`' if command else '`harness`'} takes {', '.join(options) or 'no option'}")


INTERRUPTED = 130  # the shell's code for a Ctrl-C; no harness command returns it otherwise


def main(argv: list[str] | None = None) -> int:
    """Entry point: every HarnessError becomes one line on stderr and its exit code.

    Usage errors (unknown option, bad value, missing argument) are one line too, exit 2: Typer
    runs in non-standalone mode so its boxed, multi-line error never prints. Whatever the command
    prints, these lines included, passes through the one redaction of known keys (scrubbed_output).
    """
    from ..scrubbed_output import scrubbed_std_streams

    with scrubbed_std_streams():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, NoSuchOption, UsageError

    try:
        result = app(args=argv, prog_name="harness", standalone_mode=False)
    except NoArgsIsHelpError as exc:  # `harness` or `harness prompts` alone: the help, exit 2
        sys.stdout.write(exc.ctx.get_help() + "\n" if exc.ctx is not None else "")
        return 2
    except NoSuchOption as exc:
        sys.stderr.write(_unknown_option_line(exc) + "\n")
        return 2
    except UsageError as exc:
        sys.stderr.write(_usage_error_line(exc) + "\n")
        return 2
    except ClickException as exc:
        sys.stderr.write(f"harness: {' '.join(exc.format_message().split())}\n")
        return exc.exit_code if exc.exit_code in (0, 1, 2, 3, 4) else 2
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except HarnessError as exc:
        # one line even when the message quotes a path or value holding a newline
        message = exc.message.replace("\r", "\\r").replace("\n", "\\n")
        sys.stderr.write(f"harness: {message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("harness: interrupted; rerun the same command to resume\n")
        return INTERRUPTED
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A path the user gave that the system refuses (name too long, a loop of symlinks ...),
        # met by a probe such as Path.is_dir() outside the readers: bad input, one line.
        from ..inputfiles import shown_path

        name = shown_path(exc.filename) if exc.filename is not None else "input"
        message = " ".join(f"{name}: {exc.strerror or exc}".split())
        sys.stderr.write(f"harness: {message}\n")
        return 2
    if result == INTERRUPTED:  # Typer catches KeyboardInterrupt itself and returns 130
        sys.stderr.write("harness: interrupted; rerun the same command to resume\n")
        return INTERRUPTED
    return result if isinstance(result, int) and not isinstance(result, bool) else 0

