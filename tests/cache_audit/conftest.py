"""The hand-written fixture caches (tests/fixtures/caches, hand count in its README), copied to a
temporary folder with a `.git` folder added: git cannot commit a folder named .git."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CACHES = Path(__file__).resolve().parents[1] / "fixtures" / "caches"


@pytest.fixture()
def caches(tmp_path: Path) -> Path:
    root = tmp_path / "caches"
    shutil.copytree(CACHES, root)
    git = root / "graphrag-2" / ".git"
    (git / "objects" / "ab").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "objects" / "ab" / "cdef0123").write_bytes(b"x\x01\x00binary object")
    (git / "description.json").write_text('{"result": "looks like a cache entry but sits in .git"}')
    return root
