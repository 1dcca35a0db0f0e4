"""Chunks counted as the engine cuts them: the counting rule against the importers' chunkers."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.estimate.corpus import (Chunker, chunk_tokens, chunker_for, corpus_from_counts, corpus_from_folder,
                                     windows)
from harness.importers.graphrag_chunks import _windows
from harness.importers.lightrag_workdir import chunk_like_lightrag


@pytest.mark.parametrize("stops_at_end", [False, True])
def test_windows_counts_what_the_graphrag_chunker_cuts(stops_at_end: bool) -> None:
    for size, overlap in ((1200, 100), (300, 50), (10, 9), (5, 0)):
        for tokens in (1, size - 1, size, size + 1, 2 * size - overlap, 7 * size + 3):
            cut = _windows(list(range(tokens)), size, overlap, stop_at_end=stops_at_end)
            assert windows(tokens, size, overlap, stops_at_end=stops_at_end) == (len(cut), sum(map(len, cut)))
    assert windows(0, 1200, 100, stops_at_end=stops_at_end) == (0, 0)


def test_the_release_decides_the_tail_window() -> None:
    # 2,300 tokens: 1.x cuts 0, 1100, 2200 (a tail inside the overlap); 3.x stops at the window reaching the end
    assert corpus_from_counts(1, 2300, chunker_for("graphrag-1.2.0")).chunks == 3
    assert corpus_from_counts(1, 2300, chunker_for("graphrag-3.1.2")).chunks == 2
    assert corpus_from_counts(1, 2300, chunker_for("lightrag-1.4.9.11")).chunks == 3


def test_tokens_are_spread_over_the_documents() -> None:
    corpus = corpus_from_counts(4, 10_003, chunker_for("graphrag-3.1.2"))
    # three documents of 2,501 tokens and one of 2,500, each cut on its own: 3 windows each
    assert (corpus.chunks, corpus.documents) == (12, 4)
    assert corpus.tokens == 3 * (1200 + 1200 + 301) + (1200 + 1200 + 300)
    with pytest.raises(InputError, match="more documents than tokens"):
        corpus_from_counts(5, 4, chunker_for(None))


def test_a_folder_is_cut_by_the_suites_engine(tmp_path: Path) -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 400
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "b.md").write_text("short note", encoding="utf-8")
    (tmp_path / "skip.csv").write_text("x,y", encoding="utf-8")
    chunker = chunker_for("graphrag-1.2.0")
    corpus = corpus_from_folder(tmp_path, chunker)
    long_doc = windows(chunk_tokens(text, "cl100k_base"), 1200, 100, stops_at_end=False)
    assert (corpus.documents, corpus.chunks, corpus.encoding) == (2, long_doc[0] + 1, "cl100k_base")
    light = corpus_from_folder(tmp_path, chunker_for("lightrag-1.4.6"))
    assert light.chunks == len(chunk_like_lightrag([("a.txt", text), ("b.md", "short note")], 1200, 100))


def test_a_graphrag_project_gives_its_own_text_units(tmp_path: Path) -> None:
    (tmp_path / "input").mkdir()
    (tmp_path / "input" / "doc.txt").write_text("Acme hired Bob. " * 600, encoding="utf-8")
    (tmp_path / "settings.yaml").write_text("llm:\n  model: gpt-4o-mini\nchunks:\n  size: 300\n  overlap: 50\n",
                                            encoding="utf-8")
    corpus = corpus_from_folder(tmp_path, chunker_for("graphrag-3.1.2"))  # the project's settings win
    tokens = chunk_tokens("Acme hired Bob. " * 600, "cl100k_base")
    assert corpus.project == tmp_path and corpus.chunks == windows(tokens, 300, 50, stops_at_end=False)[0]


def test_inputs_it_refuses(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        corpus_from_folder(tmp_path / "nowhere", chunker_for(None))
    with pytest.raises(InputError, match="no .txt or .md document"):
        corpus_from_folder(tmp_path, chunker_for(None))
    with pytest.raises(InputError, match="GraphRAG or LightRAG"):
        chunker_for("llamaindex")
    assert isinstance(chunker_for(None), Chunker) and "newest assumed" in chunker_for(None).describe
