"""Measurements on the shared corpus of real cached answers (../shared/corpus, see its README):
the classifier against the corpus's own call labels, and the GraphRAG v3 parser model against
the corpus README's figures for GraphRAG's own parser. Skipped when the corpus is absent; nothing
from it is copied into the project."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from harness.cache_audit.classify import classify
from harness.cache_audit.engines import graphrag_counts
from harness.cache_audit.entry import CacheEntry
from harness.cache_audit.layouts import path_hints



def _entry(row: dict[str, Any]) -> CacheEntry:
    kv = "#" in row["id"]  # nano-graphrag / LightRAG key-value caches: no folder, no cache_type stored
    return CacheEntry(id=row["path"], engine="lightrag" if kv else "graphrag-2.x", layout="corpus",
                      answer=row.get("output") or "", request=row.get("prompt") or None, model=row.get("model"),
                      hints=() if kv else path_hints(row["path"]))


@pytest.mark.slow
def test_shared_corpus_classification_matches_the_call_labels(shared_corpus_rows: list[dict[str, Any]]) -> None:
    pairs = Counter((row["call"], classify(_entry(row)).kind) for row in shared_corpus_rows)
    # measured: extract->extraction 826, continuation->continuation 182, continuation->claims 32
    # (gleanings in claim_extraction/: claims answers, kind claims by design), claims 32,
    # community_report->report 602, summarize->summary 500, other->unknown 8 (query answers of a
    # key-value cache that stores nothing but the answer)
    agree = {("extract", "extraction"), ("continuation", "continuation"), ("claims", "claims"),
             ("community_report", "report"), ("summarize", "summary")}
    wrong = {pair: n for pair, n in pairs.items() if pair not in agree and pair not in {
        ("continuation", "claims"), ("other", "unknown"), ("other", "query")}}
    assert wrong == {}
    assert pairs[("summarize", "summary")] == 500 and pairs[("extract", "extraction")] == 826


def test_shared_corpus_graphrag_v3_model_matches_graphrags_own_figures(shared_corpus_rows: list[dict[str, Any]]) -> None:
    rows = [r for r in shared_corpus_rows if r["call"] in ("extract", "continuation")]
    counts = [graphrag_counts(r.get("output") or "", "graphrag-3.x") for r in rows]
    # the corpus README: GraphRAG's own parser (v3.3.0) over these 1,040 rows keeps 5,746 entities
    # and 3,856 relationships
    assert (len(rows), sum(c.entities for c in counts), sum(c.relationships for c in counts)) == (1040, 5746, 3856)
