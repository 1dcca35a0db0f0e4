"""Atomic file writes: a reader (or a rerun after a kill) sees the old file or the new one, never
half of one.

The content goes to a temporary file in the same folder (so the final rename stays on one file
system), which is then renamed over the target. The folder is checked first (`confined.check_folder`):
no link on its way may lead out of the project folder, so a planted `reports -> ~/.config` stops
the write in one line; a link in the target's own place is replaced, never written through. The
temporary name comes from `mkstemp`, unique
across processes and threads. Files are written with mode 0644 on purpose: results, reports and
cassettes hold no credential and are meant to be read and committed, whatever the process umask.
Text is scrubbed here (`known_keys.scrub_chunks`): every key the harness knows, in any common
encoding, is `[REDACTED]` in whatever any command writes; bytes (plots, caches) are written as given.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from .confined import make_folder
from .known_keys import scrub, scrub_chunks

FILE_MODE = 0o644


def atomic_write(path: Path, content: str | bytes | Iterable[str], *, mode: int = FILE_MODE,
                 roots: Iterable[Path] = ()) -> None:
    """Write `content` (text as UTF-8, bytes as they are, or text chunks in order) to `path`;
    text with every known key redacted.

    `roots`: project folders besides the working folder whose links must not lead out (the
    project of the suite whose cassettes are written)."""
    make_folder(path.parent, roots)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)  # mkstemp makes 0600
        if isinstance(content, bytes):
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                if isinstance(content, str):
                    handle.write(scrub(content))
                else:
                    handle.writelines(scrub_chunks(content))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_json(path: Path, data: Any, *, roots: Iterable[Path] = ()) -> None:
    """`data` as indented UTF-8 JSON with a final newline (summaries, verdicts, baselines)."""
    atomic_write(path, iter_json(data), roots=roots)


# --------------------------------------------------------------------------- indented JSON, faster
#
# `json.dumps(data, indent=2, ensure_ascii=False)` runs the pure-Python encoder (the C one has no
# indent), which is most of the time spent writing a large summary.json. `iter_json` gives the very
# same text: the same separators (",", ": "), the same leaves (the C string encoder, `float.__repr__`
# with NaN/Infinity, `int.__repr__`, the same key conversions), in chunks, so a large document is
# never held whole. tests/test_atomicfile.py checks it against json.dumps on tricky values.

_INDENT = "  "
_STREAM_DEPTH = 4  # containers this shallow are written item by item; deeper ones as one string
_encode_str = json.encoder.encode_basestring  # what json.dumps uses with ensure_ascii=False


def json_float(value: float) -> str:
    """A float as `json.dumps` writes it (allow_nan: NaN, Infinity, -Infinity)."""
    if value != value:
        return "NaN"
    if value == math.inf:
        return "Infinity"
    if value == -math.inf:
        return "-Infinity"
    return float.__repr__(value)


def _scalar(value: Any) -> str | None:
    """A leaf as json.dumps writes it, in its order of checks; None for a container (or anything else)."""
    if isinstance(value, str):
        return _encode_str(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return json_float(value)
    return None


def _key(key: Any) -> str:
    """A dict key as json.dumps writes it (a string, or a number, boolean or null made one)."""
    if isinstance(key, str):
        return _encode_str(key)
    if isinstance(key, float):
        return _encode_str(json_float(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return _encode_str(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _not_serializable(value: Any) -> TypeError:
    return TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


_LEAF_TYPES = frozenset({str, int, float, bool, type(None)})
_flat_encoders: dict[int, Callable[[Any, int], list[str]]] = {}


def _flat(container: list | tuple | dict, level: int) -> str | None:
    """A non-empty container of plain leaves only (keys too), by the C encoder with the indentation
    of `level` as its item separator; None for any other container or without the C encoder."""
    make = getattr(json.encoder, "c_make_encoder", None)  # absent from the stubs: None without the C encoder
    if make is None:
        return None
    items = container.values() if isinstance(container, dict) else container
    if not (_LEAF_TYPES.issuperset(map(type, items))
            and (not isinstance(container, dict) or _LEAF_TYPES.issuperset(map(type, container)))):
        return None
    encoder = _flat_encoders.get(level)
    if encoder is None:
        encoder = _flat_encoders[level] = make(None, None, _encode_str, None, ": ", ",\n" + _INDENT * (level + 1),
                                               False, False, True)
    text = "".join(encoder(container, 0))  # "[a,\n  b]": add the breaks after the opening and before the closing
    return text[0] + "\n" + _INDENT * (level + 1) + text[1:-1] + "\n" + _INDENT * level + text[-1]


def _encode(value: Any, level: int) -> str:
    """`value` at nesting `level`, as one string."""
    leaf = _scalar(value)
    if leaf is not None:
        return leaf
    if isinstance(value, (list, tuple, dict)):
        if not value:
            return "{}" if isinstance(value, dict) else "[]"
        flat = _flat(value, level)
        if flat is not None:
            return flat
    inner = "\n" + _INDENT * (level + 1)
    if isinstance(value, (list, tuple)):
        return "[" + inner + ("," + inner).join([_encode(item, level + 1) for item in value]) + "\n" + _INDENT * level + "]"
    if isinstance(value, dict):
        return "{" + inner + ("," + inner).join(
            [_key(key) + ": " + _encode(item, level + 1) for key, item in value.items()]) + "\n" + _INDENT * level + "}"
    raise _not_serializable(value)


def _chunks(value: Any, level: int) -> Iterator[str]:
    """`value` at nesting `level` in chunks: shallow containers item by item."""
    if level >= _STREAM_DEPTH or not value or _scalar(value) is not None:
        yield _encode(value, level)
        return
    inner = "\n" + _INDENT * (level + 1)
    if isinstance(value, (list, tuple)):
        opening, closing, items = "[", "]", (("", item) for item in value)
    elif isinstance(value, dict):
        opening, closing, items = "{", "}", ((_key(key) + ": ", item) for key, item in value.items())
    else:
        raise _not_serializable(value)
    separator = opening + inner
    for prefix, item in items:
        yield separator + prefix
        yield from _chunks(item, level + 1)
        separator = "," + inner
    yield "\n" + _INDENT * level + closing


def iter_json(data: Any) -> Iterator[str]:
    """`json.dumps(data, indent=2, ensure_ascii=False) + "\\n"`, the same text, in chunks."""
    yield from _chunks(data, 0)
    yield "\n"
