"""One atomic writer for results, reports, summaries, cassettes and the tokenizer seed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness.atomicfile import atomic_write, atomic_write_json


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "results.jsonl"
    target.write_text("old\n", encoding="utf-8")

    def rows():
        yield "new 1\n"
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        atomic_write(target, rows())
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]


def test_text_bytes_chunks_and_json_with_a_deliberate_mode(tmp_path: Path) -> None:
    old = os.umask(0o077)  # a strict umask must not make reports unreadable to CI
    try:
        atomic_write(tmp_path / "a" / "t.txt", "é\n")
        atomic_write(tmp_path / "b.bin", b"\x00\xff")
        atomic_write(tmp_path / "c.jsonl", iter(["1\n", "2\n"]))
        atomic_write_json(tmp_path / "d.json", {"name": "é"})
        atomic_write(tmp_path / "e", "x", mode=0o600)
    finally:
        os.umask(old)
    assert (tmp_path / "a" / "t.txt").read_text(encoding="utf-8") == "é\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    assert (tmp_path / "c.jsonl").read_text(encoding="utf-8") == "1\n2\n"
    assert (tmp_path / "d.json").read_text(encoding="utf-8") == '{\n  "name": "é"\n}\n'
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*") if p.is_file()}
    assert modes == {"t.txt": 0o644, "b.bin": 0o644, "c.jsonl": 0o644, "d.json": 0o644, "e": 0o600}
