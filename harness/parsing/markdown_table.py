"""Triples as a markdown table whose header names a subject, a predicate and an object column
(case-insensitive; synonyms head / relation, relationship / tail), with optional subject-type and
object-type columns. Rows are read under the header; a row without the cells its subject, predicate and
object columns need is dropped (`triple-parts`), one with an empty part too (`triple-part-empty`)."""

from __future__ import annotations

import re

from harness.parsing.issues_log import IssueLog
from harness.parsing.triple_lines import Line
from harness.parsing.triples import Triple, TripleSink

SUBJECT_HEADERS = frozenset({"subject", "head", "subject entity", "head entity", "subj"})
PREDICATE_HEADERS = frozenset({"predicate", "relation", "relationship", "relation type", "relationship type", "rel"})
OBJECT_HEADERS = frozenset({"object", "tail", "object entity", "tail entity", "obj"})
SUBJECT_TYPE_HEADERS = frozenset({"subject type", "head type", "subj type"})
OBJECT_TYPE_HEADERS = frozenset({"object type", "tail type", "obj type"})
_RULE_CELL = re.compile(r"^:?-{2,}:?$")
_SPLIT = re.compile(r"(?<!\\)\|")
_LINES_SEARCHED = 400  # a header comes early, after at most a short preamble


def cells(line: str) -> list[str]:
    """The cells of a table line (`\\|` is a pipe inside a cell)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [c.strip().replace("\\|", "|") for c in _SPLIT.split(body)]


def _header_name(cell: str) -> str:
    return " ".join(cell.replace("*", "").replace("`", "").replace("_", " ").replace("-", " ").lower().split())


def header_columns(row: list[str]) -> dict[str, int] | None:
    """Column index of subject, predicate, object (and the optional types); None unless the
    row names all three."""
    found: dict[str, int] = {}
    for i, cell in enumerate(row):
        name = _header_name(cell)
        for role, names in (("subject", SUBJECT_HEADERS), ("predicate", PREDICATE_HEADERS), ("object", OBJECT_HEADERS),
                            ("subject_type", SUBJECT_TYPE_HEADERS), ("object_type", OBJECT_TYPE_HEADERS)):
            if name in names and role not in found:
                found[role] = i
    return found if {"subject", "predicate", "object"} <= found.keys() else None


def has_triple_table(text: str) -> bool:
    """Some table line (among the first 50, in the first 400 lines) is a subject / predicate /
    object header."""
    if "|" not in text:
        return False
    seen = 0
    for line in text.split("\n", _LINES_SEARCHED)[:_LINES_SEARCHED]:
        if line.lstrip().startswith("|"):
            if header_columns(cells(line)) is not None:
                return True
            seen += 1
            if seen >= 50:
                break
    return False


class TableReader:
    """A line reader for harness.parsing.triple_lines.read_lines that remembers the header."""

    def __init__(self) -> None:
        self.columns: dict[str, int] | None = None

    def __call__(self, line: str, sink: TripleSink, log: IssueLog) -> Line:
        if not line.lstrip().startswith("|"):
            self.columns = None
            return Line.PROSE
        row = cells(line)
        header = header_columns(row)
        if header is not None:
            self.columns = header
            return Line.LAYOUT
        if all(_RULE_CELL.match(c) for c in row if c) and any(row):
            return Line.LAYOUT
        if self.columns is None:
            return Line.PROSE  # another table
        col = self.columns
        need = max(col["subject"], col["predicate"], col["object"]) + 1  # type cells are optional
        if len(row) < need:
            sink.drop("triple-parts", line, log, f"A table row had {len(row)} cells; its subject, predicate and object need {need}. It was dropped.")
            return Line.TRIPLES

        def optional(role: str) -> str:
            return row[col[role]] if role in col and col[role] < len(row) else ""

        triple = Triple(row[col["subject"]], row[col["predicate"]], row[col["object"]],
                        optional("subject_type"), optional("object_type"))
        sink.keep(triple, line, log)
        return Line.TRIPLES
