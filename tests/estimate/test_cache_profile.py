"""A cache's calls per kind and its chunks, read from small caches in GraphRAG's own layouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.estimate.cache_profile import read_profile
from tests.support.graphrag_cache_files import write_fnllm_cache, write_v3_cache


def test_kinds_tokens_and_chunks_of_a_1x_cache(tmp_path: Path) -> None:
    written = write_fnllm_cache(tmp_path, chunks=4, summaries=6, reports=2)
    profile = read_profile(tmp_path, model="gpt-4o-mini", corpus_chunks=None)
    assert profile.model == "gpt-4o-mini-2024-07-18" and profile.model_note is None  # the dated snapshot is the model
    assert (profile.chunks, profile.chunks_source) == (4, "4 distinct extraction requests")
    calls = {kind: got.calls for kind, got in profile.kinds.items()}
    assert calls == {"extraction": 4, "continuation": 4, "loop": 4, "summary": 6, "report": 2}
    for kind, (prompt, completion) in written.items():
        assert (sum(profile.kinds[kind].prompt), sum(profile.kinds[kind].completion)) == (prompt, completion)
    extraction = profile.extraction
    assert (extraction.calls, extraction.tokens) == (12, sum(sum(written[k]) for k in ("extraction", "continuation", "loop")))


def test_the_variants_model_is_read_else_the_most_extracting_one(tmp_path: Path) -> None:
    write_fnllm_cache(tmp_path / "a", model="gpt-4o-2024-08-06", chunks=2)
    write_fnllm_cache(tmp_path / "b", model="gpt-4o-mini-2024-07-18", chunks=3)
    mini = read_profile(tmp_path, model="gpt-4o-mini", corpus_chunks=None)
    assert mini.model == "gpt-4o-mini-2024-07-18" and mini.chunks == 3 and "2 models" in (mini.model_note or "")
    other = read_profile(tmp_path, model="llama3", corpus_chunks=None)
    assert other.model == "gpt-4o-mini-2024-07-18" and "most extraction calls" in (other.model_note or "")


def test_a_cache_without_requests_counts_its_projects_chunks(tmp_path: Path) -> None:
    write_v3_cache(tmp_path, calls=6, seconds=2.0)
    unknown = read_profile(tmp_path, model="mistral-nemo", corpus_chunks=None)
    assert unknown.chunks is None and "stores no request" in unknown.chunks_source
    known = read_profile(tmp_path, model="mistral-nemo", corpus_chunks=3)
    assert known.chunks == 3 and known.kinds["extraction"].latency == [2.0] * 6


def test_caches_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        read_profile(tmp_path / "none", model=None, corpus_chunks=None)
    write_fnllm_cache(tmp_path / "plain", usage=False)
    with pytest.raises(InputError, match="store no token usage"):
        read_profile(tmp_path / "plain", model=None, corpus_chunks=None)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no extraction call"):
        read_profile(tmp_path / "empty", model=None, corpus_chunks=None)
