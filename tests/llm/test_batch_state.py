"""The `.batch-state` of `harness record --batch` read back (issue 28 item 13): whatever replaced it
(a hand edit, a FIFO, a huge or deep file, a 5,000-digit number) is one line, exit 2, never a
traceback from `int(state["phase"])` deep in the batch loop."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.llm.batch_state import load_state, save_state

GOOD = ('{"version": 1, "phase": 1, "open": {"g": {"id": "batch_1", "digest": "d"}}, "answers": {"v/c/s0": {"h": "{}"}},'
        ' "failed": ["v/d/s0"], "batch_ids": ["batch_1"], "lines": 3}')


def test_a_state_the_harness_wrote_reads_back(tmp_path: Path) -> None:
    path = tmp_path / ".batch-state"
    save_state(path, {"phase": 2, "open": None, "answers": {"v/c/s0": {"h": "{}"}}, "failed": [], "batch_ids": ["b"],
                      "lines": 4})
    assert load_state(path)["phase"] == 2
    path.write_text(GOOD, encoding="utf-8")
    assert load_state(path)["open"] == {"g": {"id": "batch_1", "digest": "d"}}
    assert load_state(tmp_path / "none") == {}


@pytest.mark.parametrize("text, problem", [
    ("{oops", "not JSON"),
    ("[1, 2]", "not a batch state"),
    ('{"version": "1"}', "not a batch state"),
    ('{"version": true}', "not a batch state"),
    ('{"version": 1, "phase": "two"}', "`phase` is not a whole number"),
    ('{"version": 1, "phase": []}', "`phase` is not a whole number"),
    ('{"version": 1, "phase": NaN}', "`phase` is not a whole number"),
    ('{"version": 1, "phase": Infinity}', "`phase` is not a whole number"),
    ('{"version": 1, "phase": 1.5}', "`phase` is not a whole number"),
    ('{"version": 1, "phase": -3}', "`phase` is not a whole number"),
    ('{"version": 1, "phase": true}', "`phase` is not a whole number"),
    ('{"version": 1, "lines": "many"}', "`lines` is not a whole number"),
    ('{"version": 1, "answers": []}', "`answers` is not an object"),
    ('{"version": 1, "answers": {"v/c/s0": []}}', "`answers.v/c/s0` is not an object"),
    ('{"version": 1, "answers": {"v/c/s0": {"h": 5}}}', "`answers.v/c/s0` is not an object"),
    ('{"version": 1, "failed": 5}', "`failed` is not a list of texts"),
    ('{"version": 1, "failed": [[1]]}', "`failed` is not a list of texts"),
    ('{"version": 1, "batch_ids": {"a": 1}}', "`batch_ids` is not a list of texts"),
    ('{"version": 1, "open": []}', "`open` is not an object"),
    ('{"version": 1, "open": {"g": "batch_1"}}', "`open.g` is not an object with a text `id`"),
    ('{"version": 1, "open": {"g": {"id": 5, "digest": "d"}}}', "`open.g` is not an object with a text `id`"),
    ('{"version": 1, "answers": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper than"),
    ('{"version": 1, "lines": ' + "9" * 5000 + "}", "number longer than"),
])
def test_a_tampered_state_is_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / ".batch-state"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=problem) as caught:
        load_state(path)
    assert caught.value.message.startswith(str(path)) and caught.value.message.endswith("to start a new batch")
    assert "\n" not in caught.value.message


def test_a_huge_state_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.llm import batch_state

    monkeypatch.setattr(batch_state, "MAX_STATE_BYTES", 1000)
    path = tmp_path / ".batch-state"
    with path.open("wb") as handle:
        handle.write(b'{"version": 1, "answers": {"')
        handle.truncate(10**9)  # sparse: nothing of it is read
    with pytest.raises(InputError, match="larger than the 1000 byte limit"):
        load_state(path)


def test_a_fifo_state_does_not_hang(tmp_path: Path) -> None:
    path = tmp_path / ".batch-state"
    os.mkfifo(path)
    writer = threading.Thread(target=lambda: os.close(os.open(path, os.O_WRONLY)), daemon=True)
    writer.start()  # on a reader that blocks, this pairs with it and the reader sees an empty file
    try:
        with pytest.raises(InputError, match="not a regular file"):
            load_state(path)
    finally:
        if writer.is_alive():  # the reader never opened it blocking: let the writer go
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(5)
