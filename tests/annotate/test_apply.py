"""`--apply REVIEWED.yaml` (harness/annotate/apply.py): what is not a reviewed file says what it is
(issue 28 item 22)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from harness.annotate.apply import read_reviewed
from harness.errors import InputError


def test_a_missing_reviewed_file_is_named_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such reviewed gold file"):
        read_reviewed(tmp_path / "reviewed.yaml")


def test_a_folder_is_named_a_folder(tmp_path: Path) -> None:
    (tmp_path / "reviewed.yaml").mkdir()
    with pytest.raises(InputError, match="is a folder") as caught:
        read_reviewed(tmp_path / "reviewed.yaml")
    assert "no such" not in caught.value.message


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "reviewed.yaml"
    os.mkfifo(path)
    writer = threading.Thread(target=lambda: os.close(os.open(path, os.O_WRONLY)), daemon=True)
    writer.start()
    try:
        with pytest.raises(InputError, match="not a regular file") as caught:
            read_reviewed(path)
        assert "no such" not in caught.value.message
    finally:
        if writer.is_alive():
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(5)
