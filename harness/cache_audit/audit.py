"""`harness audit-cache`: discover the entries of a cache, classify each by kind, read it with
its kind's parser and the engine's own, and total the rows. The CLI prints what this returns."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from harness.cache_audit.classify import classify
from harness.cache_audit.discovery import Skipped, discover
from harness.cache_audit.entry import ENGINES, EntryAudit
from harness.cache_audit.kind_checks import audit_entry
from harness.cache_audit.seams import count_seams
from harness.cache_audit.totals import AuditTotals, total
from harness.cache_audit.versions import graphrag_0x_notes, settle_fnllm_versions


@dataclass(slots=True)
class CacheAudit:
    rows: list[EntryAudit]
    totals: AuditTotals
    skipped: Skipped
    # what the audit assumed or decided about versions the cache does not store, one line per
    # cache folder ("<folder>: GraphRAG 0.x cache; ... audit with --engine graphrag-1.x")
    notes: list[str] = field(default_factory=list)


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
    notes: list[str] = []
    if engine is not None:
        for entry in entries:
            entry.engine = engine
    else:
        settle_fnllm_versions(entries)
        notes = [f"{root / folder if folder else root}: {note}" for folder, note in graphrag_0x_notes(entries).items()]
    rows = [audit_entry(entry, classify(entry)) for entry in entries]
    count_seams(list(zip(entries, rows)))
    return CacheAudit(rows, total(rows), skipped, notes)
