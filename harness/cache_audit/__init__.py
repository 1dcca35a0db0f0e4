"""`harness audit-cache`: every entry of a GraphRAG (0.x to 3.x) or LightRAG cache classified by
kind (extraction, continuation, loop, summary, report, claims, embedding, query), read with its
kind's parser, and compared with what the engine's own parser keeps.

One responsibility a module: discovery (files, skipped), layouts (how each engine and version
stores a call), classify (the kind), engines (which engine's extraction parser reads an answer:
graphrag_parser, lightrag_parser and llamaindex_parser model them per version, engine_graph holds
the graph they build; runs score it, harness.scoring.engine_reading),
kind_checks (each kind's parser), seams (GraphRAG's gluing of an answer and its gleanings),
versions (the version a cache folder was written by, where one entry cannot say), totals (per kind and per model, the table), audit (the run).

A lazy facade (harness.lazy_exports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_facade

# The public names, bound on first use. `lazy_facade` reads this block: it is the only list of the names.
if TYPE_CHECKING:
    from .audit import CacheAudit, audit_cache
    from .entry import ENGINES, CALL_KINDS, CacheEntry, EngineCounts, EntryAudit
    from .engines import graphrag_counts, lightrag_counts, lightrag_legacy_counts

__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)
