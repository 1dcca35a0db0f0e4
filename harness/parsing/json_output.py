"""JSON answers: GraphRAG's JSON extraction template and LightRAG's JSON mode.

Finding the JSON inside prose, repairing it (trailing commas, single quotes, truncation) and
mapping the many key spellings models use onto Entity and Relationship.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from harness.inputfiles import answer_decoder
from harness.model import Entity
from harness.parsing.delimited import ParsedRecords
from harness.parsing.fields import is_placeholder, parse_strength
from harness.parsing.string_scan import StringScan
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_pieces import repair_value
from harness.text import scrub_surrogates

# integers past the JSON policy's length are read as floats (inputfiles.answer_int): a model's
# 5,000-digit "weight" must not lose the records around it, nor raise Python's int-string limit
_DECODER = answer_decoder()
_START = re.compile(r"[\[{]")
# A JSON escape for a UTF-16 surrogate (\ud800-\udfff): decoding may yield a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# The start of a JSON object with a quoted key: `{"name":` or `[{"source":`.
_KEYED_VALUE = re.compile(r"[\[{][\s\[{]{0,8}\"[^\"\n]{1,60}\"\s*:")

# json_repair is pure Python and slows down badly on deep nesting (1M '{' took minutes) and on
# long unterminated strings; broken JSON beyond these caps is not repaired but reported as
# `json-too-complex`. Real answers stay far below both (documented in docs/format-codes.md).
MAX_REPAIR_DEPTH = 100
MAX_REPAIR_CHARS = 200_000
# json_repair's work can grow with the square of what it is given (an unquoted key makes it look
# ahead to the end of the text for a character that is not there: a 96 KB answer took 102 s), so
# it is never given more than this at once: a longer container is cut into its members
# (json_pieces.py), repaired in groups of at most this size and put back together.
REPAIR_PIECE_CHARS = 4096

NAME_KEYS = ("name", "entity_name", "entity", "title", "label", "id", "value")
TYPE_KEYS = ("type", "entity_type", "category", "kind")
DESC_KEYS = ("description", "entity_description", "relationship_description", "desc", "summary")
SOURCE_KEYS = ("source", "source_entity", "src_id", "src", "from", "head", "source_name", "subject")
TARGET_KEYS = ("target", "target_entity", "tgt_id", "tgt", "to", "tail", "target_name", "object")
REL_DESC_KEYS = ("description", "relationship_description", "relationship", "desc", "relation")
STRENGTH_KEYS = ("strength", "relationship_strength", "weight", "score")
KEYWORD_KEYS = ("keywords", "relationship_keywords", "relation_keywords")
ENTITY_LISTS = ("entities", "nodes", "entity", "entity_list")
RELATION_LISTS = ("relationships", "relations", "edges", "relationship", "links", "relationship_list")


@dataclass(slots=True)
class Loaded:
    value: Any
    repaired: bool
    truncated: bool
    before: str
    after: str


def find_json_start(text: str) -> int:
    m = _START.search(text)
    return m.start() if m else -1


def load_json(text: str, log: IssueLog) -> Loaded | None:
    """The first JSON value in the text (after any preamble), repaired if it must be.
    More values after it are merged into a list (gleaning rounds glued together). Strings
    decoded from surrogate escapes follow the text policy (harness/text.py)."""
    loaded = _load_json(text, log)
    if loaded is not None and _SURROGATE_ESCAPE.search(text):
        loaded.value = _scrub_value(loaded.value)
    return loaded


def _scrub_value(value: Any) -> Any:
    """`value` with scrub_surrogates applied to every string, keys included (iteratively: the
    value may be nested as deep as the decoder allows)."""
    if isinstance(value, str):
        return scrub_surrogates(value)
    root = [value]
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = scrub_surrogates(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        elif isinstance(node, dict):
            for key in list(node):
                item = node[key]
                if isinstance(item, str):
                    item = scrub_surrogates(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
                clean_key = scrub_surrogates(key) if isinstance(key, str) else key
                if clean_key is not key:
                    del node[key]
                node[clean_key] = item
    return root[0]


def _load_json(text: str, log: IssueLog) -> Loaded | None:
    start = find_json_start(text)
    if start < 0:
        return None
    before = text[:start].strip()
    try:
        value, end = _DECODER.raw_decode(text, start)
    except (json.JSONDecodeError, RecursionError):
        return _repair(text, start, before, log)
    values = [value]
    pos = end
    between: list[str] = []
    repaired_any = truncated_any = False
    while True:
        m = _START.search(text, pos)  # not text[pos:]: a copy per value is quadratic
        if m is None:
            break
        gap = text[pos : m.start()].strip()
        try:
            more, more_end = _DECODER.raw_decode(text, m.start())
        except (json.JSONDecodeError, RecursionError):
            if gap and not _KEYED_VALUE.match(text, m.start()):
                break  # a bracket in a closing note
            # Another JSON value, broken: repair it rather than lose its records.
            repaired = _repair(text, m.start(), "", log)
            if repaired is None:
                break
            more, more_end = repaired.value, len(text) - len(repaired.after)
            repaired_any, truncated_any = True, repaired.truncated
        if gap and not _is_record_value(more):
            break  # "(see [1])" in a closing note is not a second answer
        if gap:
            between.append(gap)
        values.append(more)
        pos = max(more_end, m.start() + 1)
    after = text[pos:].strip()
    if len(values) > 1:
        log.note("json-multiple", text[end:pos].strip())
        if between:
            log.note("interleaved-prose", "\n".join(between))
        value = values
    if _KEYED_VALUE.search(after):
        log.drop("json-invalid", after, "A further JSON value after the first could not be read; its records were lost.")
    return Loaded(value, repaired_any, truncated_any, before, after)


def _is_record_value(value: Any) -> bool:
    """A dict, or a list holding a dict: what a second block of records looks like."""
    return isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict) for v in value))


def _repair(text: str, start: int, before: str, log: IssueLog) -> Loaded | None:
    body = text[start:]
    closer = "}" if body[0] == "{" else "]"
    last = body.rfind(closer)
    depth, closers, in_string = _shape(body)
    truncated = bool(closers) or in_string
    if truncated:
        value = _complete_cut(body, closers, in_string)
        if value is not None:
            log.note("json-truncated", body[-80:])
            return Loaded(value, True, True, before, "")
    if depth > MAX_REPAIR_DEPTH or len(body) > MAX_REPAIR_CHARS:
        why = f"nested {depth} levels deep" if depth > MAX_REPAIR_DEPTH else f"{len(body)} characters long"
        log.note(
            "json-too-complex", body[:80],
            f"Broken JSON {why} was not repaired (limits: {MAX_REPAIR_DEPTH} levels, {MAX_REPAIR_CHARS} characters).",
        )
        return None
    after = ""
    if not truncated and last >= 0:
        after = body[last + 1 :].strip()
        body = body[: last + 1]
    value = repair_value(body, REPAIR_PIECE_CHARS)
    if value in (None, "", [], {}) and not body.strip("{}[] \n\t"):
        return Loaded(value, True, truncated, before, after) if value in ([], {}) else None
    if value is None or value == "":
        return None
    log.note("json-truncated" if truncated else "json-repaired", body[-80:] if truncated else body)
    return Loaded(value, True, truncated, before, after)


def _complete_cut(body: str, closers: list[str], in_string: bool) -> Any:
    """The value of JSON cut off inside a string or between values, closed as written (the
    commonest truncation, and far cheaper than json_repair on a long open string); None when
    closing it is not enough."""
    candidate = body + ('"' if in_string else "") + "".join(reversed(closers))
    try:
        value, end = _DECODER.raw_decode(candidate)
    except (json.JSONDecodeError, RecursionError):
        return None
    return value if end == len(candidate) else None


def _shape(body: str) -> tuple[int, list[str], bool]:
    """(deepest nesting, closers still owed, inside a string at the end) outside strings: owed
    closers or an open string mean the answer was cut off."""
    depth = deepest = 0
    owed: list[str] = []
    scan = StringScan()  # a double-quoted string only: single quotes are characters here
    for ch in body:
        if scan.quote:
            scan.step(ch)
        elif ch == '"':
            scan.open(ch)
        elif ch in "{[":
            owed.append("}" if ch == "{" else "]")
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "}]":
            depth -= 1
            if owed:
                owed.pop()
    return deepest, (owed if depth > 0 else []), bool(scan.quote)


def _first(d: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    lowered = {str(k).lower(): v for k, v in d.items()}
    for k in keys:
        if k in lowered and lowered[k] is not None:
            return lowered[k]
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value if v is not None)
    return str(value).strip()


def _items(value: Any, depth: int = 0) -> tuple[list[Any], list[Any], list[Any]]:
    """Split a loaded value into (entity items, relationship items, unknown items)."""
    ents: list[Any] = []
    rels: list[Any] = []
    unknown: list[Any] = []
    if depth > 8:
        return ents, rels, [value]
    if isinstance(value, list):
        for v in value:
            if isinstance(v, list) or (isinstance(v, dict) and _is_container(v)):
                e, r, u = _items(v, depth + 1)
                ents += e
                rels += r
                unknown += u
            elif isinstance(v, dict) and _first(v, SOURCE_KEYS) is not None and _first(v, TARGET_KEYS) is not None:
                rels.append(v)
            elif isinstance(v, dict):
                ents.append(v)
            else:
                unknown.append(v)
        return ents, rels, unknown
    if isinstance(value, dict):
        if _is_container(value):
            lowered = {str(k).lower(): v for k, v in value.items()}
            for key in ENTITY_LISTS:
                if isinstance(lowered.get(key), list):
                    ents += lowered[key]
            for key in RELATION_LISTS:
                if isinstance(lowered.get(key), list):
                    rels += lowered[key]
            for key, v in lowered.items():
                if key not in ENTITY_LISTS and key not in RELATION_LISTS and isinstance(v, (dict, list)) and _is_container(v):
                    e, r, u = _items(v, depth + 1)
                    ents += e
                    rels += r
                    unknown += u
            return ents, rels, unknown
        return _items([value], depth + 1)
    if value is not None and value != "":
        unknown.append(value)
    return ents, rels, unknown


def _is_container(v: Any) -> bool:
    if isinstance(v, list):
        return bool(v) and all(isinstance(x, (dict, list)) for x in v) and any(
            isinstance(x, dict) and _is_container(x) for x in v
        )
    if isinstance(v, dict):
        keys = {str(k).lower() for k in v}
        return bool(keys & (set(ENTITY_LISTS) | set(RELATION_LISTS))) and not (
            keys & set(SOURCE_KEYS) and keys & set(TARGET_KEYS)
        ) and any(isinstance(v[k], list) for k in v)
    return False


def parse_json_graph(text: str, log: IssueLog, *, round: int = 0) -> tuple[ParsedRecords, Loaded | None]:
    out = ParsedRecords()
    dropped_before = log.dropped_count
    loaded = load_json(text, log)
    out.seen += log.dropped_count - dropped_before  # values load_json could not read
    if loaded is None:
        out.seen += 1
        log.drop("json-invalid", text)
        return out, None
    if loaded.before:
        log.note("preamble", loaded.before)
    if loaded.after:
        log.note("closing-note", loaded.after)
    ents, rels, unknown = _items(loaded.value)
    for item in ents:
        out.seen += 1
        _entity(item, out, log, round)
    for item in rels:
        out.seen += 1
        _relationship(item, out, log, round)
    for item in unknown:
        out.seen += 1
        log.drop("json-item-invalid", _short(item))
    return out, loaded


def _short(item: Any) -> str:
    """A JSON excerpt of an item, safe on pathological nesting."""
    try:
        return json.dumps(item, ensure_ascii=False, default=str)[:300]
    except (RecursionError, ValueError, TypeError):
        return "<unprintable item>"


def _entity(item: Any, out: ParsedRecords, log: IssueLog, round: int) -> None:
    if not isinstance(item, dict):
        log.drop("json-item-invalid", _short(item))
        return
    name = _text(_first(item, NAME_KEYS))
    if not name or is_placeholder(name):
        log.drop("json-item-invalid" if not name else "placeholder-value", _short(item))
        return
    etype = _text(_first(item, TYPE_KEYS))
    description = _text(_first(item, DESC_KEYS))
    if not etype:
        log.note("missing-type", name)
    if not description:
        log.note("missing-description", name)
    out.entities.append(Entity(name=name, type=etype, description=description, round=round))
    out.parsed += 1


def _relationship(item: Any, out: ParsedRecords, log: IssueLog, round: int) -> None:
    if not isinstance(item, dict):
        log.drop("json-item-invalid", _short(item))
        return
    source = _text(_first(item, SOURCE_KEYS))
    target = _text(_first(item, TARGET_KEYS))
    snippet = _short(item)
    if not source or not target:
        log.drop("empty-name", snippet)
        return
    description = _text(_first(item, REL_DESC_KEYS))
    raw_strength = _first(item, STRENGTH_KEYS)
    strength: float | None = None
    if isinstance(raw_strength, bool):
        raw_strength = None
    if isinstance(raw_strength, (int, float)) and math.isfinite(raw_strength):
        strength = float(raw_strength)
    elif isinstance(raw_strength, float):  # NaN, Infinity, or a number too long to read (inputfiles.answer_int)
        log.note("strength-invalid", _short(raw_strength))
    elif raw_strength is not None:
        strength, status = parse_strength(str(raw_strength))
        if status == "repaired":
            log.note("strength-repaired", str(raw_strength))
        elif status == "placeholder":
            log.note("strength-placeholder", str(raw_strength))
        elif status == "invalid":
            log.note("strength-invalid", str(raw_strength))
    keywords = _text(_first(item, KEYWORD_KEYS))
    out.add_relationship(log, snippet, source, target, description, strength, keywords, round)
