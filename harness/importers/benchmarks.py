"""What the benchmark importers (Text2KGBench, DocRED) share: reading their JSON and JSON Lines
files with one-line errors, the output format their prompts ask for, and gold entity lists whose
names and aliases stay unique (suites.load_suite refuses a name listed twice in a case).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import JsonRefused, jsonl_lines, loads, read_text

# The output format of the prompts written for benchmark suites: one `predicate(subject, object)`
# per line, as Text2KGBench's prompts ask (harness/formats, added with issue 16).
FUNCTION_FORMAT = "function"

# Benchmark files are larger than a prompt or a chunk (DocRED's train file is ~40 MB).
MAX_BENCHMARK_BYTES = 512 * 1024 * 1024


def read_json_file(path: Path, what: str) -> Any:
    """The JSON value of a file, or InputError naming the file, line and problem."""
    text = read_text(path, limit=MAX_BENCHMARK_BYTES, what=what)
    try:
        return loads(text)  # the JSON policy: deep nesting and 5,000-digit numbers are one line, not a traceback
    except JsonRefused as exc:
        raise InputError(f"{path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None


def read_jsonl_file(path: Path, what: str) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file (blank lines skipped), or InputError naming file:line."""
    text = read_text(path, limit=MAX_BENCHMARK_BYTES, what=what)
    rows: list[dict[str, Any]] = []
    for number, line in jsonl_lines(text):  # "\n" only: a sentence may hold U+2028
        if not line.strip():
            continue
        try:
            row = loads(line)
        except JsonRefused as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
        if not isinstance(row, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, found {type(row).__name__}")
        rows.append(row)
    return rows


class GoldNames:
    """The gold entities of one case, with every name and alias used once (first come, first kept)."""

    def __init__(self) -> None:
        self.entities: list[dict[str, Any]] = []
        self._taken: set[str] = set()

    def taken(self, name: str) -> bool:
        return name in self._taken

    def add(self, name: str, *, type: str = "", aliases: list[str] | tuple[str, ...] = ()) -> None:
        """Add an entity; aliases equal to its name or already used by another entity are left out."""
        kept = [a for a in dict.fromkeys(aliases) if a and a != name and a not in self._taken]
        entity: dict[str, Any] = {"name": name}
        if type:
            entity["type"] = type
        if kept:
            entity["aliases"] = kept
        self.entities.append(entity)
        self._taken.update([name, *kept])
