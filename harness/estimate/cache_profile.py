"""What a project's LLM cache measured of indexing: per kind of call (extraction with its gleaning,
description summaries, community reports, claims), the calls and the tokens each reported, and how
many chunks the cache extracted, so that later stages become ratios per chunk.

Read with the audit's own discovery and classification (`harness.cache_audit`); the tokens are the
`usage` the endpoint returned, which GraphRAG 0.9-3.x keep with each response. A cache holding
several models' calls is read for one of them: the variant's model when the cache has it (a dated
snapshot matches its undated name), else the model with the most extraction calls, said so."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..cache_audit.classify import classify
from ..cache_audit.discovery import Skipped, discover
from ..cache_audit.entry import CacheEntry
from ..cache_audit.versions import settle_fnllm_versions
from ..errors import InputError
from ..inputfiles import shown_path

EXTRACTION_KINDS = ("extraction", "continuation", "loop")
STAGES = ("summary", "report", "claims")  # the stages after extraction, in the order GraphRAG runs them


@dataclass
class KindCalls:
    """The calls of one kind that reported their tokens."""

    calls: int = 0
    prompt: list[int] = field(default_factory=list)
    completion: list[int] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)  # only calls whose duration is stored

    def add(self, entry: CacheEntry) -> None:
        self.calls += 1
        self.prompt.append(entry.prompt_tokens or 0)
        self.completion.append(entry.completion_tokens or 0)
        if entry.latency_s is not None:
            self.latency.append(entry.latency_s)

    @property
    def tokens(self) -> int:
        return sum(self.prompt) + sum(self.completion)


@dataclass
class CacheProfile:
    source: str
    model: str | None
    model_note: str | None  # why this model's calls were read, when the cache holds several
    chunks: int | None  # chunks the cache extracted (None: the cache does not say)
    chunks_source: str
    kinds: dict[str, KindCalls]  # extraction, continuation, loop, summary, report, claims
    without_usage: int  # chat calls of the model that stored no usage

    def stage(self, name: str) -> KindCalls | None:
        return self.kinds.get(name)

    @property
    def extraction(self) -> KindCalls:
        """Every extraction call, gleanings and loop checks included."""
        out = KindCalls()
        for kind in EXTRACTION_KINDS:
            got = self.kinds.get(kind)
            if got is not None:
                out.calls += got.calls
                out.prompt += got.prompt
                out.completion += got.completion
                out.latency += got.latency
        return out


def _same_model(stored: str, wanted: str) -> bool:
    return stored == wanted or stored.startswith(wanted + "-") or wanted.startswith(stored + "-")


def read_profile(path: Path, *, model: str | None, corpus_chunks: int | None) -> CacheProfile:
    """The profile of the cache at `path` for `model`. `corpus_chunks`: the chunks of the project
    the cache belongs to, used when the cache stores no request to count its chunks by (GraphRAG
    3.x, LightRAG)."""
    if not path.exists():
        raise InputError(f"--cache {shown_path(path)}: no such folder")
    skipped = Skipped()
    entries = [e for e in discover(path, skipped) if not e.embedding]
    settle_fnllm_versions(entries)
    kinds = [(entry, classify(entry).kind) for entry in entries]
    extractions: dict[str, int] = defaultdict(int)
    for entry, kind in kinds:
        if kind == "extraction":
            extractions[entry.model or ""] += 1
    if not extractions:
        raise InputError(f"--cache {shown_path(path)}: no extraction call in this cache")
    chosen, note = _choose(sorted(extractions, key=lambda m: (-extractions[m], m)), model)
    profile: dict[str, KindCalls] = {}
    first_calls: list[CacheEntry] = []
    without = 0
    for entry, kind in kinds:
        if (entry.model or "") != chosen or kind not in (*EXTRACTION_KINDS, *STAGES):
            continue
        if entry.prompt_tokens is None:
            without += 1
            continue
        profile.setdefault(kind, KindCalls()).add(entry)
        if kind == "extraction":
            first_calls.append(entry)
    if not profile:
        raise InputError(f"--cache {shown_path(path)}: its calls store no token usage (the endpoint's `usage`); "
                         "GraphRAG keeps it from 0.9 on, LightRAG never")
    chunks, chunks_source = _chunks(first_calls, corpus_chunks)
    return CacheProfile(shown_path(path), chosen or None, note, chunks, chunks_source, profile, without)


def _choose(models: list[str], wanted: str | None) -> tuple[str, str | None]:
    if wanted is not None:
        match = next((m for m in models if _same_model(m, wanted)), None)
        if match is not None:
            return match, None if len(models) == 1 else f"the cache's calls of {match} (it holds {len(models)} models')"
    shown = models[0] or "(model not stored)"
    if len(models) == 1 and wanted is None:
        return models[0], None
    return models[0], f"the cache's calls of {shown}, the model with the most extraction calls (the variant's is not in it)"


def _chunks(first_calls: list[CacheEntry], corpus_chunks: int | None) -> tuple[int | None, str]:
    """Chunks extracted: distinct first requests where every first call stored one (GraphRAG 0.x-2.x),
    else the project's text units when the cache is the corpus project's."""
    if first_calls and all(e.conversation for e in first_calls):
        distinct = len({e.conversation for e in first_calls})
        return distinct, f"{distinct} distinct extraction requests"
    if corpus_chunks is not None:
        return corpus_chunks, f"the project's {corpus_chunks} text units (the cache stores no request)"
    return None, "unknown: the cache stores no request; give the project whose cache it is as --corpus"
