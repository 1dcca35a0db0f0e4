"""LightRAG >= 1.4.8: one record per line, `<|#|>` between fields, no strength.

    entity<|#|>name<|#|>type<|#|>description
    relation<|#|>source<|#|>target<|#|>keywords<|#|>description

(LightRAG <= 1.4.7 wrote GraphRAG-style tuples; those are read by `delimited`.)
"""

from __future__ import annotations

import re

from harness.model import Entity, Relationship
from harness.parsing.delimited import (
    ENTITY_TAGS,
    KEYWORD_TAGS,
    RELATION_TAGS,
    ParsedRecords,
    FieldValues,
    _head,
    _values,
    split_records,
)
from harness.parsing.fields import is_placeholder, strip_closer
from harness.parsing.issues_log import IssueLog

LIGHTRAG_TUPLE = "<|#|>"
# <|#|> and the near misses models write for it: <|#>, <#|>, <#>, spaces inside.
LIGHTRAG_DELIMITER_LOOSE = re.compile(r"<\s*(?:\|\s*)?#\s*(?:\|\s*)?>")  # unambiguous: `\s*\|?\s*` backtracked quadratically


def normalise_delimiter(text: str, log: IssueLog) -> str:
    fixed = LIGHTRAG_DELIMITER_LOOSE.sub(LIGHTRAG_TUPLE, text)
    if fixed.count(LIGHTRAG_TUPLE) != text.count(LIGHTRAG_TUPLE):
        log.note("delimiter-inferred", "<#>", "Malformed <|#|> delimiters were accepted.")
    return fixed


def parse_lightrag(text: str, log: IssueLog, *, tuple_delimiter: str = LIGHTRAG_TUPLE, round: int = 0) -> ParsedRecords:
    out = ParsedRecords()
    td = tuple_delimiter
    if td == LIGHTRAG_TUPLE:
        text = normalise_delimiter(text, log)
    records = split_records(text, td, "\n", log, out)
    for raw in records:
        out.seen += 1
        if raw.startswith("\x00"):
            log.drop("wrong-delimiter", raw[1:])
            continue
        fields = raw.split(td)
        fields[-1], closer = strip_closer(fields[-1])
        tag, _, decorated = _head(fields[0])
        if decorated:
            log.note("markdown-decoration", raw)
        values, stray = _values(fields[1:])
        if stray:
            log.note("value-quotes", raw)
        kind = tag.lower()
        if kind in ENTITY_TAGS:
            _entity(values, raw, td, out, log, round)
        elif kind in RELATION_TAGS:
            _relation(values, raw, td, out, log, round)
        elif kind in KEYWORD_TAGS:
            out.parsed += 1
            out.keywords += 1
            log.note("content-keywords", raw)
        elif len(values) >= 2 and tag and " " not in tag and tag == tag.lower():
            log.note("record-type-unknown", raw)
            _entity(values, raw, td, out, log, round)
        else:
            log.drop("unknown-record", raw)
    return out


def _entity(v: FieldValues, raw: str, td: str, out: ParsedRecords, log: IssueLog, round: int) -> None:
    if not v or not v[0]:
        log.drop("empty-name" if v else "too-few-fields", raw)
        return
    if is_placeholder(v[0]):
        log.drop("placeholder-value", raw)
        return
    etype = v[1] if len(v) > 1 else ""
    if not etype:
        log.note("missing-type", raw)
    description = v.joined(td, 2) if len(v) > 2 else ""
    if len(v) > 3:
        log.note("delimiter-in-description", raw)
    if not description:
        log.note("missing-description", raw)
    out.entities.append(Entity(name=v[0], type=etype, description=description, round=round))
    out.parsed += 1


def _relation(v: FieldValues, raw: str, td: str, out: ParsedRecords, log: IssueLog, round: int) -> None:
    if len(v) < 2:
        log.drop("too-few-fields", raw)
        return
    if not v[0] or not v[1]:
        log.drop("empty-name", raw)
        return
    if is_placeholder(v[0]) or is_placeholder(v[1]):
        log.drop("placeholder-value", raw)
        return
    if len(v) < 4:
        # LightRAG reads a relation only with all five fields (tag, source, target, keywords,
        # description) and drops the rest; keeping it here would hide what the engine loses.
        log.drop("too-few-fields", raw, f"A LightRAG relation with {len(v) + 1} fields (5 required) is dropped by LightRAG.")
        return
    keywords, description = v[2], v.joined(td, 3)
    if len(v) > 4:
        log.note("delimiter-in-description", raw)
    if not description:
        log.note("missing-description", raw)
    out.relationships.append(
        Relationship(source=v[0], target=v[1], description=description, keywords=keywords, round=round)
    )
    out.parsed += 1
