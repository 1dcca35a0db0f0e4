"""What every triple format shares: a triple, splitting a triple's parts on the commas a person
sees as separators (not those inside quotes or brackets), and turning triples into the graph
(subjects and objects become entities, each triple a relationship whose `type` is its predicate).

The formats themselves (harness.formats.llamaindex, .function, .json_triples, .triple_table)
each read their own shape and hand their triples to `keep_triple`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.model import Entity, Relationship
from harness.parsing.delimited import ParsedRecords
from harness.parsing.issues_log import IssueLog

# Opening quote -> closing quote. A quote opens only at the start of a part (so the apostrophe
# in `Philz's` is text) and closes only before a separator or the end (so `'Philz's'` holds).
QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`", "„": "“"}
_OPEN_BRACKETS = "([{"
_CLOSE_BRACKETS = ")]}"
_DECORATION = re.compile(r"^\s*(?:(?:\d{1,3}[.)]|[-*•+])\s+)")
# "no triples", "No relationships found.", "None": an answer that says it found nothing.
_NOTHING = re.compile(
    r"^\W*(?:(?:there\s+(?:are|were)\s+)?no\s+(?:\w+\s+){0,3}?(?:triples?|triplets?|relations?|relationships?|"
    r"facts?|knowledge|entities)\b|none\W*$|nothing\s+to\s+extract|n/?a\W*$)",
    re.I,
)
_NOTE = re.compile(r"^\W{0,4}(?:notes?|explanation|caveats?|remarks?)\s*\**\s*:", re.I)


@dataclass(frozen=True, slots=True)
class Triple:
    """One (subject, predicate, object) with the types a format may give its endpoints."""

    subject: str
    predicate: str
    object: str
    subject_type: str = ""
    object_type: str = ""


def strip_decoration(line: str) -> tuple[str, bool]:
    """A line without its list numbering or bullet, and whether it had one."""
    m = _DECORATION.match(line)
    if m is None:
        return line.strip(), False
    return line[m.end():].strip(), True


def unquote(part: str) -> str:
    """A part without surrounding whitespace, bold marks and one pair of matching quotes."""
    part = part.strip()
    while part.startswith("**") and part.endswith("**") and len(part) >= 4:
        part = part[2:-2].strip()
    # not `"Ahri'ahn" or "Arion"`: two quoted strings, kept as written; but `'Bachelor's degree'` is
    # one (its inner mark is an apostrophe, as `unwrap` reads it)
    if len(part) >= 2 and part[0] in QUOTES and part[-1] == QUOTES[part[0]] and _only_apostrophes(part[1:-1], part[-1]):
        part = part[1:-1].strip()
    return part


def unwrap(part: str) -> str:
    """A part without the syntax around it, its content as written: the white space that
    separates it and one pair of matching quotes that delimit it go, the inside stays as it is
    (its spaces too). `unquote` also trims the inside and bold marks: the names the harness reads.
    The closing quote mark may stand inside as an apostrophe, between two letters or digits, as
    `split_parts` reads it (`' "Gus Grissom's Liberty Bell 7"'` is ` "Gus Grissom's Liberty Bell 7"`);
    anywhere else it means two quoted strings, kept as written."""
    part = part.strip()
    if len(part) >= 2 and part[0] in QUOTES and part[-1] == QUOTES[part[0]] and _only_apostrophes(part[1:-1], part[-1]):
        return part[1:-1]
    return part


def _only_apostrophes(inner: str, mark: str) -> bool:
    """Whether every `mark` in `inner` stands between two letters or digits (`Grissom's`)."""
    return all(0 < i < len(inner) - 1 and inner[i - 1].isalnum() and inner[i + 1].isalnum()
               for i, ch in enumerate(inner) if ch == mark)


def regroup_by_spacing(parts: list[str], wanted: int) -> list[str] | None:
    """Parts split on more commas than a triple has, regrouped when the layout shows which commas
    separate: exactly `wanted - 1` commas written tight (`rel(The Flame of Love,Chinatown, New York
    City)`, the way Text2KGBench's examples write them) while every other comma is followed by a
    space. None when the layout does not say (all commas alike)."""
    if len(parts) <= wanted:
        return None
    tight = [i for i in range(1, len(parts)) if parts[i][:1] not in ("", " ", "\t")]
    if len(tight) != wanted - 1:
        return None
    bounds = [0, *tight, len(parts)]
    return [",".join(parts[a:b]) for a, b in zip(bounds, bounds[1:])]


def _closes(text: str, i: int, seps: str) -> bool:
    """Whether a quote at `i` closes its part: only spaces stand between it and a separator or the end."""
    j = i + 1
    while j < len(text) and text[j] in " \t":
        j += 1
    return j >= len(text) or text[j] in seps


def split_parts(text: str, sep: str = ",", closer: str = "") -> tuple[list[str], int]:
    """Split `text` on `sep` outside quotes and brackets. Stops at an unmatched `closer` (the
    parenthesis that ends a triple): returns (parts, index just past the closer), or
    (parts, -1) when the text ended first (a triple cut off). Quotes stay on the parts."""
    parts: list[str] = []
    start = 0
    depth = 0
    quote = ""
    at_part_start = True
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote and _closes(text, i, sep + closer):
                quote = ""
            i += 1
            continue
        if at_part_start and ch in QUOTES:
            quote = QUOTES[ch]
            at_part_start = False
            i += 1
            continue
        if not ch.isspace():
            at_part_start = False
        if ch == closer and depth == 0:
            parts.append(text[start:i])
            return parts, i + 1
        if ch in _OPEN_BRACKETS:
            depth += 1
        elif ch in _CLOSE_BRACKETS and depth > 0:
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
            at_part_start = True
        i += 1
    parts.append(text[start:])
    return parts, (-1 if closer else n)


def says_nothing(text: str) -> bool:
    """A short answer whose first line says there is nothing to extract ("No triples found.")."""
    first = text.strip().split("\n", 1)[0]
    return len(text) < 600 and _NOTHING.match(first) is not None


def is_note(line: str) -> bool:
    """The first line of a "Note:" paragraph (also Notes, Explanation, Caveat, Remark)."""
    return _NOTE.match(line) is not None


class TripleSink:
    """Collects triples into ParsedRecords: one entity per distinct subject/object name (its type
    the first one given), one relationship per triple, `type` = the predicate; and every triple
    read with its parts as written (`ParsedRecords.written`): `verbatim` for a format whose parts
    are values already (JSON strings), else without the syntax around each part (`unwrap`)."""

    def __init__(self, round: int, *, verbatim: bool = False) -> None:
        self.records = ParsedRecords()
        self.round = round
        self._as_written: Callable[[str], str] = str if verbatim else unwrap
        self._entity_at: dict[str, int] = {}

    def _entity(self, name: str, etype: str) -> None:
        at = self._entity_at.get(name)
        if at is None:
            self._entity_at[name] = len(self.records.entities)
            self.records.entities.append(Entity(name=name, type=etype, round=self.round))
        elif etype and not self.records.entities[at].type:
            self.records.entities[at] = self.records.entities[at].model_copy(update={"type": etype})

    def keep(self, triple: Triple, snippet: str, log: IssueLog) -> bool:
        """Keep one triple read from the answer (counted as seen); a part left empty drops it."""
        self.records.seen += 1
        written = self._as_written
        self.records.written.append((written(triple.subject), written(triple.predicate), written(triple.object)))
        subject, predicate, obj = (unquote(p) for p in (triple.subject, triple.predicate, triple.object))
        if not subject or not predicate or not obj:
            missing = [name for name, v in (("subject", subject), ("predicate", predicate), ("object", obj)) if not v]
            log.drop("triple-part-empty", snippet, f"The triple's {' and '.join(missing)} is empty; it was dropped.")
            return False
        self._entity(subject, unquote(triple.subject_type))
        self._entity(obj, unquote(triple.object_type))
        self.records.relationships.append(
            Relationship(source=subject, target=obj, type=predicate, round=self.round)
        )
        self.records.parsed += 1
        return True

    def drop(self, code: str, snippet: str, log: IssueLog, message: str = "") -> None:
        """A triple seen but not readable: counted as seen, reported under `code`."""
        self.records.seen += 1
        log.drop(code, snippet, message)
