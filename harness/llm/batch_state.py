"""The state file of `harness record --batch` (`.batch-state` beside the suite's cassettes): read
back as the harness wrote it, or refused in one line.

It is written by the harness but lives in the project, where anything may replace it: a FIFO, a
2 GB file, a hand edit with `"phase": "two"`, 100,000 nested brackets. It is read with the bounded
reader and the JSON policy every file gets (harness/inputfiles.py), then checked field by field, so
what `record_batch` takes from it has the types it expects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..atomicfile import atomic_write_json
from ..errors import InputError
from ..inputfiles import MAX_RUN_FILE_BYTES, load_json, shown_path

STATE_VERSION = 1
# The state holds every answer of the batch's finished phases: a run file's bound.
MAX_STATE_BYTES = MAX_RUN_FILE_BYTES
_FRESH = "; delete it to start a new batch"


def load_state(path: Path) -> dict[str, Any]:
    """The state saved by an interrupted `record --batch`, {} when there is none."""
    if not path.exists():  # nothing there, or a dangling link: no batch to resume
        return {}
    try:
        data = load_json(path, limit=MAX_STATE_BYTES, what="batch state")
    except InputError as exc:
        raise InputError(f"{exc.message}{_FRESH}") from None
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION or isinstance(data.get("version"), bool):
        raise InputError(f"{shown_path(path)}: not a batch state of this harness (version {STATE_VERSION}){_FRESH}")
    problem = _problem(data)
    if problem is not None:
        raise InputError(f"{shown_path(path)}: batch state damaged: {problem}{_FRESH}")
    return data


def save_state(path: Path, state: dict[str, Any]) -> None:
    atomic_write_json(path, {"version": STATE_VERSION, **state})


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _problem(data: dict[str, Any]) -> str | None:
    """What is wrong with the fields of a state, None when nothing is."""
    for key in ("phase", "lines"):
        if key in data and not _count(data[key]):
            return f"`{key}` is not a whole number of 0 or more"
    for key in ("failed", "batch_ids"):
        if key in data and not _texts(data[key]):
            return f"`{key}` is not a list of texts"
    answers = data.get("answers", {})
    if not isinstance(answers, dict):
        return "`answers` is not an object"
    for case, calls in answers.items():
        if not isinstance(calls, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in calls.items()):
            return f"`answers.{case[:60]}` is not an object of request hash -> answer text"
    opened = data.get("open")
    if opened is not None:
        if not isinstance(opened, dict):
            return "`open` is not an object"
        for group, batch in opened.items():
            if not (isinstance(batch, dict) and isinstance(batch.get("id"), str) and isinstance(batch.get("digest"), str)):
                return f"`open.{group[:60]}` is not an object with a text `id` and `digest`"
    return None
