"""`harness estimate`'s bad input: one line each, exit 2, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main

REPO = Path(__file__).resolve().parents[2]


def _line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["estimate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_one_line_and_exit_2_for_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    podcast = str(REPO / "suites" / "podcast.yaml")
    assert "give --corpus DIR, or --documents N with --tokens T" in _line(capsys, podcast)
    assert "give --corpus DIR, or --documents N" in _line(capsys, podcast, "--corpus", str(tmp_path), "--documents", "3",
                                                          "--tokens", "9")
    assert "--documents and --tokens go together" in _line(capsys, podcast, "--documents", "3")
    assert "is no indexing stage" in _line(capsys, str(REPO / "suites" / "podcast-global-map.yaml"),
                                           "--documents", "3", "--tokens", "9000")
    assert "no finished run of suite podcast" in _line(capsys, podcast, "--documents", "3", "--tokens", "9000",
                                                       "--reports", str(tmp_path))
    assert "not a variant of suite podcast" in _line(capsys, podcast, "--documents", "3", "--tokens", "9000",
                                                     "--variant", "nope")
    assert "not a folder" in _line(capsys, podcast, "--corpus", str(tmp_path / "missing"))
    assert "--documents" in _line(capsys, podcast, "--documents", "0", "--tokens", "9")  # Typer's range check

