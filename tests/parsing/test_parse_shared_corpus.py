"""Measurements on the shared corpus of real model answers (../shared/corpus). Skipped when the
folder is absent; nothing from it is copied into the project."""

from __future__ import annotations


from typing import Any


from harness.formats.answer import parse
from harness.cache_audit.engines import graphrag_counts



def test_shared_corpus_every_row_parses(shared_corpus_rows: list[dict[str, Any]]) -> None:
    for row in shared_corpus_rows:
        result = parse(row.get("output") or "")
        assert not any(i.code == "internal-error" for i in result.format_report.issues), row["id"]


def test_shared_corpus_recovers_at_least_graphrag(shared_corpus_rows: list[dict[str, Any]]) -> None:
    worse = []
    for row in shared_corpus_rows:
        if row["call"] not in ("extract", "continuation"):
            continue
        text = row.get("output") or ""
        naive = graphrag_counts(text, "graphrag-3.x")
        ents, rels = naive.entities, naive.relationships
        result = parse(text)
        if len(result.graph.entities) < ents or len(result.graph.relationships) < rels:
            worse.append(row["id"])
    assert worse == []


def test_shared_corpus_reports_parse(shared_corpus_rows: list[dict[str, Any]]) -> None:
    rows = [r for r in shared_corpus_rows if r["call"] == "community_report"]
    parsed = sum(1 for r in rows if parse(r["output"] or "", "report").graph.report is not None)
    assert parsed >= 0.99 * len(rows)


def test_shared_corpus_no_answer_is_taken_for_triples(shared_corpus_rows: list[dict[str, Any]]) -> None:
    # the corpus holds GraphRAG, LightRAG, JSON-graph, claim and report answers only: the triple
    # formats' detection rules must not take any of them
    triple_formats = {"llamaindex", "function", "json_triples", "triple_table"}
    taken = [row["id"] for row in shared_corpus_rows if parse(row.get("output") or "").format in triple_formats]
    assert taken == []
