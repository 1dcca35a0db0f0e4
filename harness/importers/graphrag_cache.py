"""`harness import graphrag ROOT --cache`: a GraphRAG project's LLM cache as cassettes (0.x-3.x).

How a cached call is found for the call the harness would send (harness.importers.
cache_cassettes plays the conversation and writes the cassettes):

- **0.x-2.x** store each extraction call with its request (the first user message of the
  conversation, and the call's own last user message). A case's conversation is the cached one
  whose first request is byte-equal to the harness's; its calls are taken in the order GraphRAG
  made them (extraction, continuation 0, loop 0, continuation 1, ...), each checked against the
  request the harness sends.
- **3.x** stores no request: an entry's file name is the engine's cache key, `sha256(yaml.dump(
  {"messages": ..., "response_format": None}, sort_keys=True))` + `_v4` (graphrag/cache/
  cache_key_creator.py over graphrag_llm's create_cache_key and graphrag_common's hash_data, the
  arguments `LiteLLMCompletion.completion_async` hands its cache middleware, `metrics` left out).
  The messages are GraphRAG's CompletionMessagesBuilder's: an assistant message carries
  `"refusal": None`, which the endpoint never sees. So each call's key is computed from the
  request the harness sends and looked up under the extraction cache folder
  (`extract_graph.model_instance_name`, default `extract_graph`). The key holds no model name:
  3.x answers a text unit from the cache whatever model the settings name now, so a cache holds
  one model's answer per request, and the model is the stored response's.

Every answer read is the cached one, so a replayed run reads per entry what `harness audit-cache`
reads.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache_audit.classify import classify
from ..cache_audit.discovery import MAX_FILE_BYTES, Skipped, discover
from ..cache_audit.versions import settle_fnllm_versions
from ..errors import InputError
from ..inputfiles import loads, read_bytes
from .cache_cassettes import CachedReply, CachePlan, CaseCache, CaseFinder, Uncovered, response_body

EXTRACTION_KINDS = ("extraction", "continuation", "loop")
_ROUND = re.compile(r"extract-(continuation|loopcheck)-(\d+)")
NOT_STORED = "(not stored)"


@dataclass(slots=True)
class CachedCall:
    """One cached extraction-conversation call of 0.x-2.x: its place in the conversation and the
    body a recording of it would hold."""

    id: str
    kind: str  # extraction, continuation or loop
    index: int  # the gleaning round (0 for the first extraction)
    model: str
    conversation: str  # the first user message of its conversation (holds the text unit)
    request: str  # the call's own last user message
    answer: str
    body: bytes  # a chat completion, as the endpoint answered it

    @property
    def order(self) -> int:
        """Its place in GraphRAG's conversation: extraction, continuation-0, loop-0, continuation-1, ..."""
        if self.kind == "extraction":
            return 0
        return 1 + 2 * self.index + (1 if self.kind == "loop" else 0)


@dataclass(slots=True)
class KeyedEntry:
    """One 3.x cache entry, known by its file name (the engine's cache key)."""

    id: str  # its path under the cache folder, as audit-cache names it
    kind: str
    model: str
    body: bytes


@dataclass(slots=True)
class GraphRAGCache:
    """The extraction calls of a GraphRAG cache folder: 0.x-2.x with their requests, 3.x by key."""

    folder: Path
    calls: list[CachedCall] = field(default_factory=list)
    keyed: dict[str, KeyedEntry] = field(default_factory=dict)  # 3.x: "<folder>/<key>" -> entry

    def models(self) -> list[str]:
        """The models of the cached extraction answers (first answers first), in first-seen order."""
        seen: dict[str, None] = {}
        for kind in ("extraction", "continuation"):
            for call in self.calls:
                if call.kind == kind:
                    seen.setdefault(call.model, None)
            for entry in self.keyed.values():
                if entry.kind == kind:
                    seen.setdefault(entry.model, None)
        return list(seen)


def cache_folder(settings: Mapping[str, Any], base: Path) -> Path:
    """The project's cache folder: `cache.base_dir` (0.x-2.x) or `cache.storage.base_dir` (3.x),
    GraphRAG's default `cache`."""
    section = settings.get("cache")
    value = section.get("base_dir") if isinstance(section, Mapping) else None
    storage = section.get("storage") if isinstance(section, Mapping) else None
    if value is None and isinstance(storage, Mapping):
        value = storage.get("base_dir")
    folder = Path(value) if isinstance(value, str) and value.strip() else Path("cache")
    return folder if folder.is_absolute() else base / folder


def extraction_folder(settings: Mapping[str, Any]) -> str:
    """3.x: the cache folder of the extraction model, `extract_graph.model_instance_name`."""
    section = settings.get("extract_graph")
    value = section.get("model_instance_name") if isinstance(section, Mapping) else None
    return value if isinstance(value, str) and value.strip() else "extract_graph"


def _stored_response(raw: Any) -> Any:
    result = raw.get("result") if isinstance(raw, dict) else None
    if isinstance(result, dict) and isinstance(result.get("response"), dict):
        return result["response"]
    return result


def read_graphrag_cache(folder: Path) -> GraphRAGCache:
    """The extraction-conversation calls of a GraphRAG cache folder."""
    cache = GraphRAGCache(folder)
    entries = list(discover(folder, Skipped()))
    settle_fnllm_versions(entries)
    for entry in entries:
        kind = classify(entry).kind
        if kind not in EXTRACTION_KINDS or entry.answer is None:
            continue
        try:  # bounded, regular files only, the JSON policy (discovery read it so already)
            raw = loads(read_bytes(folder / entry.id, limit=MAX_FILE_BYTES, what="cache entry"))
        except (InputError, ValueError):
            raw = None
        model = entry.model or NOT_STORED
        body = response_body(entry.answer, model, _stored_response(raw))
        if entry.engine == "graphrag-3.x":
            cache.keyed[entry.id] = KeyedEntry(entry.id, kind, model, body)
            continue
        if entry.request is None or entry.conversation is None:
            continue
        index = 0
        for hint in entry.hints:
            match = _ROUND.fullmatch(hint)
            if match:
                index = int(match.group(2))
        cache.calls.append(CachedCall(entry.id, kind, index, model, entry.conversation, entry.request,
                                      entry.answer, body))
    return cache


# --------------------------------------------------------------------------- 0.x-2.x: the stored request


class StoredConversation:
    """One case's cached conversation (0.x-2.x), answered in GraphRAG's order after checking that
    each request the harness sends is the one the engine sent."""

    def __init__(self, calls: list[CachedCall]) -> None:
        self.calls = sorted(calls, key=lambda c: c.order)

    def reply(self, step: int, messages: list[dict[str, Any]]) -> CachedReply:
        if step >= len(self.calls) or self.calls[step].order != step:
            raise Uncovered(f"the cache holds no answer to call {step + 1} of the conversation")
        call = self.calls[step]
        last = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), None)
        if last != call.request:
            raise Uncovered(f"call {step + 1} ({call.kind}): the harness's request differs from the cached one "
                            f"({call.id})")
        return CachedReply(call.id, call.body)

    def unused(self, used: int) -> str | None:
        extra = len(self.calls) - used
        return (f"the cache holds {extra} more call(s) of this conversation than the harness sends "
                "(max_gleanings?)") if extra > 0 else None


def _first_user(messages: list[dict[str, Any]]) -> str | None:
    return next((m.get("content") for m in messages if m.get("role") == "user"), None)


def stored_finder(calls: list[CachedCall], model: str) -> CaseFinder:
    """Find a case's conversation by its first request (0.x-2.x), among `model`'s cached calls."""
    by_conversation: dict[str, list[CachedCall]] = {}
    for call in calls:
        if call.model == model:
            by_conversation.setdefault(call.conversation, []).append(call)

    def find(case: Any, request: Any) -> CaseCache | str:
        held = by_conversation.get(_first_user(request.messages) or "")
        if held is not None:
            return StoredConversation(held)
        text = case.text.strip()
        if text and any(text in conversation for conversation in by_conversation):
            return ("the cache holds this text unit, but the harness's first request differs from the cached "
                    "one (prompt or settings)")
        return "not in the cache"
    return find


# --------------------------------------------------------------------------- 3.x: the engine's cache key


def graphrag3_cache_key(messages: list[dict[str, Any]]) -> str:
    """The cache key GraphRAG 3.x files a chat call under, from the messages the endpoint is sent:
    as its CompletionMessagesBuilder built them (an assistant message with `"refusal": None`)."""
    import yaml

    built = [{**m, "refusal": None} if m.get("role") == "assistant" else dict(m) for m in messages]
    text = yaml.dump({"messages": built, "response_format": None}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest() + "_v4"


class KeyedConversation:
    """One case's conversation in a 3.x cache: each call found by the key the engine computes."""

    def __init__(self, cache: GraphRAGCache, folder: str, model: str) -> None:
        self.cache, self.folder, self.model = cache, folder, model

    def reply(self, step: int, messages: list[dict[str, Any]]) -> CachedReply:
        key = f"{self.folder}/{graphrag3_cache_key(messages)}"
        entry = self.cache.keyed.get(key)
        if entry is None:
            raise Uncovered(f"the cache holds no answer to call {step + 1} of the conversation (key {key})")
        if entry.model != self.model:
            raise Uncovered(f"call {step + 1}: the cache holds {entry.model}'s answer ({key})")
        return CachedReply(entry.id, entry.body)

    def unused(self, used: int) -> str | None:
        return None  # a keyed cache cannot tell a conversation's calls apart from other units'


def keyed_finder(cache: GraphRAGCache, folder: str, model: str) -> CaseFinder:
    """Find a case's conversation by the engine's cache key of its first request (3.x)."""

    def find(case: Any, request: Any) -> CaseCache | str:
        key = f"{folder}/{graphrag3_cache_key(request.messages)}"
        entry = cache.keyed.get(key)
        if entry is None:
            return f"not in the cache (no entry {key})"
        if entry.model != model:
            return f"the cache holds {entry.model}'s answer to it"
        return KeyedConversation(cache, folder, model)
    return find


def finders(cache: GraphRAGCache, models: list[str], folder: str) -> dict[str, CaseFinder]:
    """Per model, how a case's cached conversation is found."""
    out: dict[str, CaseFinder] = {}
    for model in models:
        out[model] = keyed_finder(cache, folder, model) if any(e.model == model for e in cache.keyed.values()) \
            else stored_finder(cache.calls, model)
    return out


def require_calls(folder: Path, cache: GraphRAGCache) -> None:
    """A cache with no extraction conversation to turn into cassettes is an input error."""
    if not folder.is_dir():
        raise InputError(f"{folder}: --cache: no such cache folder (the settings' cache base_dir)")
    if not cache.calls and not cache.keyed:
        raise InputError(f"{folder}: --cache: no cached extraction call (GraphRAG 0.x-2.x store the request, "
                         "3.x the key; this folder holds neither)")


def graphrag_cache_plan(project: Any, draft: Any) -> CachePlan:
    """The cache suite of a GraphRAG project: a variant per model its extraction cache names, each
    sending the project's extraction prompt (the import's `project` variant) under that model."""
    from ..names import safe_name

    folder = cache_folder(project.settings, project.root)
    cache = read_graphrag_cache(folder) if folder.is_dir() else GraphRAGCache(folder)
    require_calls(folder, cache)
    prompt_from = "project" if "project" in draft.variants else "default"
    models = [model for model in cache.models() if model != NOT_STORED]
    if not models:
        raise InputError(f"{folder}: --cache: the cached extraction calls name no model")
    names = {safe_name(model, fallback="model"): model for model in models}
    find = finders(cache, models, extraction_folder(project.settings))
    notes = []
    if cache.keyed:
        notes.append(f"{folder}: GraphRAG 3.x files a call under a key of its messages only, not the model: each "
                     "text unit holds the answer of the model that first answered it")
    return CachePlan(folder, {name: {**draft.variants[prompt_from], "model": model} for name, model in names.items()},
                     names, {name: find[model] for name, model in names.items()}, notes, prompt_from=prompt_from)
