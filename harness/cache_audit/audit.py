"""`harness audit-cache`: discover the entries of a cache, classify each by kind, read it with
its kind's parser and the engine's own, and total the rows. The CLI prints what this returns."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harness.cache_audit.classify import classify
from harness.cache_audit.discovery import Skipped, discover
from harness.cache_audit.entry import ENGINES, CacheEntry, EntryAudit
from harness.cache_audit.kind_checks import audit_entry
from harness.cache_audit.seams import count_seams
from harness.cache_audit.totals import AuditTotals, total


@dataclass(slots=True)
class CacheAudit:
    rows: list[EntryAudit]
    totals: AuditTotals
    skipped: Skipped


def audit_cache(path: str | os.PathLike[str], *, engine: str | None = None) -> CacheAudit:
    """Audit every cache entry under `path`. `engine` (one of ENGINES) overrides the engine and
    version read from the layout. Raises FileNotFoundError for a missing path and ValueError for
    an unknown engine; never for the cache's content."""
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(str(root))
    skipped = Skipped()
    entries = list(discover(root, skipped))
    if engine is not None:
        for entry in entries:
            entry.engine = engine
    else:
        settle_fnllm_versions(entries)
    rows = [audit_entry(entry, classify(entry)) for entry in entries]
    count_seams(list(zip(entries, rows)))
    return CacheAudit(rows, total(rows), skipped)


def _cache_root(entry_id: str) -> str:
    """The cache folder an entry's workflow folder sits in (`a/cache` of `a/cache/extract_graph/chat_x_v2`)."""
    return entry_id.rsplit("/", 2)[0] if entry_id.count("/") >= 2 else ""


def settle_fnllm_versions(entries: list[CacheEntry]) -> None:
    """GraphRAG 1.x and 2.x with fnllm store entries alike; 2.x names two workflow folders
    differently (extract_graph, extract_claims). An entry read as 1.x whose cache folder also
    holds a 2.x entry is 2.x."""
    roots = {_cache_root(e.id) for e in entries if e.engine == "graphrag-2.x"}
    for entry in entries:
        if entry.engine == "graphrag-1.x" and _cache_root(entry.id) in roots:
            entry.engine = "graphrag-2.x"
            entry.layout = entry.layout.replace("graphrag-1.x", "graphrag-2.x", 1)
