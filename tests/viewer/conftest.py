"""The two real runs the viewer's tests read (tests/viewer/helpers.py), made once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import two_runs


@pytest.fixture(scope="session")
def runs_project(tmp_path_factory) -> Path:
    """A project whose reports/ holds podcast runs r1 and r2 (read-only: copy before changing)."""
    root = tmp_path_factory.mktemp("view-project")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        two_runs(root, root / "reports")
    return root
