"""Tuple-delimited records: GraphRAG (and nano-graphrag), LightRAG <= 1.4.7, and claims.

The reader is deliberately loose about everything around a record (separators, closers,
decoration, quoting) and strict about what it keeps: every record it sees is either returned
or dropped with a reason in the IssueLog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from pydantic import TypeAdapter

from harness.model import Claim, Entity, Relationship
from harness.parsing.clean_records import CleanRecord, clean_record_patterns, read_clean_record
from harness.parsing.fields import clean_value, is_placeholder, parse_strength, strip_closer
from harness.parsing.issues_log import IssueLog
from harness.parsing.prose import is_prose_record

Layout = Literal["graphrag", "lightrag", "claims"]

ENTITY_TAGS = frozenset({"entity", "entities", "node", "nodes", "实体"})
RELATION_TAGS = frozenset(
    {"relationship", "relationships", "relation", "relations", "edge", "edges", "关系"}
)
KEYWORD_TAGS = frozenset({"content_keywords", "high_level_keywords", "keywords", "content keywords"})
CLAIM_TAGS = frozenset({"claim", "claims", "covariate"})

_KNOWN_TAGS = ENTITY_TAGS | RELATION_TAGS | KEYWORD_TAGS | CLAIM_TAGS
_LABELLED_TAG = re.compile(r"[\(（]\s*[\"'“]?([A-Za-z_]+)[\"'”]?\s*$")

# Decoration before a record: bullets, numbering, heading hashes, bold, quote marks.
_LEAD = re.compile(r"(?:[#>*\-•·+]+[ \t]*|\d{1,4}[ \t]*[.)、:：][ \t]*)+")
_OPENERS = "(（[{"
_INT = re.compile(r"^\d{1,4}$")
_WRONG_DELIM = re.compile(
    r"^\W{0,6}[\"'“]?(entity|relationship|relation)[\"'”]?\s*(?:[,;|:：]\s*\S|[)）]\s*$)", re.I
)
_PROSE_RECORD = re.compile(r"^\W{0,6}(?:entity|relationship|relation)\s*[:：]", re.I)
_TAG_ONLY = re.compile(r"^\W{0,6}[\"'“]?(?:entity|relationship|relation)[\"'”]?\s*[)）]\s*$", re.I)
_QUOTED = re.compile(r"\"((?:[^\"\\]|\\.)*)\"")
_CLAIM_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
_CLAIM_STATUS = frozenset({"TRUE", "FALSE", "SUSPECTED"})


@dataclass(slots=True)
class ParsedRecords:
    """The records read from one model output, whatever its format (delimited, LightRAG or JSON),
    with counts of records seen and parsed."""

    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    seen: int = 0
    parsed: int = 0
    keywords: int = 0  # content_keywords records read
    layout: str = "graphrag"
    prose: list[str] = field(default_factory=list)
    # triple formats: every (subject, predicate, object) read, each part as the answer writes it:
    # a JSON string as it is, a part of text without only the separating spaces and delimiting
    # quotes (harness.parsing.triples.TripleSink; the names `keep` reads are trimmed and unquoted
    # inside too). What a benchmark scoring the strings as written reads (formats.answer.triples_as_written)
    written: list[tuple[str, str, str]] = field(default_factory=list)

    def add_relationship(
        self, log: IssueLog, snippet: str, source: str, target: str, description: str,
        strength: float | None, keywords: str, round: int,
    ) -> None:
        """Keep one relationship read from any format, noting a missing description."""
        if not description:
            log.note("missing-description", snippet)
        self.relationships.append(
            Relationship(
                source=source, target=target, description=description, strength=strength,
                keywords=keywords, round=round,
            )
        )
        self.parsed += 1


def _segments(text: str, rd: str) -> list[str]:
    """Stripped pieces between record delimiters and newlines; '' marks a blank line."""
    if not rd or rd == "\n":
        return [line.strip() for line in text.split("\n")]
    out: list[str] = []
    for chunk in text.split(rd):
        seg = chunk.strip()
        if "\n" in seg:
            out.extend(line.strip() for line in seg.split("\n"))
        elif seg:
            out.append(seg)
        elif chunk.count("\n") > 1:
            out.append("")  # a blank line between two delimiters
    return out


@lru_cache(maxsize=64)
def _glue(tuple_delimiter: str) -> re.Pattern[str]:
    """Where one record ends and the next begins on the same line with no separator."""
    td = re.escape(tuple_delimiter)
    return re.compile(
        rf"(?<=[)）>\]])[ \t]*(?=[\(（][ \t]*[\"'“]?[A-Za-z_]+[\"'”]?[ \t]*{td})"
    )


def infer_tuple_delimiter(text: str) -> str | None:
    """The delimiter written right after a record tag, e.g. '|' in ("entity"|Foo|...)."""
    m = re.search(
        r"[\(（]\s*[\"'“]?(?:entity|relationship)[\"'”]?([^\w\s\"'“”,()]{1,6}|\s*\|\s*)", text, re.I
    )
    if m:
        delim = m.group(1).strip() or m.group(1)
        if delim and delim not in ("(", ")", ":", "*", "-", "."):
            return delim
    return None


def split_records(
    text: str,
    td: str,
    rd: str,
    log: IssueLog,
    out: ParsedRecords,
    *,
    prior: list[str] | None = None,
    used_rd: bool | None = None,
) -> list[str]:
    """Cut the text into record candidates (strings holding the tuple delimiter); everything
    else is prose, kept in out.prose. Lines without the delimiter that follow an unclosed
    record are its continuation (multi-line descriptions). `prior` are records already read
    from text before this one (the clean prefix); they are returned first."""
    records: list[str] = list(prior) if prior else []
    open_record = False
    if used_rd is None:
        used_rd = rd in text if rd else False
    glue = _glue(td)
    first_record_at = 0 if records else -1
    prose_before: list[str] = []
    prose_between: list[str] = []
    prose_after: list[str] = []
    continued: list[str] = []  # continuation lines of the last record, not yet joined to it
    for seg in _segments(text, rd):
        if not seg:
            open_record = False
            continue
        if td in seg:
            # A second opening bracket may start a glued record: ...9)("entity"<|>...
            if continued:
                _flush(records, continued)
            if seg.find("(", 1) > 0 or seg.find("（", 1) > 0:
                pieces = glue.split(seg)
                if len(pieces) > 1:
                    log.note("glued-records", seg)
                records.extend(pieces)
                last = pieces[-1].rstrip()
            else:
                records.append(seg)
                last = seg
            if first_record_at < 0:
                first_record_at = 0
            if prose_after:
                prose_between.extend(prose_after)
                prose_after = []
            open_record = last[:1] in _OPENERS or _LEAD.match(last) is not None
            if open_record and last[-1:] in ")）>]":
                open_record = False
            continue
        if open_record and records and not _LEAD.match(seg):
            continued.append(seg)  # joined once, at the next record: `+=` per line is quadratic
            last = seg.rstrip()
            if last[-1:] in ")）>]":
                open_record = False
            continue
        open_record = False
        if _WRONG_DELIM.match(seg):
            if continued:
                _flush(records, continued)
            records.append("\x00" + seg)  # marked: wrong delimiter
            continue
        if first_record_at >= 0 and is_prose_record(seg):
            out.seen += 1  # among or after records: a lost record, not a closing note
            log.drop("prose-record", seg)
            continue
        if first_record_at < 0:
            prose_before.append(seg)
        else:
            prose_after.append(seg)
    if continued:
        _flush(records, continued)
    if not used_rd and rd and rd != "\n" and len(records) > 1:
        log.note("newline-separated", records[1])
    if prose_before and records:
        log.note("preamble", "\n".join(prose_before))
    if prose_between:
        log.note("interleaved-prose", "\n".join(prose_between))
    if prose_after and records:
        log.note("closing-note", "\n".join(prose_after))
    out.prose = prose_before + prose_between + prose_after
    return records


def _flush(records: list[str], continued: list[str]) -> None:
    """Join the pending continuation lines to the last record."""
    records[-1] = "\n".join([records[-1], *continued])
    continued.clear()


_FAST_HEADS: dict[str, tuple[str, bool, bool]] = {
    f"{o}{q}{t}{c}": (t, o == "(", False)
    for t in ("entity", "relationship", "content_keywords", "relation")
    for o in ("(", "")
    for q, c in (('"', '"'), ("", ""), ("'", "'"))
}


def _strip_opener(raw: str) -> str:
    h = raw.strip()
    m = _LEAD.match(h)
    if m and m.end():
        h = h[m.end() :]
    return h[1:] if h[:1] in _OPENERS else h


def _head(raw: str) -> tuple[str, bool, bool]:
    """Split decoration off a record's first field. Returns (tag, opened_with_paren, decorated)."""
    h = raw.strip()
    fast = _FAST_HEADS.get(h)
    if fast is not None:
        return fast
    decorated = False
    m = _LEAD.match(h)
    if m and m.end():
        h = h[m.end() :]
        decorated = True
    opened = False
    if h[:1] in _OPENERS:
        h = h[1:]
        opened = True
    tag, _ = clean_value(h)
    if tag and tag.lower() not in _KNOWN_TAGS:
        # A label glued in front: 'Output:   ("entity"' -> entity
        m = _LABELLED_TAG.search(h)
        if m and m.group(1).lower() in _KNOWN_TAGS:
            return m.group(1), True, True
    return tag, opened, decorated


class FieldValues(list[str]):
    """Cleaned field values that remember the raw fields, so that fields split by a delimiter
    inside a description can be joined back exactly as written."""

    __slots__ = ("raw",)

    def __init__(self, values: list[str], raw: list[str]) -> None:
        super().__init__(values)
        self.raw = raw

    def joined(self, td: str, start: int, stop: int | None = None) -> str:
        return clean_value(td.join(self.raw[start:stop]))[0]


def _values(fields: list[str]) -> tuple[FieldValues, bool]:
    vals: list[str] = []
    stray = False
    for f in fields:
        v, s = clean_value(f)
        vals.append(v)
        stray = stray or s
    return FieldValues(vals, fields), stray


def detect_layout(records: list[str], td: str, *, five: int = 0) -> Layout:
    """LightRAG <= 1.4.7 writes six-field relationships (keywords before strength) and a
    content_keywords record; GraphRAG writes five fields. `five`: five-field relationships
    already counted among records not passed (`_clean_prefix_votes`)."""
    six = 0
    for r in records:
        if r.startswith('("entity"'):
            continue
        n = r.count(td)
        if n >= 4 and '"' in r:
            n = len(split_fields(r, td)) - 1  # a delimiter inside a quoted value splits nothing
        if n < 4:
            if n >= 1 and not r.startswith('("relationship"') and "keywords" in r[:40].lower():
                return "lightrag"
            continue
        if n > 5 or not (r.startswith('("relationship"') or "relation" in r[:40].lower()):
            continue
        if n == 5:
            six += 1
        else:
            five += 1
    return "lightrag" if six > five and six >= 2 else "graphrag"


def parse_delimited(
    text: str,
    log: IssueLog,
    *,
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    layout: Layout | None = None,
    round: int = 0,
) -> ParsedRecords:
    """Read every record of a tuple-delimited answer (completion marks already removed)."""
    out = ParsedRecords()
    td = tuple_delimiter
    if td not in text:
        inferred = infer_tuple_delimiter(text)
        if inferred and inferred in text:
            log.note("delimiter-inferred", inferred, f"Tuple delimiter {inferred!r} used instead of {td!r}.")
            td = inferred
    prefix: list[str] = []
    prefix_found: list[CleanRecord] = []
    rest = text
    if layout != "claims" and td in text:
        prefix, prefix_found, rest_at = _clean_prefix(text, td, record_delimiter)
        rest = text[rest_at:]
    records = split_records(
        rest, td, record_delimiter, log, out, prior=prefix,
        used_rd=record_delimiter in text if record_delimiter else False,
    )
    if layout is None:
        votes = _clean_prefix_votes(prefix_found, td)
        layout = detect_layout(records, td) if votes is None else detect_layout(records[len(prefix):], td, five=votes)
    out.layout = layout
    if prefix:
        _add_prefix(prefix, prefix_found, out, log, round)
    fast = clean_record_patterns(td, record_delimiter).record if layout != "claims" else None
    for raw in records[len(prefix) :]:
        out.seen += 1
        # Clean records take the fast path (same result, less work); see clean_records.py.
        if fast is not None and raw[:2] == '("':
            m = fast.fullmatch(raw)
            if m is not None:
                found = read_clean_record(m.groups(), 0)
                if found is not None:
                    _add_fast(found, raw, out, log, round)
                    continue
        if raw.startswith("\x00"):
            _wrong_delimiter(raw[1:], out, log, round)
            continue
        _parse_record(raw, td, layout, out, log, round)
    return out


def _add_fast(found: CleanRecord, raw: str, out: ParsedRecords, log: IssueLog, round: int) -> None:
    kind, a, b, desc, strength, note = found
    if kind == "entity":
        out.entities.append(Entity(name=a, type=b, description=desc, round=round))
    else:
        out.relationships.append(Relationship(source=a, target=b, description=desc, strength=strength, round=round))
    if note is not None:
        log.note(note, raw)
    out.parsed += 1


# the fixed text of a clean record: a tuple delimiter sharing none of its characters occurs in a
# clean record only between its values (clean values hold none of the delimiter's characters)
_RECORD_FRAME = frozenset('("entity"relationship)')


def _clean_prefix_votes(found: list[CleanRecord], td: str) -> int | None:
    """What the clean prefix's records count for in `detect_layout`, known from their readings:
    a relationship with a strength has exactly four delimiters (a five-field relationship), one
    without has three and an entity is skipped, so none makes a six-field or keywords record.
    None when the delimiter shares a character with the record's fixed text: then count them."""
    if not td or _RECORD_FRAME.intersection(td):
        return None
    return sum(1 for kind, _, _, _, strength, _ in found if kind == "relationship" and strength is not None)


def _clean_prefix(text: str, td: str, rd: str) -> tuple[list[str], list[CleanRecord], int]:
    """The run of clean records (see clean_records.py) at the start of the answer, each followed by
    the record delimiter: (their texts, their readings, where the rest of the answer starts).
    Most answers are clean all through, and then the general reader gets nothing to do."""
    start = text.lstrip()
    while rd and start.startswith(rd):  # a leading record delimiter
        start = start[len(rd) :].lstrip()
    if not start.startswith('("'):
        return [], [], 0
    pattern = clean_record_patterns(td, rd).document
    if pattern is None:
        return [], [], 0
    raws: list[str] = []
    found: list[CleanRecord] = []
    pos = len(text) - len(start)
    match = pattern.match
    while True:
        m = match(text, pos)
        if m is None:
            break
        g = m.groups()
        reading = read_clean_record(g, 1)
        if reading is None:
            break
        raws.append(g[0])
        found.append(reading)
        pos = m.end()
    return raws, found, (pos if raws else 0)


def _add_prefix(raws: list[str], found: list[CleanRecord], out: ParsedRecords, log: IssueLog, round: int) -> None:
    """Add the clean prefix's records, validating each kind in one call (much cheaper than one
    model per record), and note what the general reader would have noted, in the same order."""
    entities: list[dict[str, object]] = []
    relationships: list[dict[str, object]] = []
    for raw, (kind, a, b, d, strength, note) in zip(raws, found):
        if kind == "entity":
            entities.append({"name": a, "type": b, "description": d, "round": round})
        else:
            relationships.append({"source": a, "target": b, "description": d, "strength": strength, "round": round})
        if note is not None:
            log.note(note, raw)
    if entities:
        out.entities.extend(_ENTITIES.validate_python(entities))
    if relationships:
        out.relationships.extend(_RELATIONSHIPS.validate_python(relationships))
    out.seen += len(raws)
    out.parsed += len(raws)


_ENTITIES = TypeAdapter(list[Entity])
_RELATIONSHIPS = TypeAdapter(list[Relationship])


def _wrong_delimiter(raw: str, out: ParsedRecords, log: IssueLog, round: int) -> None:
    """("entity", "Foo", "person", "desc"): readable when every value is double-quoted."""
    if _TAG_ONLY.match(raw):
        log.drop("too-few-fields", raw)
        return
    vals = _QUOTED.findall(raw)
    tag = vals[0].lower() if vals else ""
    if tag in ENTITY_TAGS and len(vals) >= 3 and vals[1].strip():
        out.entities.append(
            Entity(name=vals[1].strip(), type=vals[2].strip(), description=", ".join(vals[3:]).strip(), round=round)
        )
        out.parsed += 1
        log.note("delimiter-inferred", raw, "Record written with commas between quoted values; read anyway.")
        return
    if tag in RELATION_TAGS and len(vals) >= 3 and vals[1].strip() and vals[2].strip():
        strength = None
        rest = vals[3:]
        tail = raw[raw.rfind('"') + 1 :].strip(" ,)）>\t")
        if tail:
            strength, _ = parse_strength(tail)
        out.relationships.append(
            Relationship(
                source=vals[1].strip(), target=vals[2].strip(), description=", ".join(rest).strip(),
                strength=strength, round=round,
            )
        )
        out.parsed += 1
        log.note("delimiter-inferred", raw, "Record written with commas between quoted values; read anyway.")
        return
    log.drop("prose-record" if _PROSE_RECORD.match(raw) else "wrong-delimiter", raw)


def split_fields(raw: str, td: str) -> list[str]:
    """Fields of a record: split on the tuple delimiter, except inside a double-quoted value
    ("Alpha joined Beta<|>in 2019" is one field). Unbalanced quotes: a plain split."""
    pieces = raw.split(td)
    if len(pieces) < 3 or '"' not in raw:
        return pieces
    fields: list[str] = []
    current = pieces[0]
    open_quote = current.count('"') % 2 == 1
    for piece in pieces[1:]:
        if open_quote:
            current += td + piece
        else:
            fields.append(current)
            current = piece
        if piece.count('"') % 2 == 1:
            open_quote = not open_quote
    fields.append(current)
    if open_quote or len(fields) == len(pieces) or not _all_quoted(fields[1:]):
        return pieces
    return fields


def _all_quoted(values: list[str]) -> bool:
    """The quoted-tuple style: every value double-quoted, the last one quoted or a number."""
    for i, v in enumerate(values):
        t = v.strip()
        last = i == len(values) - 1
        if last:
            t = strip_closer(t)[0]
        if len(t) >= 2 and t[0] == '"' and t[-1] == '"':
            continue
        if last and parse_strength(t)[1] == "ok":
            continue
        return False
    return True


def _parse_record(raw: str, td: str, layout: Layout, out: ParsedRecords, log: IssueLog, round: int) -> None:
    fields = split_fields(raw, td)
    last, closer = strip_closer(fields[-1])
    fields[-1] = last
    tag, opened, decorated = _head(fields[0])
    if decorated:
        log.note("markdown-decoration", raw)
    if opened and closer not in (")", ""):
        log.note("record-closer", raw)
    elif not opened and closer and closer != ")" and layout != "claims":
        log.note("record-closer", raw)
    kind = tag.lower()
    if layout == "claims":
        if kind in CLAIM_TAGS:
            values, stray = _values(fields[1:])
        else:
            values, stray = _values([_strip_opener(fields[0]), *fields[1:]])
        if stray:
            log.note("value-quotes", raw)
        _claim(values, raw, td, out, log, round)
        return
    values, stray = _values(fields[1:])
    if stray:
        log.note("value-quotes", raw)
    if kind in ENTITY_TAGS:
        if kind != "entity" or tag != "entity":
            if tag.lower() != "entity":
                log.note("record-type-alias", raw)
        _entity(values, raw, td, out, log, round)
    elif kind in RELATION_TAGS:
        if kind != "relationship":
            log.note("record-type-alias", raw)
        _relationship(values, fields[-1], raw, td, layout, out, log, round)
    elif kind in KEYWORD_TAGS:
        out.parsed += 1
        out.keywords += 1
        log.note("content-keywords", raw)
    elif kind in CLAIM_TAGS and len(values) >= 4:
        _claim(values, raw, td, out, log, round)
    elif tag and (tag.islower() or tag.lower() == tag) and " " not in tag and len(values) >= 2 and len(tag) < 30:
        # ("event"<|>NAME<|>event<|>description): the tag slot holds an entity type.
        log.note("record-type-unknown", raw)
        _entity(values, raw, td, out, log, round)
    else:
        # No tag at all: the first field is a value. Infer the kind from the field count.
        values = FieldValues([tag, *values], [_strip_opener(fields[0]), *values.raw])
        n = len(values)
        if n == 3 or (n == 4 and _INT.match(values[3])):
            log.note("record-type-missing", raw)
            _entity(values, raw, td, out, log, round)
        elif n in (4, 5) and parse_strength(fields[-1])[1] in ("ok", "repaired"):
            log.note("record-type-missing", raw)
            _relationship(values, fields[-1], raw, td, layout, out, log, round)
        else:
            log.drop("unknown-record", raw)


def _entity(v: FieldValues, raw: str, td: str, out: ParsedRecords, log: IssueLog, round: int) -> None:
    n = len(v)
    if n == 0:
        log.drop("too-few-fields", raw)
        return
    name = v[0]
    if not name:
        log.drop("empty-name", raw)
        return
    if is_placeholder(name):
        log.drop("placeholder-value", raw)
        return
    etype = v[1] if n > 1 else ""
    if not etype:
        log.note("missing-type", raw)
    if n <= 2:
        description = ""
    elif n == 3:
        description = v[2]
    elif n == 4 and _INT.match(v[3]):
        description = v[2]
        log.note("extra-field", raw)
    else:
        description = v.joined(td, 2)
        log.note("delimiter-in-description", raw)
    if not description:
        log.note("missing-description", raw)
    out.entities.append(Entity(name=name, type=etype, description=description, round=round))
    out.parsed += 1


def _relationship(
    v: FieldValues, last_raw: str, raw: str, td: str, layout: Layout, out: ParsedRecords, log: IssueLog, round: int
) -> None:
    n = len(v)
    if n < 2:
        log.drop("too-few-fields", raw)
        return
    source, target = v[0], v[1]
    if not source or not target:
        log.drop("empty-name", raw)
        return
    if is_placeholder(source) or is_placeholder(target):
        log.drop("placeholder-value", raw)
        return
    description = ""
    keywords = ""
    strength: float | None = None
    status = "missing"
    if n == 3:
        description = v[2]
    elif n >= 4:
        strength, status = parse_strength(last_raw)
        if status == "invalid":
            # No number at the end: the tail is text (a description cut by the delimiter,
            # or keywords), not a strength.
            if layout == "lightrag" and n == 4:
                description, keywords = v[2], v[3]
            else:
                description = v.joined(td, 2)
                if n > 4:
                    log.note("delimiter-in-description", raw)
            status = "missing"
            strength = None
        elif layout == "lightrag" and n >= 5:
            description = v.joined(td, 2, -2)
            keywords = v[-2]
            if n > 5:
                log.note("delimiter-in-description", raw)
        else:
            description = v.joined(td, 2, -1)
            if n > 4:
                log.note("delimiter-in-description", raw)
    if status == "missing":
        log.note("strength-missing", raw)
    elif status == "repaired":
        log.note("strength-repaired", last_raw)
    elif status == "placeholder":
        log.note("strength-placeholder", last_raw)
    if strength is not None and not (0.0 <= strength <= 10.0):
        log.note("strength-out-of-range", last_raw)
    out.add_relationship(log, raw, source, target, description, strength, keywords, round)


def _date(value: str, raw: str, log: IssueLog) -> str | None:
    if not value or value.upper() in ("NONE", "NULL", "N/A", "UNKNOWN"):
        return None
    if not _CLAIM_DATE.match(value):
        log.note("claim-date-invalid", raw)
    return value


def _claim(v: FieldValues, raw: str, td: str, out: ParsedRecords, log: IssueLog, round: int) -> None:
    """subject, object, type, status, start date, end date, description, source text."""
    n = len(v)
    if n != 8:
        log.note("claim-fields", raw)
    fields: list[str] = [*v[:6], v.joined(td, 6, -1), v[-1]] if n > 8 else list(v)
    subject = fields[0] if fields else ""
    if not subject or n < 3:
        log.drop("claim-empty" if n >= 3 else "too-few-fields", raw)
        return
    f = fields + [""] * (8 - len(fields))
    status = f[3].upper()
    if status not in _CLAIM_STATUS:
        log.note("claim-status-invalid", raw)
    out.claims.append(
        Claim(
            subject=subject, object=f[1], type=f[2], status=status,
            start_date=_date(f[4], raw, log), end_date=_date(f[5], raw, log),
            description=f[6], source_text=f[7], round=round,
        )
    )
    out.parsed += 1
