"""The README is a contract: every command block in it runs as pasted on a fresh clone after `make run`.

The blocks (```bash, ```sh, ```console: the lines after `$ `) are run one by one with bash, each in
its own copy of a scratch clone (the tracked files) on which `make run`'s commands have run, with
the package's environment first on PATH (the README asks for `. .venv/bin/activate`). Blocks made
only of `make` commands are the harness's own and are left out; a block preceded by
`<!-- not run: REASON -->` is left out for that reason, and there must be few of those.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
MAKEFILE = REPO / "Makefile"
MAX_NOT_RUN = 3  # blocks that need a key, an endpoint or a person; each says why
_BLOCK = re.compile(r"^```(bash|sh|console)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*\Z", re.S)


@dataclass(frozen=True)
class Block:
    line: int
    script: str
    not_run: str | None  # the reason given in the README, when it is marked


def readme_blocks(text: str) -> list[Block]:
    """Every shell block of the README but those made only of `make` commands."""
    blocks = []
    for match in _BLOCK.finditer(text):
        lang, body = match.group(1), match.group(2)
        lines = body.splitlines()
        if lang == "console":
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        commands = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
        if commands and all(line.lstrip().startswith("make ") for line in commands):
            continue
        before = text[:match.start()].rstrip()
        marked = _NOT_RUN.search(before)
        blocks.append(Block(text.count("\n", 0, match.start()) + 1, "\n".join(lines) + "\n",
                            marked.group(1) if marked else None))
    return blocks


def make_run_commands(makefile: str) -> list[str]:
    """The recipe of `make run` (its install step aside: the package is installed already)."""
    lines = makefile.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"run\s*:", line))
    recipe: list[str] = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        if recipe and recipe[-1].endswith("\\"):
            recipe[-1] = recipe[-1][:-1] + " " + line.strip()
        else:
            recipe.append(line.strip())
    return [command.replace("$(BIN)/", "") for command in recipe]


def _env() -> dict[str, str]:
    """A user's shell: the package's bin first, no key (nothing may be recorded), not inside pytest."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AZURE_OPENAI_", "PYTEST_", "HARNESS_")) and k not in ("CI", "GITHUB_STEP_SUMMARY")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=900)


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def after_make_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch clone (the tracked files) on which `make run`'s commands have run."""
    clone = tmp_path_factory.mktemp("clone") / "repo"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    commands = make_run_commands(MAKEFILE.read_text(encoding="utf-8"))
    assert commands, "no recipe found for `make run` in the Makefile"
    for command in commands:
        done = _bash(command, clone)
        assert done.returncode == 0, f"make run: {command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return clone


def test_the_readme_has_command_blocks_and_few_are_not_run() -> None:
    assert len(BLOCKS) >= 4
    not_run = [b for b in BLOCKS if b.not_run is not None]
    assert len(not_run) <= MAX_NOT_RUN, [b.line for b in not_run]
    assert all(b.not_run for b in not_run)  # each says why


def test_the_block_reader_honours_marks_console_prompts_and_make() -> None:
    text = ("```sh\nmake run\nmake test   # x\n```\n\n<!-- not run: needs a key -->\n```bash\nharness record s\n```\n"
            "```console\n$ harness run s\nsome output\n```\n")
    blocks = readme_blocks(text)
    assert [(b.script, b.not_run) for b in blocks] == [("harness record s\n", "needs a key"),
                                                       ("harness run s\n", None)]


def test_make_run_recipe_is_read_from_the_makefile() -> None:
    makefile = "x:\n\techo\n\nrun: install\n\t$(BIN)/harness run a \\\n\t\t--gate\n\t$(BIN)/harness tune b\n\ntest:\n\tpytest\n"
    assert make_run_commands(makefile) == ["harness run a  --gate", "harness tune b"]


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.not_run is None], ids=lambda b: f"README.md:{b.line}")
def test_readme_block_runs_as_pasted_after_make_run(block: Block, after_make_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(after_make_run, copy, symlinks=True)  # each block on its own copy: blocks do not see each other
    done = _bash(block.script, copy)
    assert done.returncode == 0, (f"README.md:{block.line}: exit {done.returncode}\n{block.script}\n"
                                  f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}")
