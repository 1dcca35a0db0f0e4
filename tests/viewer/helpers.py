"""Two real runs of the shipped podcast suite, for the viewer's tests: the suite copied into a
temp project (a git repository when git is there), replayed once, then replayed again after its
`default` variant's prompt was changed to the tuned one (with the tuned variant's recorded
answers) and committed, as a prompt change between two commits would: the second run's commit,
answers, figures and graphs differ from the first's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

from harness.cli import main

REPO = Path(__file__).resolve().parents[2]


def _replay(suite: Path, reports: Path, run_id: str) -> Path:
    code = main(["run", str(suite), "--record-mode", "none", "--variant", "default", "--run-id", run_id,
                 "--reports", str(reports)])
    assert code in (0, 1)  # 1: a gate rule; the run itself finished
    return reports / "podcast" / run_id


def _commit(root: Path, message: str) -> str | None:
    """Commit everything in `root` (a new repository the first time); None without git."""
    if shutil.which("git") is None:
        return None
    git = ["git", "-C", str(root), "-c", "user.name=viewer test", "-c", "user.email=viewer@example.invalid",
           "-c", "commit.gpgsign=false"]
    if not (root / ".git").exists():
        subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A", "--", "suites", "prompts", "fixtures"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", message], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def two_runs(root: Path, reports: Path) -> tuple[str | None, str | None]:
    """Runs r1 (the shipped default prompt) and r2 (the tuned prompt under the name `default`),
    under `reports/podcast/`; returns the commit each was started at (None without git)."""
    for part in ("prompts", "fixtures/chunks/podcast", "fixtures/cassettes/podcast/default",
                 "fixtures/cassettes/podcast/tuned"):
        shutil.copytree(REPO / part, root / part)
    suite = root / "suites" / "podcast.yaml"
    suite.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "suites" / "podcast.yaml", suite)
    first = _commit(root, "the shipped podcast suite")
    _replay(suite, reports, "r1")
    data = yaml.safe_load(suite.read_text(encoding="utf-8"))
    data["variants"] = {"default": data["variants"]["tuned"]}
    suite.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    shutil.rmtree(root / "fixtures/cassettes/podcast/default")
    shutil.copytree(root / "fixtures/cassettes/podcast/tuned", root / "fixtures/cassettes/podcast/default")
    second = _commit(root, "default: the tuned prompt")
    _replay(suite, reports, "r2")
    return first, second
