"""What kind of call a cache entry is: extraction, continuation (gleaning), loop (the Y/N
question between gleanings), summary, report, claims, embedding or query (with its sub-kind).

The entry's own metadata decides first (LightRAG's cache_type and mode; GraphRAG's call name in
the file name, the stored request: the loop and continuation prompts, the summarize prompt; the
workflow folder), then the answer's shape (GraphRAG 3.x stores no request and no call name, so a
loop answer in extract_graph/ is known by being a bare Y or N).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.cache_audit.entry import CacheEntry

_LOOP_ANSWER = re.compile(r"^\W*(y|n|yes|no)\W*$", re.I)
_LOOP_REQUEST = ("answer y if there are still", "answer yes | no", "answer yes {tuple_delimiter} no", "answer y or n",
                 "single letter y or n", "answer yes or no", "still entities or relationships that need to be added",
                 "if there are still entities that need to be added")
_CONTINUE_REQUEST = ("many entities were missed", "many entities and relationships were missed",
                     "were missed in the last extraction", "identify and extract any **missed",
                     "add them below using the same format")
_SUMMARY_REQUEST = ("comprehensive summary of the data provided", "description list:",
                    "summarize_entity_descriptions", "---description list---", "description list")
_REPORT_REQUEST = ("community analysis", "write a comprehensive report of a community")
_CLAIMS_REQUEST = ("claims against certain entities", "claim description")

_SUMMARY_FOLDERS = ("summarize_descriptions", "summarize")
_REPORT_FOLDERS = ("community_reporting", "create_community_report", "community_report", "community_reports")
_CLAIMS_FOLDERS = ("claim_extraction", "extract_claims", "extract_covariates", "claims")
_EXTRACT_FOLDERS = ("entity_extraction", "extract_graph", "extract")
_EMBED_FOLDERS = ("text_embedding", "embedding", "embeddings")
_QUERY_FOLDERS = {"map": "map", "global_search_map": "map", "reduce": "reduce", "global_search_reduce": "reduce",
                  "drift": "drift", "drift_search": "drift", "local_search": "local", "basic_search": "basic",
                  "question_gen": "question"}
_RECORD_TAG = re.compile(r"""(^|[\n(（#])\s*["'“]?(entity|relationship|relation)["'”]?\s*(<\|>|<\|#\|>)""", re.I)


@dataclass(frozen=True, slots=True)
class Kind:
    kind: str
    source: str  # what decided it
    query_kind: str | None = None


def is_loop_answer(answer: str | None) -> bool:
    return answer is not None and bool(_LOOP_ANSWER.match(answer.strip())) and len(answer.strip()) <= 8


def _has(text: str | None, needles: tuple[str, ...]) -> bool:
    if not text:
        return False
    low = text.casefold()
    return any(n in low for n in needles)


def _json_keys(answer: str) -> set[str]:
    """Top-level keys of the JSON object in the answer (fences and prose around it allowed)."""
    from harness.checks.query import load_answer

    value, _ = load_answer(answer)
    return set(value) if isinstance(value, dict) else set()


def shape_kind(answer: str | None) -> Kind:
    """The kind an answer's own shape says, when nothing else does."""
    if answer is None or not answer.strip():
        return Kind("unknown", "answer shape (empty)")
    if is_loop_answer(answer):
        return Kind("loop", "answer shape")
    if _RECORD_TAG.search(answer):
        return Kind("extraction", "answer shape")
    if "{" in answer:
        keys = _json_keys(answer)
        if "points" in keys:
            return Kind("query", "answer shape", "map")
        if "findings" in keys:
            return Kind("report", "answer shape")
        if "intermediate_answer" in keys:
            return Kind("query", "answer shape", "drift")
        if "follow_up_queries" in keys:
            return Kind("query", "answer shape", "drift-local")
        if {"rating", "reason"} <= keys:
            return Kind("query", "answer shape", "rate")
        if keys & {"high_level_keywords", "low_level_keywords"}:
            return Kind("query", "answer shape", "keywords")
        if keys & {"entities", "relationships"}:
            return Kind("extraction", "answer shape")
    if answer.count("<|>") >= 5 and answer.lstrip().startswith("("):
        return Kind("claims", "answer shape")
    return Kind("unknown", "answer shape")


def _lightrag_kind(entry: CacheEntry) -> Kind | None:
    cache_type = (entry.cache_type or "").lower()
    mode = (entry.mode or "").lower()
    if cache_type == "extract" or (not cache_type and mode == "default" and shape_kind(entry.answer).kind in ("extraction", "loop")):
        if is_loop_answer(entry.answer):
            return Kind("loop", "cache_type extract + answer shape" if cache_type else "mode default + answer shape")
        if _has(entry.request, _CONTINUE_REQUEST):
            return Kind("continuation", "cache_type extract + request" if cache_type else "mode default + request")
        return Kind("extraction", "cache_type" if cache_type else "mode default + answer shape")
    if cache_type == "summary" or (not cache_type and mode == "default"):
        return Kind("summary", "cache_type" if cache_type else "mode default")
    if cache_type == "keywords":
        return Kind("query", "cache_type", "keywords")
    if cache_type == "query" or (not cache_type and mode):
        shaped = shape_kind(entry.answer)
        if shaped.query_kind == "keywords":
            return Kind("query", f"mode {mode} + answer shape", "keywords")
        return Kind("query", "cache_type" if cache_type else "mode", mode or None)
    return None


def classify(entry: CacheEntry) -> Kind:
    """The kind of one cache entry; see the module docstring for the order of evidence."""
    if entry.embedding:
        return Kind("embedding", "layout (vectors)")
    if entry.engine == "lightrag":
        found = _lightrag_kind(entry)
        if found is not None:
            return found
        return shape_kind(entry.answer)
    hints = entry.hints
    claims = any(h in _CLAIMS_FOLDERS for h in hints)
    if any("loopcheck" in h for h in hints) or _has(entry.request, _LOOP_REQUEST):
        return Kind("loop", "call name" if any("loopcheck" in h for h in hints) else "request")
    if any("continuation" in h for h in hints) or _has(entry.request, _CONTINUE_REQUEST):
        source = "call name" if any("continuation" in h for h in hints) else "request"
        return Kind("claims", f"{source} (claims gleaning)") if claims else Kind("continuation", source)
    if any(h in _EMBED_FOLDERS for h in hints):
        return Kind("embedding", "folder")
    for hint in hints:
        if hint in _QUERY_FOLDERS:
            return Kind("query", "folder", _QUERY_FOLDERS[hint])
    if any(h in _SUMMARY_FOLDERS for h in hints):
        return Kind("summary", "folder")
    if any(h in _REPORT_FOLDERS for h in hints):
        return Kind("report", "folder")
    if claims:
        return Kind("loop", "folder + answer shape") if is_loop_answer(entry.answer) else Kind("claims", "folder")
    if any(h in _EXTRACT_FOLDERS for h in hints):
        return Kind("loop", "folder + answer shape") if is_loop_answer(entry.answer) else Kind("extraction", "folder")
    if _has(entry.request, _SUMMARY_REQUEST):
        return Kind("summary", "request")
    if _has(entry.request, _CLAIMS_REQUEST):
        return Kind("claims", "request")
    if _has(entry.request, _REPORT_REQUEST):
        return Kind("report", "request")
    return shape_kind(entry.answer)
