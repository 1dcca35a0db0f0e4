"""The invented GraphRAG project `fixtures/projects/graphrag-detective`, imported the way a user
imports theirs: its folder copied into a fresh harness project, then `harness import graphrag`.

Shared by `scripts/record_fixture_project.py` (records the team's hand-written answers into the
committed cassettes) and `tests/test_fixture_project.py` (replays them end to end), so both see
exactly the same imported suite and therefore the same requests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
NAME = "graphrag-detective"
PROJECT = Path("fixtures") / "projects" / NAME
RESPONSES = Path("fixtures") / "responses" / NAME
CASSETTES = Path("fixtures") / "cassettes" / NAME


def import_fixture_project(root: Path, *, cassettes: bool = True, responses: bool = False) -> Path:
    """Copy the project into the empty harness project `root` (with the committed cassettes and,
    for recording, the hand-written answers), run `harness import graphrag` on it and return the
    suite it wrote, `root/suites/graphrag-detective.yaml`."""
    from harness.cli import main

    shutil.copytree(REPO / PROJECT, root / PROJECT)
    if cassettes and (REPO / CASSETTES).is_dir():
        shutil.copytree(REPO / CASSETTES, root / CASSETTES)
    if responses:
        shutil.copytree(REPO / RESPONSES, root / RESPONSES)
    out = root / "suites" / f"{NAME}.yaml"
    code = main(["import", "graphrag", str(root / PROJECT), "--out", str(out), "--name", NAME])
    if code != 0:
        raise RuntimeError(f"harness import graphrag {root / PROJECT} exited {code}")
    return out
