"""What discovery walks, reads and skips."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cache_audit.discovery import Skipped, discover


def test_a_single_kv_store_file(tmp_path: Path) -> None:
    store = tmp_path / "kv_store_llm_response_cache.json"
    store.write_text(json.dumps({"default:extract:h": {"return": "x", "cache_type": "extract"}}))
    skipped = Skipped()
    assert [e.id for e in discover(store, skipped)] == ["kv_store_llm_response_cache.json#default:extract:h"]
    assert skipped.line() is None


def test_skips_are_counted_by_reason(tmp_path: Path) -> None:
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib" / "a.json").write_text('{"result": "x"}')
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "notes.txt").write_text("not json")
    (tmp_path / "empty_kv_store_llm_response_cache.json").write_text("{}")
    (tmp_path / "chat-0123456789abcdef").write_text('{"result": "an answer"}')
    skipped = Skipped()
    assert [e.id for e in discover(tmp_path, skipped)] == ["chat-0123456789abcdef"]
    # {} is JSON but no entry; "caf\xe9" is not UTF-8 -> binary
    assert dict(skipped.reasons) == {"in .venv/": 1, "hidden files": 1, "binary": 1, "not JSON": 1,
                                     "JSON that is no cache entry": 1}
    assert skipped.line() == ("skipped 5 file(s): 1 JSON that is no cache entry, 1 binary, 1 hidden files, "
                              "1 in .venv/, 1 not JSON")


def test_an_empty_lightrag_store_is_empty_not_no_cache_entry(tmp_path: Path) -> None:
    """Issue 27, item 9: LightRAG writes `{}` before its first cached call."""
    (tmp_path / "kv_store_llm_response_cache.json").write_text("{}")
    skipped = Skipped()
    assert list(discover(tmp_path, skipped)) == []
    assert skipped.empty_stores == ["kv_store_llm_response_cache.json"]
    assert "JSON that is no cache entry" not in skipped.reasons


def test_a_graphrag_0x_entry_says_what_it_proves_about_its_version(tmp_path: Path) -> None:
    """No `history` stored: 0.1-0.2.0; non-ASCII stored as escapes: before 0.3.0 (ensure_ascii
    became False in 0.3.0); neither: nothing proven."""
    folder = tmp_path / "cache" / "entity_extraction"
    folder.mkdir(parents=True)
    (folder / "chat-01").write_text(json.dumps({"result": "x", "input": "p", "parameters": {}}))
    (folder / "chat-02").write_text(json.dumps({"result": "東京", "input": "p", "parameters": {}, "history": None}))
    (folder / "chat-03").write_text(json.dumps({"result": "東京", "input": "p", "parameters": {}, "history": None},
                                               ensure_ascii=False))
    (folder / "chat-04").write_text(json.dumps({"result": "x", "input": "p", "parameters": {}, "history": None}))
    found = {e.id.rsplit("/", 1)[-1]: e.version_evidence for e in discover(tmp_path, Skipped())}
    assert found == {"chat-01": "0.1-0.2.0 (no history stored)", "chat-02": "0.1-0.2.x (non-ASCII text stored escaped)",
                     "chat-03": None, "chat-04": None}


def test_files_that_are_no_cache_entry_are_skipped_unread(tmp_path: Path) -> None:
    """Issue 28 items 11 and 12: a FIFO in a cache folder hung the audit, a link to /dev/zero read
    without end, and a 5,000-digit number was a traceback; each is one count in the skipped line."""
    import os
    import threading

    from tests.support.battery import plant_special

    (tmp_path / "chat-0123456789abcdef").write_text('{"result": "an answer"}')
    for name, kind in (("chat-fifo", "fifo"), ("chat-zero", "dev-zero"), ("chat-socket", "socket")):
        plant_special(tmp_path / name, kind)
    (tmp_path / "chat-big").write_text('{"result": "x", "n": ' + "9" * 5000 + "}")
    (tmp_path / "chat-deep").write_text('{"result": ' + "[" * 100_000 + "]" * 100_000 + "}")
    writer = threading.Thread(target=lambda: os.close(os.open(tmp_path / "chat-fifo", os.O_WRONLY)), daemon=True)
    writer.start()
    try:
        skipped = Skipped()
        assert [e.id for e in discover(tmp_path, skipped)] == ["chat-0123456789abcdef"]
    finally:
        if writer.is_alive():
            os.close(os.open(tmp_path / "chat-fifo", os.O_RDONLY | os.O_NONBLOCK))
        writer.join(5)
    assert dict(skipped.reasons) == {"not a regular file": 3, "JSON past the harness's bounds (nesting, number length)": 2}
