"""Atomic file writes: a reader (or a rerun after a kill) sees the old file or the new one, never
half of one.

The content goes to a temporary file in the same folder (so the final rename stays on one file
system), which is then renamed over the target. The temporary name comes from `mkstemp`, unique
across processes and threads. Files are written with mode 0644 on purpose: results, reports and
cassettes hold no credential (keys are scrubbed before anything is written) and are meant to be
read and committed, whatever the process umask.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FILE_MODE = 0o644


def atomic_write(path: Path, content: str | bytes | Iterable[str], *, mode: int = FILE_MODE) -> None:
    """Write `content` (text as UTF-8, bytes as they are, or text chunks in order) to `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)  # mkstemp makes 0600
        if isinstance(content, bytes):
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                if isinstance(content, str):
                    handle.write(content)
                else:
                    handle.writelines(content)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_json(path: Path, data: Any) -> None:
    """`data` as indented UTF-8 JSON with a final newline (summaries, verdicts, baselines)."""
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
