"""A GraphRAG project's input documents, read as GraphRAG's input loaders read them.

`text` files are one document each. `csv` and `json` files hold one document per row (a JSON
file is one object or a list of objects): its text is the `text` column if the file has one,
else the `text_column` setting (GraphRAG fills `text` from `text_column` only when `text` is
missing); its title is the `title_column` value, else the file's path. Where the settings say so:

| | 1.x | 2.x | 3.x |
| --- | --- | --- | --- |
| file type | `input.file_type` | `input.file_type` | `input.type` |
| columns | `input.text_column`, `input.title_column` | same | same |
| encoding | `input.encoding` / `input.file_encoding` | same | same |

GraphRAG 0.x used `input.type` for the file type too. Default file patterns follow the type:
`.*\\.txt$`, `.*\\.csv$`, `.*\\.json$`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import JsonRefused, csv_rows, loads, read_text, shown_path, universal_newlines
from .common import MAX_DOCUMENT_BYTES, InputDocument, PathPattern, find_files, outside_project
from .file_pattern import PatternRefused, compile_file_pattern

FILE_TYPES = ("text", "csv", "json")
DEFAULT_PATTERNS = {"text": r".*\.txt$", "csv": r".*\.csv$", "json": r".*\.json$"}
SUFFIXES = {"text": (".txt",), "csv": (".csv",), "json": (".json",)}


@dataclass
class InputSettings:
    """How GraphRAG reads the project's input files."""

    file_type: str = "text"
    file_pattern: str | None = None  # None: the type's default
    text_column: str = "text"
    title_column: str | None = None
    encoding: str = "utf-8"

    @property
    def pattern(self) -> str:
        return self.file_pattern or DEFAULT_PATTERNS[self.file_type]


def input_settings(section: dict[str, Any]) -> InputSettings:
    """The `input:` section of any GraphRAG version as InputSettings."""
    settings = InputSettings()
    declared = section.get("file_type") or section.get("type")  # 1.x/2.x file_type; 0.x and 3.x type
    if isinstance(declared, str) and declared.lower() in FILE_TYPES:
        settings.file_type = declared.lower()
    for key in ("text_column", "title_column", "file_pattern"):
        value = section.get(key)
        if isinstance(value, str) and value:
            setattr(settings, key, value)
    encoding = section.get("encoding") or section.get("file_encoding")
    if isinstance(encoding, str) and encoding:
        settings.encoding = encoding
    return settings


def read_documents(folder: Path, settings: InputSettings, warnings: list[str], *,
                   within: Path | None = None) -> list[InputDocument]:
    """Every row of the folder's CSV or JSON input files, in file order; problems go to `warnings`.
    A file resolving outside `within` (the imported project) is skipped."""
    pattern: PathPattern
    try:  # a project's pattern is input: matched without backtracking (file_pattern.py)
        pattern = compile_file_pattern(settings.pattern)
    except PatternRefused as exc:
        if settings.file_pattern is not None and "not a regular expression" not in str(exc):
            warnings.append(f"input file_pattern {settings.file_pattern[:80]!r}: {exc}; the files of the "
                            f"{settings.file_type} type's default pattern are read instead")
        pattern = re.compile(DEFAULT_PATTERNS[settings.file_type])
    files = find_files(folder, pattern, suffixes=SUFFIXES[settings.file_type])
    documents: list[InputDocument] = []
    for path in files:
        if within is not None and outside_project(path, within, warnings):
            continue
        try:  # bounded, regular files only (a FIFO would hang, /dev/zero never ends)
            raw = universal_newlines(read_text(path, limit=MAX_DOCUMENT_BYTES, what="input file",
                                               encoding=settings.encoding))
            rows = csv_rows(raw, shown_path(path)) if settings.file_type == "csv" else _json_rows(raw, path, warnings)
        except InputError as exc:
            warnings.append(f"{exc.message}: skipped")
            continue
        documents.extend(_row_documents(path, rows, settings, warnings))
    return documents


def _json_rows(raw: str, path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    try:  # the JSON policy: deep nesting and 5,000-digit numbers are refused in one line
        data = loads(raw)
    except JsonRefused as exc:
        warnings.append(f"{path}: skipped, {exc}")
        return []
    except json.JSONDecodeError as exc:
        warnings.append(f"{path}:{exc.lineno}: skipped, not JSON")
        return []
    rows = data if isinstance(data, list) else [data]
    kept = [row for row in rows if isinstance(row, dict)]
    if len(kept) < len(rows):
        warnings.append(f"{path}: {len(rows) - len(kept)} item(s) skipped, not JSON objects")
    return kept


def _row_documents(path: Path, rows: list[dict[str, Any]], settings: InputSettings,
                   warnings: list[str]) -> list[InputDocument]:
    column = "text" if rows and "text" in rows[0] else settings.text_column
    if rows and column not in rows[0]:
        columns = ", ".join(str(c) for c in rows[0])
        warnings.append(f"{path}: skipped, no text column '{settings.text_column}' (columns: {columns}); "
                        "set input.text_column in the GraphRAG settings")
        return []
    documents: list[InputDocument] = []
    for index, row in enumerate(rows, start=1):
        text = row.get(column)
        text = "" if text is None else str(text)
        if not text.strip():
            warnings.append(f"{path}: row {index} skipped, its text is empty")
            continue
        title = row.get(settings.title_column) if settings.title_column else None
        name = str(title) if title not in (None, "") else (path.stem if len(rows) == 1 else f"{path.stem}-{index}")
        documents.append(InputDocument(name, text))
    return documents
