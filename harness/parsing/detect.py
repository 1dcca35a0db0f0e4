"""Guessing the output format when the caller says "auto".

Speed matters here (every answer goes through it): plain substring tests come first, and the
regular expressions used afterwards all start with a literal (the delimiter), which Python's
`re` searches for quickly. The text is never lower-cased as a whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

# LightRAG >= 1.4.8 delimiter and its near misses: <|#|>, <|#>, <#|>, <#>.
LIGHTRAG_DELIM = re.compile(r"<\s*(?:\|\s*)?#\s*(?:\|\s*)?>")  # unambiguous: `\s*\|?\s*` backtracked quadratically
_LIGHTRAG_TAG_BEFORE = re.compile(r"(?:entity|relation|relationship)[\"'”]?\s*$", re.I)
_REPORT_KEYS = re.compile(r"(?:findings|rating_explanation)[\"']?\s*:", re.I)
_JSON_GRAPH_KEYS = re.compile(
    r"[\"'](?:entities|relationships|nodes|edges|entity_name|source_entity|src_id|relationship_strength)[\"']\s*:",
    re.I,
)
_JSON_OBJECT = re.compile(r"\{\s*[\"'][^\"'\n]{1,40}[\"']\s*:")
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


def _tagged(text: str, td: str) -> bool:
    """Some record is tagged entity/relationship/content_keywords right before the delimiter."""
    if f'entity"{td}' in text or f"entity{td}" in text or f'relationship"{td}' in text:
        return True
    return _tag_before(text, td, _TAG_BEFORE)


def _has_wide_records(text: str, td: str) -> bool:
    """Untagged records with seven or more delimiters: claims (eight fields)."""
    return any(line.count(td) >= 6 for line in text.split("\n") if td in line)


def is_lightrag_new(text: str, low: str | None = None) -> bool:
    """Records written as `entity<|#|>...` (LightRAG >= 1.4.8). (`low` is accepted for
    compatibility and ignored.)"""
    if "#" not in text:
        return False
    for m in LIGHTRAG_DELIM.finditer(text):
        if _LIGHTRAG_TAG_BEFORE.search(text, max(0, m.start() - 24), m.start()):
            return True
        if m.start() > 20000:
            break
    return False


def detect_format(text: str, tuple_delimiter: str = "<|>") -> str:
    """One of graphrag, lightrag, json, claims, report. Text is already cleaned (no think blocks,
    no fences). Tuple records win over JSON when both appear (a JSON example in a preamble)."""
    td = tuple_delimiter
    has_td = bool(td) and td in text
    if has_td and (f'("entity"{td}' in text or f'("relationship"{td}' in text):  # the common case
        return "lightrag" if "content_keywords" in text else "graphrag"
    head = text.lstrip()[:1]
    if head == "{" and not has_td and ('"findings"' in text or '"rating_explanation"' in text):
        return "report"  # the common case for community reports
    if not has_td and is_lightrag_new(text):
        return "lightrag"
    claim = has_td and _claim_pattern(td).search(text) is not None
    if has_td:
        tagged = _tagged(text, td)
        if not tagged and (claim or _has_wide_records(text, td)):
            return "claims"
        if tagged and ("content_keywords" in text or "CONTENT_KEYWORDS" in text):
            return "lightrag"
        if tagged:
            return "graphrag"
        if is_lightrag_new(text):
            return "lightrag"
    if "{" in text:
        if _REPORT_KEYS.search(text):
            return "report"
        if head in ("{", "[") or _JSON_GRAPH_KEYS.search(text) or _JSON_OBJECT.search(text):
            return "json"
    if claim:
        return "claims"
    return "graphrag"
