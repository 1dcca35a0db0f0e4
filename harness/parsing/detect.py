"""Text tests that recognise output formats, shared by the formats' detection rules (the rules
themselves, and `detect_format`, are in harness.formats).

Speed matters here (every answer goes through them): plain substring tests come first, and the
regular expressions used afterwards all start with a literal (the delimiter), which Python's
`re` searches for quickly. The text is never lower-cased as a whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

from harness.parsing.lightrag import LIGHTRAG_DELIMITER_LOOSE

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
_LINE_HEAD = r"^[ \t]*(?:(?:\d{1,3}[.)]|[-*•+])[ \t]+)?(?:[^\W\d][\w ]{0,30}:[ \t]*)?"
_PAREN_TRIPLE = re.compile(
    _LINE_HEAD + r"\((?![\"'“]?(?:entity|relationship|relation|content_keywords)[\"'”]?\s*,)[^\n,]*,[^\n,]*,[^\n]*\)",
    re.M | re.I,
)
_CALL_TRIPLE = re.compile(_LINE_HEAD + r"[^\W\d][\w.:\-]*\([^\n,()]*,[^\n]*\)", re.M)


def parenthesised_triples(text: str) -> bool:
    """Some line opens with `(subject, predicate, object)` (LlamaIndex's triples)."""
    return "(" in text and "," in text and _PAREN_TRIPLE.search(text) is not None


def call_triples(text: str) -> bool:
    """Some line opens with `predicate(subject, object)` (Text2KGBench's triples)."""
    return "(" in text and "," in text and _CALL_TRIPLE.search(text) is not None
