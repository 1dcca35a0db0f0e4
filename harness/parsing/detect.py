"""Text tests that recognise output formats, shared by the formats' detection rules (the rules
themselves, and `detect_format`, are in harness.formats).

Speed matters here (every answer goes through them): plain substring tests come first, and the
regular expressions used afterwards all start with a literal (the delimiter), which Python's
`re` searches for quickly. The text is never lower-cased as a whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

from harness.parsing.lightrag_records import LIGHTRAG_DELIMITER_LOOSE

_LIGHTRAG_TAG_BEFORE = re.compile(r"(?:entity|relation|relationship)[\"'”]?\s*$", re.I)
REPORT_KEYS = re.compile(r"(?:findings|rating_explanation)[\"']?\s*:", re.I)
JSON_GRAPH_KEYS = re.compile(
    r"[\"'](?:entities|relationships|nodes|edges|entity_name|source_entity|src_id|relationship_strength)[\"']\s*:",
    re.I,
)
JSON_OBJECT = re.compile(r"\{\s*[\"'][^\"'\n]{1,40}[\"']\s*:")
_TAG_BEFORE = re.compile(r"(?:entity|relationship|relation|content_keywords)[\"'”]?\s*$", re.I)


def _tag_before(text: str, td: str, pattern: re.Pattern[str], limit: int = 200) -> bool:
    """Some occurrence of `td` (among the first `limit`) is preceded by a record tag."""
    pos = text.find(td)
    n = 0
    while pos >= 0 and n < limit:
        if pattern.search(text, max(0, pos - 24), pos):
            return True
        pos = text.find(td, pos + len(td))
        n += 1
    return False


@lru_cache(maxsize=64)
def _claim_pattern(td: str) -> re.Pattern[str]:
    t = re.escape(td)
    return re.compile(rf"{t}\s*[\"']?(?:true|false|suspected)[\"']?\s*{t}", re.I)


def claim_status_between(text: str, td: str) -> bool:
    """A claim status (TRUE, FALSE, SUSPECTED) stands between two tuple delimiters."""
    return _claim_pattern(td).search(text) is not None


def tagged(text: str, td: str) -> bool:
    """Some record is tagged entity/relationship/content_keywords right before the delimiter."""
    if f'entity"{td}' in text or f"entity{td}" in text or f'relationship"{td}' in text:
        return True
    return _tag_before(text, td, _TAG_BEFORE)


def has_wide_records(text: str, td: str) -> bool:
    """Untagged records with seven or more delimiters: claims (eight fields)."""
    return any(line.count(td) >= 6 for line in text.split("\n") if td in line)


def is_lightrag_new(text: str) -> bool:
    """Records written as `entity<|#|>...` (LightRAG >= 1.4.8)."""
    if "#" not in text:
        return False
    for m in LIGHTRAG_DELIMITER_LOOSE.finditer(text):
        if _LIGHTRAG_TAG_BEFORE.search(text, max(0, m.start() - 24), m.start()):
            return True
        if m.start() > 20000:
            break
    return False


# A line that opens with a triple: optional numbering or bullet, an optional short label
# ("Triplet 1:"), then `(part, part, ...)` or `predicate(part, part)`; not a GraphRAG record tag.
_LINE_HEAD = r"[ \t]*(?:(?:\d{1,3}[.)]|[-*•+])[ \t]+)?(?:[^\W\d](?:[\w ]|\\_){0,30}:[ \t]*)?"
_PAREN_TRIPLE = re.compile(
    _LINE_HEAD + r"\((?![\"'“]?(?:entity|relationship|relation|content_keywords)[\"'”]?\s*,)[^,]*,[^,]*,.*\)", re.I
)
_CALL_TRIPLE = re.compile(_LINE_HEAD + r"[^\W\d](?:[\w.:\-]|\\_)*\([^,()]*,.*\)")
# Triples start early (after at most a short preamble): the lines searched for the first one.
_TRIPLE_LINES_SEARCHED = 400


def _some_line_opens_with(text: str, pattern: re.Pattern[str]) -> bool:
    """Some line (among the first few hundred) holding `(` and `,` matches `pattern` at its start.
    Line by line rather than one multi-line search: the regex then runs only where it may match."""
    if "(" not in text or "," not in text:
        return False
    for line in text.split("\n", _TRIPLE_LINES_SEARCHED)[:_TRIPLE_LINES_SEARCHED]:
        if "(" in line and "," in line and pattern.match(line) is not None:
            return True
    return False


def parenthesised_triples(text: str) -> bool:
    """Some line opens with `(subject, predicate, object)` (LlamaIndex's triples)."""
    return _some_line_opens_with(text, _PAREN_TRIPLE)


def call_triples(text: str) -> bool:
    """Some line opens with `predicate(subject, object)` (Text2KGBench's triples)."""
    return _some_line_opens_with(text, _CALL_TRIPLE)


_TRIPLET_LIST_KEY = re.compile(r"[\"'](?:triplets|triples)[\"']\s*:", re.I)
_SUBJECT_KEY = re.compile(r"[\"'](?:subject|head)[\"']\s*:", re.I)
_PREDICATE_KEY = re.compile(r"[\"'](?:predicate|relation)[\"']\s*:", re.I)
_LIST_OF_TRIPLES = re.compile(r"\[\s*\[\s*[\"'][^\"'\n]*[\"']\s*,\s*[\"'][^\"'\n]*[\"']\s*,\s*[\"']")


def json_triples(text: str) -> bool:
    """JSON triples: a `triplets`/`triples` list, items keyed subject/head and predicate/relation,
    or `[["s", "p", "o"], ...]`; not a JSON graph (entities, relationships, nodes, edges...)."""
    if "[" not in text and "{" not in text:
        return False
    if JSON_GRAPH_KEYS.search(text) is not None:
        return False
    return (
        _TRIPLET_LIST_KEY.search(text) is not None
        or (_SUBJECT_KEY.search(text) is not None and _PREDICATE_KEY.search(text) is not None)
        or _LIST_OF_TRIPLES.search(text) is not None
    )
