"""audit_cache over the hand-written fixture caches: every entry's kind, and totals against the
hand count in tests/fixtures/caches/README.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cache_audit import audit_cache

# (engine, kind, query kind) of every entry, by the end of its id; worked by hand (README).
EXPECTED = {
    "graphrag-0/cache/claim_extraction/chat-5f60718293a4b5c6d7e8f90a1b2c3d4e": ("graphrag-0.x", "claims", None),
    "create_community_report-chat-v2-4e5f60718293a4b5c6d7e8f90a1b2c3d": ("graphrag-0.x", "report", None),
    "entity_extraction/chat-0a1b2c3d4e5f60718293a4b5c6d7e8f9": ("graphrag-0.x", "extraction", None),
    "extract-continuation-0-chat-v2-1b2c3d4e5f60718293a4b5c6d7e8f90a": ("graphrag-0.x", "continuation", None),
    "extract-loopcheck-0-chat-v2-2c3d4e5f60718293a4b5c6d7e8f90a1b": ("graphrag-0.x", "loop", None),
    "summarize-chat-v2-3d4e5f60718293a4b5c6d7e8f90a1b2c": ("graphrag-0.x", "summary", None),
    "embedding-60718293a4b5c6d7e8f90a1b2c3d4e5f": ("graphrag-0.x", "embedding", None),
    "chat_create_community_report_2f6b5c7d4a3c9b8f1d0e2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5_v2": ("graphrag-2.x", "report", None),
    "chat_7a1c0f2e9b8d4c3a6e5f7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0_v2": ("graphrag-2.x", "extraction", None),
    "chat_extract-continuation-0_8b2d1f3e0c9e5d4b7f6a8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1_v2": ("graphrag-2.x", "continuation", None),
    "chat_extract-loopcheck-0_9c3e2f4a1d0f6e5c8a7b9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2_v2": ("graphrag-2.x", "loop", None),
    "chat_summarize_0d4f3a5b2e1a7f6d9b8c0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3_v2": ("graphrag-2.x", "summary", None),
    "chat_summarize_1e5a4b6c3f2b8a7e0c9d1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4_v2": ("graphrag-2.x", "summary", None),
    "embeddings_3a7c6d8e5b4d0c9a2e1f3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6_v2": ("graphrag-2.x", "embedding", None),
    "8f2b1c3d0a9c5b4f7d6e8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1_v4": ("graphrag-3.x", "report", None),
    "9a3c2d4e1b0d6c5a8e7f91a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2_v4": ("graphrag-3.x", "claims", None),
    "4b8d7e9f6c5e1d0b3f2a4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7_v4": ("graphrag-3.x", "extraction", None),
    "5c9e8f0a7d6f2e1c4a3b5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8_v4": ("graphrag-3.x", "loop", None),
    "6d0f9a1b8e7a3f2d5b4c6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9_v4": ("graphrag-3.x", "extraction", None),
    "7e1a0b2c9f8b4a3e6c5d7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0_v4": ("graphrag-3.x", "summary", None),
    "0b4d3e5f2c1e7d6b9f8a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3_v4": ("graphrag-3.x", "embedding", None),
    "#default:extract:a1b2c3d4e5f60718293a4b5c6d7e8f90": ("lightrag", "extraction", None),
    "#default:extract:b2c3d4e5f60718293a4b5c6d7e8f90a1": ("lightrag", "continuation", None),
    "#default:summary:c3d4e5f60718293a4b5c6d7e8f90a1b2": ("lightrag", "summary", None),
    "#global:keywords:d4e5f60718293a4b5c6d7e8f90a1b2c3": ("lightrag", "query", "keywords"),
    "#hybrid:query:e5f60718293a4b5c6d7e8f90a1b2c3d4": ("lightrag", "query", "hybrid"),
    "#default/f60718293a4b5c6d7e8f90a1b2c3d4e5": ("lightrag", "extraction", None),
    "#default/0718293a4b5c6d7e8f90a1b2c3d4e5f6": ("lightrag", "loop", None),
    "#local/18293a4b5c6d7e8f90a1b2c3d4e5f607": ("lightrag", "query", "local"),
}


def _row(rows, end: str):
    found = [r for r in rows if r.id.endswith(end)]
    assert len(found) == 1, end
    return found[0]


def test_every_entry_is_classified_as_counted_by_hand(caches: Path) -> None:
    result = audit_cache(caches)
    assert len(result.rows) == len(EXPECTED) == 29
    for end, expected in EXPECTED.items():
        row = _row(result.rows, end)
        assert (row.engine, row.kind, row.query_kind) == expected, row.id


def test_totals_per_kind_match_the_hand_count(caches: Path) -> None:
    by_kind = audit_cache(caches).totals.by_kind
    # kind: (entries, parsed, content findings, engine E, engine R, recovered E, recovered R, lost, weight fallbacks,
    #        engine findings)
    # extraction: engine E 2+2+2+0+2+2 = 10, R 1+1+1+1+1+2 = 7 (2.x: TOKYO->JAPAN and JAPAN->TOKYO are one
    #   undirected edge); ours E 2+2+2+1+2+2 = 11, R 8; lost 1 + 1 = 2; fallbacks 1 (0.x, all) + 1 ("high") + 1 (3.x glued COMPLETE) + 0 + 0 (LightRAG: no weight) + 1 ("high") = 4
    # continuation: engine E 0+1+1 = 2, R 1+1+0 = 2; ours E 1+1+2 = 4, R 1+1+1 = 3; lost 1+0+2 = 3; fallbacks 1+1 = 2
    expected = {
        "extraction": (6, 6, 0, 10, 7, 11, 8, 2, 4, 5),
        "continuation": (3, 3, 0, 2, 2, 4, 3, 3, 2, 3),
        "loop": (4, 4, 0, 0, 0, 0, 0, 0, 0, 1),  # "Yes" is read, but GraphRAG 2.x compares with "Y": an engine finding
        "summary": (5, 5, 0, 0, 0, 0, 0, 0, 0, 0),
        "report": (3, 3, 0, 0, 0, 0, 0, 0, 0, 0),
        "claims": (2, 1, 0, 0, 0, 0, 0, 0, 0, 0),  # the 3.x claims answer has no completion delimiter
        "embedding": (3, 3, 0, 0, 0, 0, 0, 0, 0, 0),
        "query": (3, 3, 0, 0, 0, 0, 0, 0, 0, 0),
    }
    got = {k: (t.entries, t.parsed_ok, t.content_findings, t.engine_entities, t.engine_relationships,
               t.recovered_entities, t.recovered_relationships, t.lost_silently, t.weight_fallbacks, t.engine_findings)
           for k, t in by_kind.items()}
    assert got == expected


def test_totals_per_model_match_the_hand_count(caches: Path) -> None:
    by_model = audit_cache(caches).totals.by_model
    # model: (entries, parsed, lost, weight fallbacks)
    expected = {
        "gpt-4-turbo-preview": (6, 6, 1, 2),  # 0.x: extraction (fallback 1), continuation (lost 1, fallback 1)
        # 2.x: "high" and "7)\n<|COMPLETE|>"; the "Yes" loop is parsed (misread by 2.x); a relationship
        # written both ways is one undirected edge (lost 1)
        "gpt-4o-2024-08-06": (6, 6, 1, 2),
        "gpt-4o-mini": (6, 5, 1, 1),  # 3.x: glued COMPLETE (fallback), unquoted entity (lost); claims not ok
        "text-embedding-3-large": (1, 1, 0, 0),
        "text-embedding-3-small": (2, 2, 0, 0),
        "(not stored)": (8, 8, 2, 1),  # LightRAG stores no model: continuation lost 2; legacy "high"
    }
    assert {m: (t.entries, t.parsed_ok, t.lost_silently, t.weight_fallbacks) for m, t in by_model.items()} == expected


def test_skipped_files_are_counted_not_reported(caches: Path) -> None:
    result = audit_cache(caches)
    # .git holds HEAD, objects/ab/cdef0123 and description.json: 3 files; notes.bin is binary;
    # stats.json is JSON but no cache entry; README.md is not JSON
    assert dict(result.skipped.reasons) == {"in .git/": 3, "binary": 1, "JSON that is no cache entry": 1, "not JSON": 1}
    assert not any(".git" in r.id for r in result.rows)


def test_engine_can_be_forced(caches: Path) -> None:
    rows = audit_cache(caches / "graphrag-2", engine="graphrag-0.x").rows
    extraction = _row(rows, "chat_7a1c0f2e9b8d4c3a6e5f7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0_v2")
    # as 0.x, both relationships fall back to 1.0 (as 2.x only "high" does)
    assert (extraction.engine_parser, extraction.engine_weight_fallbacks) == ("graphrag-0.x", 2)
    with pytest.raises(ValueError):
        audit_cache(caches, engine="graphrag-9")


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        audit_cache(tmp_path / "nope")


# ---------------------------------------------------------------- the bugs of issue 17, one test each


def test_bug_summaries_are_not_parsed_as_extraction(caches: Path) -> None:
    rows = [r for r in audit_cache(caches).rows if r.kind == "summary"]
    assert len(rows) == 5 and all(r.parsed_ok and not r.problems for r in rows)
    chinese = _row(rows, "chat_summarize_0d4f3a5b2e1a7f6d9b8c0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3_v2")
    assert chinese.parsed["names"] == ["东京"]


def test_bug_loop_answers_are_not_extraction(caches: Path) -> None:
    rows = audit_cache(caches).rows
    assert _row(rows, "5c9e8f0a7d6f2e1c4a3b5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8_v4").kind == "loop"  # 3.x "N", no request stored
    yes = _row(rows, "chat_extract-loopcheck-0_9c3e2f4a1d0f6e5c8a7b9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2_v2")
    assert yes.kind == "loop" and yes.parsed_ok and yes.findings[0].startswith("loop-misread")


def test_bug_lightrag_caches_use_lightrag_parsers(caches: Path) -> None:
    rows = [r for r in audit_cache(caches).rows if r.engine == "lightrag" and r.engine_parser]
    assert sorted(r.engine_parser for r in rows) == ["lightrag<=1.4.7", "lightrag>=1.4.8", "lightrag>=1.4.8"]


def test_bug_graphrag_3x_does_not_split_on_the_completion_delimiter(caches: Path) -> None:
    row = _row(audit_cache(caches).rows, "4b8d7e9f6c5e1d0b3f2a4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7_v4")
    assert (row.engine_relationships, row.engine_weight_fallbacks) == (1, 1)


def test_bug_graphrag_0x_sets_every_weight_to_1(caches: Path) -> None:
    row = _row(audit_cache(caches).rows, "entity_extraction/chat-0a1b2c3d4e5f60718293a4b5c6d7e8f9")
    assert row.engine_relationships == row.engine_weight_fallbacks == 1  # the answer's weight is 8


def test_bug_model_is_read_from_the_entry(caches: Path) -> None:
    rows = audit_cache(caches).rows
    assert {r.model for r in rows if r.engine != "lightrag"} == {
        "gpt-4-turbo-preview", "gpt-4o-2024-08-06", "gpt-4o-mini", "text-embedding-3-small", "text-embedding-3-large",
    }


def test_bug_embeddings_are_entries_not_errors(caches: Path) -> None:
    rows = [r for r in audit_cache(caches).rows if r.kind == "embedding"]
    assert [(r.parsed_ok, r.parsed["vectors"]) for r in rows] == [(True, 2), (True, 1), (True, 2)]


def test_bug_git_is_not_walked(caches: Path) -> None:
    result = audit_cache(caches / "graphrag-2")
    assert result.skipped.reasons["in .git/"] == 3 and all(".git" not in r.id for r in result.rows)
