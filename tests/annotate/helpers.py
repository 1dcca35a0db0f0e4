"""A shipped suite copied into a temp project with its gold removed, and the CLI, for annotate tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from harness.cli import main

REPO = Path(__file__).resolve().parents[2]

BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
CHROMIUM = Path("/usr/bin/chromium")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def suite_without_gold(root: Path, name: str = "podcast") -> Path:
    """suites/<name>.yaml of the repo in `root`, every case's entities and relationships removed,
    with its chunks, prompts and cassettes (so `harness run --record-mode none` replays it)."""
    shutil.copytree(REPO / "prompts", root / "prompts")
    shutil.copytree(REPO / "fixtures" / "chunks" / name, root / "fixtures" / "chunks" / name)
    shutil.copytree(REPO / "fixtures" / "cassettes" / name, root / "fixtures" / "cassettes" / name)
    data = yaml.safe_load((REPO / "suites" / f"{name}.yaml").read_text(encoding="utf-8"))
    for case in data["cases"]:
        case.pop("entities", None)
        case.pop("relationships", None)
    suite = root / "suites" / f"{name}.yaml"
    suite.parent.mkdir(parents=True, exist_ok=True)
    suite.write_text("# the shipped suite, gold removed\n" + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return suite


def replayed_run(capsys, suite: Path, run_id: str = "r1") -> Path:
    code, out, err = run_cli(capsys, "run", str(suite), "--record-mode", "none", "--run-id", run_id)
    assert code in (0, 1), err  # 1: the gate (no gold yet); the run itself finished
    return Path("reports") / suite.stem / run_id


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
