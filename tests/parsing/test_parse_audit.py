"""audit_cache over hand-made GraphRAG and LightRAG caches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.parsing import audit_cache

EXTRACT = '("entity"<|>A<|>person<|>x)##\n("relationship"<|>A<|>B<|>y<|>5)\n<|COMPLETE|>'


def test_graphrag_cache_folder(tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "entity_extraction"
    folder.mkdir(parents=True)
    (folder / "chat-1").write_text(json.dumps({"result": EXTRACT, "input": "prompt"}))
    # Unquoted tags: GraphRAG's own parser keeps nothing from this one.
    (folder / "chat-2").write_text(json.dumps({"result": {"choices": [{"message": {"content": "(entity<|>C<|>geo<|>z)"}}]}}))
    (folder / "extract-continuation-0-chat-3").write_text(json.dumps({"return": EXTRACT}))
    reports = tmp_path / "cache" / "community_reporting"
    reports.mkdir()
    (reports / "chat-4").write_text(json.dumps({"result": json.dumps({"title": "T", "summary": "S", "rating": 2,
                                                                       "rating_explanation": "r", "findings": []})}))
    (tmp_path / "broken").write_bytes(b"\xff\xfe")
    rows = {r["id"]: r for r in audit_cache(tmp_path)}
    one = rows["cache/entity_extraction/chat-1"]
    assert (one["call"], one["entities"], one["relationships"], one["naive_entities"], one["naive_relationships"]) == (
        "extract", 1, 1, 1, 1,
    )
    two = rows["cache/entity_extraction/chat-2"]
    assert (two["entities"], two["naive_entities"]) == (1, 0)
    assert rows["cache/entity_extraction/extract-continuation-0-chat-3"]["call"] == "continuation"
    four = rows["cache/community_reporting/chat-4"]
    assert four["call"] == "community_report" and four["report"] is True
    assert "report-findings-count" in four["issues"]
    assert "error" in rows["broken"]
    json.dumps(list(rows.values()))


@pytest.mark.parametrize("nested", [False, True])
def test_lightrag_kv_store(tmp_path: Path, nested: bool) -> None:
    entries = {
        "h1": {"return": "entity<|#|>A<|#|>person<|#|>x\n<|COMPLETE|>", "cache_type": "extract", "model": "m"},
        "h2": {"return": "plain answer", "cache_type": "query"},
    }
    data = {"default": entries} if nested else entries
    path = tmp_path / "kv_store_llm_response_cache.json"
    path.write_text(json.dumps(data))
    rows = list(audit_cache(path))
    assert len(rows) == 2
    first = rows[0]
    assert first["id"].endswith("h1") and first["format"] == "lightrag" and first["entities"] == 1
    assert first["model"] == "m" and first["completion"] == "present"


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        list(audit_cache(tmp_path / "nope"))
