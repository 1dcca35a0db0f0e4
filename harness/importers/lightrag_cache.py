"""`harness import lightrag ROOT --cache`: a LightRAG working folder's LLM cache as cassettes.

LightRAG caches every extraction call (first extraction, each gleaning, 1.4.0-1.4.7's loop
question) in `kv_store_llm_response_cache.json` (flat `mode:cache_type:hash` or nested by mode:
harness.cache_audit.layouts) under `md5(original_prompt)`, and stores `original_prompt`, the
request as `use_llm_func_with_cache` (lightrag/utils.py) folds it:

- 1.4.0-1.4.7: the user prompt, after `json.dumps(history_messages, ensure_ascii=False)` and "\\n"
  when the call has a history (gleanings, the loop question); no system prompt is sent;
- 1.4.8 and later: the user prompt, the system prompt and the history's JSON, each sanitized
  (`sanitize_text_for_encoding`, which the harness's conversation applies to what it sends),
  joined with "\\n", empty parts left out.

So each call the harness would send (the LightRAG conversation of the suite's `engine:`,
llm/engine_conversation.py) is folded the same way and looked up among the stored prompts.
LightRAG stores no model name: the cache is one variant, named for the cache, unless a wrapper
wrote `model` into its entries. The cached `return` is the answer as LightRAG kept it (think
tags removed), written into the cassette as the smallest chat completion holding it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache_audit.entry import CacheEntry
from ..cache_audit.layouts import lightrag_entries
from ..errors import InputError
from .cache_cassettes import CachedReply, CachePlan, CaseCache, CaseFinder, Uncovered, response_body
from .lightrag_workdir import CACHE_FILE, load_store

CACHE_VARIANT = "llm-response-cache"  # the variant of a cache that names no model


@dataclass(slots=True)
class LightRAGCache:
    """The extraction entries of a working folder's LLM cache, by stored prompt."""

    path: Path
    entries: list[CacheEntry] = field(default_factory=list)
    chunk_of: dict[str, str] = field(default_factory=dict)  # entry id -> the chunk id it stores

    def models(self) -> list[str]:
        """The models the entries name (a wrapper's `model`; LightRAG writes none), first seen first."""
        return list(dict.fromkeys(e.model for e in self.entries if e.model))

    def gleanings(self) -> int | None:
        """The most gleanings any chunk was given: its cached calls that store the chunk id (the
        first extraction and each gleaning; 1.4.0-1.4.7's loop question stores none) less one.
        None when no entry stores a chunk id."""
        counts = Counter(self.chunk_of.values())
        return max(counts.values()) - 1 if counts else None


def read_lightrag_cache(workdir: Path) -> LightRAGCache:
    """The default-mode extraction entries of `<workdir>/kv_store_llm_response_cache.json`."""
    path = workdir / CACHE_FILE
    cache = LightRAGCache(path)
    if not path.is_file():
        return cache
    data = load_store(path)
    for entry in lightrag_entries(CACHE_FILE, data):
        if entry.request is None or entry.answer is None:
            continue
        if entry.cache_type not in (None, "extract") or entry.mode not in (None, "default"):
            continue
        cache.entries.append(entry)
    raw = _raw_values(data)
    for entry in cache.entries:
        chunk = raw.get(entry.id.split("#", 1)[1], {}).get("chunk_id")
        if isinstance(chunk, str) and chunk:
            cache.chunk_of[entry.id] = chunk
    return cache


def _raw_values(data: Any) -> dict[str, dict[str, Any]]:
    """Every stored entry by the key its id ends with (`mode:cache_type:hash`, or `mode/hash`)."""
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        if isinstance(value, dict) and "return" in value:
            out[str(key)] = value
        elif isinstance(value, dict):
            for inner_key, inner in value.items():
                if isinstance(inner, dict):
                    out[f"{key}/{inner_key}"] = inner
    return out


def stored_prompt(messages: Sequence[dict[str, Any]], version: tuple[int, ...]) -> str:
    """The `original_prompt` LightRAG `version` stores for a call sending `messages` (module docstring)."""
    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    rest = [m for m in messages if m.get("role") != "system"]
    user = rest[-1].get("content") or "" if rest else ""
    history = [{"role": m.get("role"), "content": m.get("content")} for m in rest[:-1]]
    folded = json.dumps(history, ensure_ascii=False) if history else ""
    if version >= (1, 4, 8):
        return "\n".join(part for part in (user, system, folded) if part)
    return f"{folded}\n{user}" if folded else user


class StoredPrompts:
    """One case's conversation in a LightRAG cache: each call found by its folded request."""

    def __init__(self, cache: LightRAGCache, by_prompt: dict[str, CacheEntry], version: tuple[int, ...],
                 model: str, chunk_id: str | None) -> None:
        self.cache, self.by_prompt, self.version, self.model, self.chunk_id = cache, by_prompt, version, model, chunk_id
        self.with_chunk = 0

    def reply(self, step: int, messages: list[dict[str, Any]]) -> CachedReply:
        entry = self.by_prompt.get(stored_prompt(messages, self.version))
        if entry is None:
            raise Uncovered(f"the cache holds no answer to call {step + 1} of the conversation, as LightRAG "
                            f"{'.'.join(map(str, self.version))} would have asked it")
        if entry.id in self.cache.chunk_of:
            self.with_chunk += 1
        return CachedReply(entry.id, response_body(entry.answer or "", self.model))

    def unused(self, used: int) -> str | None:
        if self.chunk_id is None:
            return None
        held = sum(1 for chunk in self.cache.chunk_of.values() if chunk == self.chunk_id)
        extra = held - self.with_chunk
        return (f"the cache holds {extra} more call(s) of this chunk than the harness sends "
                "(entity_extract_max_gleaning?)") if extra > 0 else None


def finder(cache: LightRAGCache, version: tuple[int, ...], model: str | None, sent_as: str) -> CaseFinder:
    """Find a case's conversation by its first request's stored prompt, among the entries of
    `model` (None: every entry; the cache names no model). `sent_as`: the model the requests name."""
    by_prompt = {e.request: e for e in cache.entries if model is None or e.model == model if e.request}

    def find(case: Any, request: Any) -> CaseCache | str:
        first = stored_prompt(request.messages, version)
        if first not in by_prompt:
            held = case.source_id is not None and case.source_id in cache.chunk_of.values()
            return ("the cache holds this chunk, but the harness's first request differs from the cached one "
                    "(prompt, entity types or language)" if held else "not in the cache")
        return StoredPrompts(cache, by_prompt, version, sent_as, case.source_id)
    return find


def require_entries(cache: LightRAGCache, workdir: Path | None) -> None:
    """A working folder with no cached extraction call is an input error."""
    if workdir is None:
        raise InputError("--cache: no LightRAG working folder (kv_store_*.json) found")
    if not cache.path.is_file():
        raise InputError(f"{cache.path}: --cache: no such file (LightRAG's LLM cache)")
    if not cache.entries:
        raise InputError(f"{cache.path}: --cache: no cached extraction call that stores its prompt")


def lightrag_cache_plan(project: Any, draft: Any) -> CachePlan:
    """The cache suite of a LightRAG working folder: the import's release (`engine:`), whose way of
    folding a request the stored prompts are matched with; a variant per model the cache names,
    else one named for the cache, sending the import's project prompt (else LightRAG's stock one)."""
    from ..engine_names import parse_engine_name
    from ..llm.engine_conversation import lightrag_conversation
    from ..names import safe_name

    workdir = project.workdir
    cache = read_lightrag_cache(workdir) if workdir is not None else LightRAGCache(Path(CACHE_FILE))
    require_entries(cache, workdir)
    release = project.release
    version = release.version if release is not None else parse_engine_name(draft.engine).version
    assert version is not None  # the import names a LightRAG release as the suite's engine
    prompt_from = "project" if "project" in draft.variants else "default"
    prompt = draft.variants[prompt_from]
    notes = []
    if release is not None and release.assumed:
        notes.append(f"{cache.path}: no release is stated; its stored prompts are read as LightRAG "
                     f"{release.label} folds a request ({release.source}); --lightrag-version X.Y.Z names it")
    models = cache.models()
    if models:
        names = {safe_name(model, fallback="model"): model for model in models}
        variants = {name: {**prompt, "model": model} for name, model in names.items()}
        finders = {name: finder(cache, version, model, model) for name, model in names.items()}
    else:
        sent_as = str(draft.model.get("name") or "gpt-4o-mini")
        names = {CACHE_VARIANT: CACHE_VARIANT}
        variants = {CACHE_VARIANT: {**prompt, "model": sent_as}}
        finders = {CACHE_VARIANT: finder(cache, version, None, sent_as)}
        notes.append(f"{cache.path}: LightRAG stores no model name: one variant, {CACHE_VARIANT}, named for the "
                     f"cache (its requests name {sent_as}, the suite's model)")
    gleanings = cache.gleanings()
    stated = draft.model.get("max_gleanings")
    cap = lightrag_conversation(parse_engine_name(f"lightrag-{'.'.join(map(str, version))}")).max_gleanings
    if stated is not None and cap is not None:
        stated = min(stated, cap)  # 1.4.8+ glean once at most, whatever the settings say
    if gleanings is not None and stated is not None and gleanings != stated:
        notes.append(f"{cache.path}: its chunks were gleaned up to {gleanings} time(s), the settings now say "
                     f"{stated}: the cache suite gleans as the cache shows")
    return CachePlan(cache.path, variants, names, finders, notes, max_gleanings=gleanings, prompt_from=prompt_from)
