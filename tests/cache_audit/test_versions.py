"""The version a cache folder was written by, where one entry cannot say (issue 27, item 9)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cache_audit import audit_cache
from harness.cache_audit.entry import CacheEntry
from harness.cache_audit.versions import graphrag_0x_notes

RELATIONSHIP = '("relationship"<|>A<|>B<|>A knows B<|>8)##\n<|COMPLETE|>'


def _entry(entry_id: str, evidence: str | None = None) -> CacheEntry:
    return CacheEntry(id=entry_id, engine="graphrag-0.x", layout="t", answer="x", version_evidence=evidence)


def test_what_the_cache_proves_decides() -> None:
    notes = graphrag_0x_notes([_entry("a/cache/entity_extraction/chat-1"),
                               _entry("a/cache/entity_extraction/chat-2", "0.1-0.2.0 (no history stored)")])
    assert list(notes) == ["a/cache"]
    assert "0.1-0.2.0" in notes["a/cache"] and "--engine" not in notes["a/cache"]


def test_an_undecided_cache_prints_the_assumption_and_the_option() -> None:
    notes = graphrag_0x_notes([_entry("b/cache/entity_extraction/chat-1")])
    assert "assumed 0.1-0.3.1" in notes["b/cache"] and "--engine graphrag-1.x" in notes["b/cache"]


def test_the_audit_prints_its_assumption_and_the_option_changes_the_weights(tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "entity_extraction"
    folder.mkdir(parents=True)
    (folder / "chat-0a").write_text(json.dumps({"result": RELATIONSHIP, "input": "p", "parameters": {"model": "m"},
                                                "history": None}))
    assumed = audit_cache(tmp_path)
    assert assumed.notes == [f"{tmp_path / 'cache'}: {graphrag_0x_notes([_entry('cache/entity_extraction/chat-0a')])['cache']}"]
    assert assumed.rows[0].engine_weight_fallbacks == 1  # 0.1-0.3.1: every weight 1.0
    parsed = audit_cache(tmp_path, engine="graphrag-1.x")  # the option the note names: 0.3.2-0.5.x
    assert parsed.notes == [] and parsed.rows[0].engine_weight_fallbacks == 0


def test_no_note_for_other_versions(caches: Path) -> None:
    assert audit_cache(caches / "graphrag-3").notes == []
