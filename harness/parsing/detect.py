"""Guessing the output format when the caller says "auto".

Python's `re` is slow on case-insensitive patterns that start with an optional class, so every
pattern here is guarded by a plain substring test on the lower-cased text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from harness.parsing.cleanup import lowered

# LightRAG >= 1.4.8 delimiter and its near misses: <|#|>, <|#>, <#|>, <#>.
LIGHTRAG_DELIM = re.compile(r"<\s*\|?\s*#\s*\|?\s*>")
_LIGHTRAG_RECORD = re.compile(r"(?:entity|relation|relationship)[\"'”]?\s*<\s*\|?\s*#\s*\|?\s*>", re.I)
_REPORT_KEYS = re.compile(r"(?:findings|rating_explanation)[\"']?\s*:")
_JSON_GRAPH_KEYS = re.compile(
    r"[\"'](?:entities|relationships|nodes|edges|entity_name|source_entity|src_id|relationship_strength)[\"']\s*:"
)

_JSON_OBJECT = re.compile(r"\{\s*[\"'][^\"'\n]{1,40}[\"']\s*:")


@lru_cache(maxsize=64)
def _claim_pattern(td: str) -> re.Pattern[str]:
    t = re.escape(td)
    return re.compile(rf"{t}\s*[\"']?(?:true|false|suspected)[\"']?\s*{t}")


@lru_cache(maxsize=64)
def _tag_pattern(td: str) -> re.Pattern[str]:
    t = re.escape(td)
    return re.compile(rf"(?:entity|relationship|relation|content_keywords)[\"'”]?\s*{t}")


def _tagged(low: str, td: str) -> bool:
    """Some record is tagged entity/relationship/content_keywords right before the delimiter."""
    if f'entity"{td}' in low or f"entity{td}" in low or f'relationship"{td}' in low:
        return True
    if "entity" in low or "relation" in low or "content_keywords" in low:
        return _tag_pattern(td).search(low) is not None
    return False


def is_lightrag_new(text: str, low: str | None = None) -> bool:
    """Records written as `entity<|#|>...` (LightRAG >= 1.4.8)."""
    if "#" not in text or LIGHTRAG_DELIM.search(text) is None:
        return False
    return _LIGHTRAG_RECORD.search(text if low is None else low) is not None


def detect_format(text: str, tuple_delimiter: str = "<|>") -> str:
    """One of graphrag, lightrag, json, claims, report. Text is already cleaned (no think blocks,
    no fences). Tuple records win over JSON when both appear (a JSON example in a preamble)."""
    td = tuple_delimiter
    if td and (f'("entity"{td}' in text or f'("relationship"{td}' in text):  # the common case
        return "lightrag" if "content_keywords" in text else "graphrag"
    if text.lstrip()[:1] == "{" and ('"findings"' in text or '"rating_explanation"' in text) and td not in text:
        return "report"  # the common case for community reports
    low = lowered(text)
    td = td.lower()
    has_td = bool(td) and td in low
    if not has_td and is_lightrag_new(text, low):
        return "lightrag"
    claim = has_td and ("true" in low or "false" in low or "suspected" in low) and _claim_pattern(td).search(low)
    if has_td:
        tagged = _tagged(low, td)
        if not tagged and claim:
            return "claims"
        if tagged and "content_keywords" in low:
            return "lightrag"
        if tagged:
            return "graphrag"
        if is_lightrag_new(text, low):
            return "lightrag"
    if "{" in text:
        if ("findings" in low or "rating_explanation" in low) and _REPORT_KEYS.search(low):
            return "report"
        head = text.lstrip()[:1]
        if head in ("{", "[") or _JSON_GRAPH_KEYS.search(low) or _JSON_OBJECT.search(text):
            return "json"
    if claim:
        return "claims"
    return "graphrag"
