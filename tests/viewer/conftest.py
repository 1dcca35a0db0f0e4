"""The two real runs the viewer's tests read (tests/viewer/helpers.py), made once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import two_runs


@pytest.fixture(scope="session")
def runs_project(tmp_path_factory) -> Path:
    """A project whose reports/ holds podcast runs r1 and r2 (read-only: copy before changing), and
    commits.txt the commit each run was started at (empty lines without git)."""
    root = tmp_path_factory.mktemp("view-project")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        commits = two_runs(root, root / "reports")
    (root / "commits.txt").write_text("\n".join(commit or "" for commit in commits), encoding="utf-8")
    return root
