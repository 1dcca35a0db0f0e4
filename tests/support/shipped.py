"""A copy of the shipped project (the repository's suites, prompts and fixtures) for a test to change."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def shipped_project(root: Path, *, suites: tuple[str, ...] = (), cassettes: tuple[str, ...] = ()) -> Path:
    """`root` holding every prompt and chunk of the repository, the named suites (`suites/<name>.yaml`)
    and the named suites' cassettes; `suites/` exists, empty without `suites`."""
    (root / "suites").mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "prompts", root / "prompts")
    shutil.copytree(REPO / "fixtures" / "chunks", root / "fixtures" / "chunks")
    for name in cassettes:
        shutil.copytree(REPO / "fixtures" / "cassettes" / name, root / "fixtures" / "cassettes" / name)
    for name in suites:
        shutil.copy(REPO / "suites" / f"{name}.yaml", root / "suites" / f"{name}.yaml")
    return root
