"""The LlamaIndex importer's SentenceSplitter cuts documents into the chunks llama-index-core
0.14.25 cut them into, byte for byte (tests/fixtures/engine_captures/llamaindex-0.14.25/chunks.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.importers.llamaindex_chunks import (
    CHUNKING_REGEX,
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    PARAGRAPH_SEPARATOR,
    SentenceSplitter,
)

CAPTURE = Path(__file__).parents[1] / "fixtures" / "engine_captures" / "llamaindex-0.14.25"
CHUNKS = json.loads((CAPTURE / "chunks.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", CHUNKS["chunks"], ids=lambda r: f"{r['document']}-{r['chunk_size']}")
def test_chunks_equal_llamaindex(row: dict) -> None:
    text = (CAPTURE / "docs" / row["document"]).read_text(encoding="utf-8")
    assert SentenceSplitter(row["chunk_size"], row["chunk_overlap"]).split_text(text) == row["chunks"]


def test_defaults_are_llamaindex_defaults() -> None:
    defaults = CHUNKS["SentenceSplitter defaults"]
    assert (DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP) == (defaults["chunk_size"], defaults["chunk_overlap"])
    assert (PARAGRAPH_SEPARATOR, CHUNKING_REGEX) == (defaults["paragraph_separator"], defaults["secondary_chunking_regex"])


def test_overlap_larger_than_size_is_refused() -> None:
    with pytest.raises(ValueError):
        SentenceSplitter(10, 20)
