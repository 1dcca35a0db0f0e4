"""The source commit a run is started at."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from harness.provenance import source_commit

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="no git")


@needs_git
def test_commit_of_a_repository_and_none_outside(tmp_path):
    assert source_commit(tmp_path) is None  # not a repository (tmp is outside any)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
           "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    assert source_commit(tmp_path) is None  # a repository without a commit yet
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    (tmp_path / "sub").mkdir()
    assert source_commit(tmp_path / "sub") == head


def test_no_git_is_no_commit(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on the way
    assert source_commit(tmp_path) is None
