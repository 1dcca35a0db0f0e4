"""`harness.cli.main` lists every command: the help shows them, each renders its own help."""

from __future__ import annotations

import typer.main

from harness.cli import app, main
from harness.cli.options import RegistryHelpCommand

COMMANDS = ["run", "record", "parse", "score", "evaluate", "citations", "audit-cache", "compare", "gate", "merge",
            "inspect", "report", "estimate", "tune", "annotate", "export", "diff", "view", "version"]
GROUPS = {"cassettes": ["audit"], "baseline": ["update"],
          "prompts": ["lint", "render", "export", "list", "kinds", "show"],
          "import": ["graphrag", "lightrag", "llamaindex", "text2kgbench", "webnlg", "webnlg-candidates", "docred"]}


def test_the_app_holds_every_command_in_help_order():
    group = typer.main.get_command(app)
    assert list(group.list_commands(None)) == [*COMMANDS, *GROUPS]  # type: ignore[attr-defined]
    for name, subcommands in GROUPS.items():
        sub = group.commands[name]  # type: ignore[attr-defined]
        assert list(sub.list_commands(None)) == subcommands
        assert all(isinstance(sub.commands[c], RegistryHelpCommand) for c in subcommands)
    assert all(isinstance(group.commands[c], RegistryHelpCommand) for c in COMMANDS)  # type: ignore[attr-defined]


def test_every_command_prints_its_help_with_no_placeholder_left(capsys):
    for argv in [[c] for c in COMMANDS] + [[g, c] for g, cs in GROUPS.items() for c in cs]:
        assert main([*argv, "--help"]) == 0, argv
        out = capsys.readouterr().out
        assert "Usage: harness " + " ".join(argv) in " ".join(out.split()) and "\ue000" not in out, argv


def test_python_dash_m_runs_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "harness.cli", "version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip()
