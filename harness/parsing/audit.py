"""Audit an indexing cache: parse every cached model answer and compare with what GraphRAG's
simple parser keeps. Reads files (this is an edge of the system); everything else is pure.

Understood layouts:
- a GraphRAG cache folder: one JSON file per call (e.g. cache/entity_extraction/chat-<hash>),
  the answer under `result` (a string, or an OpenAI-style response object), `return`,
  `output` or `response`;
- a nano-graphrag / LightRAG `kv_store_llm_response_cache.json`: {key: {"return": ...}} or,
  in older LightRAG, {mode: {key: {"return": ..., "cache_type": ...}}}.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.parsing.answer import parse
from harness.parsing.naive import naive_graphrag_counts

ANSWER_KEYS = ("result", "return", "output", "response", "content", "text", "completion")
MAX_FILE_BYTES = 64 * 1024 * 1024
_CALLS = (
    ("continuation", "continuation"),
    ("gleaning", "continuation"),
    ("claim", "claims"),
    ("covariate", "claims"),
    ("community_report", "community_report"),
    ("community-report", "community_report"),
    ("summar", "summarize"),
    ("extract", "extract"),
    ("entity", "extract"),
    ("graph", "extract"),
)
_FORMAT_FOR_CALL = {"claims": "claims", "community_report": "report"}


def answer_text(value: Any, depth: int = 0) -> str | None:
    """The model's answer inside one cache entry: a string under a known key, or the content of
    an OpenAI-style response object."""
    if isinstance(value, str):
        return value
    if depth > 5:
        return None
    if isinstance(value, list):
        for item in value:
            found = answer_text(item, depth + 1)
            if found is not None:
                return found
        return None
    if not isinstance(value, dict):
        return None
    choices = value.get("choices")
    if isinstance(choices, list) and choices:
        first = choices[0]
        if isinstance(first, dict):
            message = first.get("message")
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                return message["content"]
            if isinstance(first.get("text"), str):
                return first["text"]
    for key in ANSWER_KEYS:
        if key in value:
            found = answer_text(value[key], depth + 1)
            if found is not None:
                return found
    return None


def classify_call(name: str, entry: Any = None) -> str:
    """extract, continuation, claims, community_report, summarize or other, from the cache
    entry's own type when it has one, else from its path or key."""
    hints = [name.lower()]
    if isinstance(entry, dict):
        for key in ("cache_type", "type", "name"):
            if isinstance(entry.get(key), str):
                hints.insert(0, entry[key].lower())
    for hint in hints:
        for needle, call in _CALLS:
            if needle in hint:
                return call
    return "other"


def _entries(path: Path) -> Iterator[tuple[str, Any, str]]:
    """(id, entry, call hint) for every cached answer found under `path`."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        rel = file.name if path.is_file() else str(file.relative_to(path))
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                yield rel, {"__error__": "file too large"}, rel
                continue
            raw = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            yield rel, {"__error__": f"unreadable: {type(exc).__name__}"}, rel
            continue
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            yield rel, {"__error__": "not JSON"}, rel
            continue
        if file.name.startswith("kv_store") or _is_kv_store(data):
            yield from _kv_entries(rel, data)
        else:
            yield rel, data, rel


def _is_kv_store(data: Any) -> bool:
    if not isinstance(data, dict) or not data:
        return False
    if answer_text({k: data[k] for k in ANSWER_KEYS if k in data}) is not None:
        return False
    values = list(data.values())[:5]
    return all(isinstance(v, dict) for v in values)


def _kv_entries(rel: str, data: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, Any, str]]:
    if not isinstance(data, dict):
        return
    for key, entry in data.items():
        if isinstance(entry, dict) and any(k in entry for k in ANSWER_KEYS):
            yield f"{rel}#{prefix}{key}", entry, f"{prefix}{key}"
        elif isinstance(entry, dict) and depth < 2:  # older LightRAG: {mode: {key: entry}}
            yield from _kv_entries(rel, entry, f"{prefix}{key}/", depth + 1)


def audit_cache(
    path: str | os.PathLike[str],
    *,
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    completion_delimiter: str = "<|COMPLETE|>",
) -> Iterator[dict[str, Any]]:
    """One JSON-able dict per cached answer: what `parse` recovered, what GraphRAG's simple
    parser would keep, the completion status and the issue codes. Unreadable files yield a row
    with an `error` and nothing else; nothing here raises on bad cache content."""
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(str(root))
    for entry_id, entry, hint in _entries(root):
        if isinstance(entry, dict) and "__error__" in entry:
            yield {"id": entry_id, "error": entry["__error__"]}
            continue
        text = answer_text(entry)
        if text is None:
            yield {"id": entry_id, "error": "no answer text found"}
            continue
        call = classify_call(hint, entry)
        fmt = _FORMAT_FOR_CALL.get(call, "auto")
        result = parse(
            text,
            fmt,
            tuple_delimiter=tuple_delimiter,
            record_delimiter=record_delimiter,
            completion_delimiter=completion_delimiter,
        )
        naive = naive_graphrag_counts(text, tuple_delimiter, record_delimiter, completion_delimiter)
        fr = result.format_report
        model = entry.get("model") if isinstance(entry, dict) else None
        yield {
            "id": entry_id,
            "call": call,
            "model": model if isinstance(model, str) else None,
            "format": result.format,
            "entities": len(result.graph.entities),
            "relationships": len(result.graph.relationships),
            "claims": len(result.graph.claims),
            "report": result.graph.report is not None,
            "naive_entities": naive.entities,
            "naive_relationships": naive.relationships,
            "naive_weight_fallbacks": naive.weight_fallbacks,
            "records_seen": fr.records_seen,
            "records_parsed": fr.records_parsed,
            "records_dropped": fr.records_dropped,
            "completion": fr.completion,
            "issues": sorted({i.code for i in fr.issues}),
        }
