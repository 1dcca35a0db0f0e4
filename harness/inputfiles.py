"""Reading files the user (or an earlier run) gave us, without trusting them.

Every file a command reads as input goes through `read_text`: only regular files (a FIFO would
block, `/dev/zero` never ends), at most a documented number of bytes, strict UTF-8. JSON goes
through `load_json`, which also bounds nesting depth, so a hostile file is one InputError naming
it, never a hang, a MemoryError or a RecursionError.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .errors import InputError

MIB = 1024 * 1024
# Suites, gold files, prompt templates, chunks: far above any real one, far below trouble.
MAX_INPUT_BYTES = 16 * MIB
# results.jsonl of a big run holds every raw answer; summaries and baselines are smaller.
MAX_RUN_FILE_BYTES = 1024 * MIB
# Deepest JSON nesting accepted; results rows nest about 8 levels.
MAX_JSON_DEPTH = 200
# Longest JSON integer accepted, in digits: Python's own int-string limit (4300 by default, and
# settable as low as 640) must never be what refuses a file, or its wording would be the message.
MAX_JSON_INT_DIGITS = 640


def read_bytes(path: Path, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is an InputError."""
    try:
        # O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{shown_path(path)}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{shown_path(path)}: is a folder, not a {what}") from None
    except ValueError:  # an embedded NUL byte
        raise InputError(f"{shown_path(path)}: not a valid file name") from None
    except OSError as exc:
        raise InputError(f"{shown_path(path)}: cannot read {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{shown_path(path)}: is a folder, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown_path(path)}: not a regular file (a device, pipe or socket cannot be a {what})")
        if info.st_size > limit:
            raise InputError(f"{shown_path(path)}: {what} of {info.st_size} bytes is larger than the {limit} byte limit")
        chunks: list[bytes] = []
        size = 0
        while True:  # st_size can lie (files growing, /proc): stop at the limit regardless
            block = os.read(fd, min(MIB, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
            if size > limit:
                raise InputError(f"{shown_path(path)}: {what} is larger than the {limit} byte limit")
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{shown_path(path)}: cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path: Path, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> str:
    """A regular file's text, strictly UTF-8 (a BOM is dropped)."""
    data = read_bytes(path, limit=limit, what=what)
    return decode_utf8(data, shown_path(path))


def decode_utf8(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than `limit` (a linear pre-scan).

    The scan is deliberately simple: it only has to bound what `json.loads` will recurse into,
    and strings are the one place brackets do not nest.
    """
    depth = 0
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def parse_json(text: str, name: str, *, limit: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` with nesting bounded; every failure is an InputError starting with `name`."""
    if _may_nest_deeper(text, limit) and json_depth_exceeds(text, limit):
        raise InputError(f"{name}: JSON nested deeper than {limit} levels")
    try:
        return json.loads(text, parse_int=_parse_int)
    except _LongInteger:
        raise InputError(f"{name}: JSON number longer than {MAX_JSON_INT_DIGITS} digits") from None
    except RecursionError:  # defence in depth: the pre-scan should have caught it
        raise InputError(f"{name}: JSON nested deeper than {limit} levels") from None
    except ValueError as exc:
        raise InputError(f"{name}: not JSON: {exc}") from None


class _LongInteger(Exception):
    """A JSON integer longer than MAX_JSON_INT_DIGITS (not a ValueError: json must not wrap it)."""


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise _LongInteger
    return int(digits)


def load_json(path: Path, *, limit: int = MAX_RUN_FILE_BYTES, what: str = "JSON file") -> Any:
    """A JSON file read through `read_text` and `parse_json`."""
    return parse_json(read_text(path, limit=limit, what=what), shown_path(path))


def _may_nest_deeper(text: str, limit: int) -> bool:
    """Cheap test first: fewer opening brackets than the limit cannot nest beyond it."""
    return text.count("[") + text.count("{") > limit


def shown_path(path: Path | str) -> str:
    """A path as printed in a one-line message: never thousands of characters, never a NUL."""
    text = str(path).replace("\x00", "\\0")
    return text if len(text) <= 200 else text[:120] + "..." + text[-60:]
