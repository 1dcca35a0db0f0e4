"""Find the cache entries under a path: walk the folder (hidden folders such as .git are not
entered), read each file that can be a cache entry, and count what is skipped and why. The only
module of harness.cache_audit that touches the file system."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from harness.cache_audit.entry import CacheEntry
from harness.cache_audit.layouts import graphrag_entry, is_lightrag_store, lightrag_entries
from harness.inputfiles import JsonRefused, UnreadableFile, loads, read_bytes

MAX_FILE_BYTES = 256 * 1024 * 1024
_SNIFF = 8192


@dataclass(slots=True)
class Skipped:
    """Files not audited, counted by reason (shown as one line, never as rows). `empty_stores`
    names the LightRAG stores that hold no entry yet: empty, not "no cache entry"."""

    reasons: Counter[str] = field(default_factory=Counter)
    empty_stores: list[str] = field(default_factory=list)

    def add(self, reason: str) -> None:
        self.reasons[reason] += 1

    @property
    def total(self) -> int:
        return sum(self.reasons.values())

    def line(self) -> str | None:
        if not self.reasons:
            return None
        parts = ", ".join(f"{n} {reason}" for reason, n in sorted(self.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"skipped {self.total} file(s): {parts}"


def _files(root: Path, skipped: Skipped) -> Iterator[tuple[Path, str]]:
    if root.is_file():
        yield root, root.name
        return
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        for name in sorted(d for d in dirs if d.startswith(".")):  # .git and other hidden folders: not entered
            skipped.reasons[f"in {name}/"] += sum(len(f) for _, _, f in os.walk(here / name))
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = here / name
            yield path, path.relative_to(root).as_posix()


def _read(path: Path, skipped: Skipped) -> tuple[object, bool] | None:
    """The file's JSON and whether it stores non-ASCII text as escapes (the text is ASCII, what
    it holds is not), or None after counting why it was skipped."""
    if path.name.startswith("."):
        skipped.add("hidden files")
        return None
    try:  # regular files of bounded size only: a FIFO would hang the walk, /dev/zero never ends
        data = read_bytes(path, limit=MAX_FILE_BYTES, what="cache entry")
    except UnreadableFile as exc:
        skipped.add(exc.reason if exc.reason in ("too large", "not a regular file") else "unreadable")
        return None
    if b"\x00" in data[:_SNIFF]:
        skipped.add("binary")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        skipped.add("binary")
        return None
    try:
        data = loads(text)  # the JSON policy: nesting and integer length bounded
    except JsonRefused:
        skipped.add("JSON past the harness's bounds (nesting, number length)")
        return None
    except ValueError:
        skipped.add("not JSON")
        return None
    escaped = "\\u" in text and text.isascii() and not json.dumps(data, ensure_ascii=False).isascii()
    return data, escaped


def discover(path: str | os.PathLike[str], skipped: Skipped) -> Iterator[CacheEntry]:
    """Every cache entry under `path` (a GraphRAG cache folder, a LightRAG kv store file, or a
    folder holding either), in path order; what is not one is counted in `skipped`."""
    root = Path(path)
    for file, rel in _files(root, skipped):
        read = _read(file, skipped)
        if read is None:
            continue
        data, escaped = read
        if is_lightrag_store(file.name, data):
            entries = lightrag_entries(rel, data)
            if not entries:
                skipped.add("empty LightRAG stores")
                skipped.empty_stores.append(rel)
            yield from entries
            continue
        entry = graphrag_entry(rel, data, escaped_non_ascii=escaped)
        if entry is None:
            skipped.add("JSON that is no cache entry")
            continue
        yield entry
