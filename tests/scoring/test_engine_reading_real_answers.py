"""The harness's model of each engine version's parser (harness.cache_audit.engines, read through
harness.scoring.engine_reading.read_as_engine) keeps as many entities and relationships as the real
version's own parser did (issue 27, done-when #1).

The captures are tests/fixtures/engine_parsing/: hand-written answers (`graphrag-<v>.json`,
`lightrag-<v>.json`), real answers of a local model to each version's own extraction conversation
(`real-smollm2/`) and generated messy answers (`generated/`, scripts/generate_messy_answers.py),
each read by the version's own code (scripts/capture_graphrag_parsing.py,
scripts/capture_lightrag_parsing.py). GraphRAG parses a conversation's answers glued together, so
it is compared per conversation; LightRAG parses each answer on its own, so per answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.model import ExtractedGraph, Round
from harness.scoring.engine_reading import read_as_engine

CAPTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engine_parsing"
REAL = CAPTURES / "real-smollm2"
GENERATED = CAPTURES / "generated"
# the delimiters GraphRAG 0.x-2.x fill their prompt with by default (3.x uses them as constants)
GRAPHRAG_DELIMITERS = {"tuple_delimiter": "<|>", "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"}
LIGHTRAG_NEW_DELIMITERS = {"tuple_delimiter": "<|#|>", "completion_delimiter": "<|COMPLETE|>"}
LIGHTRAG_VERSIONS = ["1.4.6", "1.4.9.11", "1.5.7"]
GRAPHRAG_VERSIONS = ["0.5.0", "0.9.0", "1.2.0", "2.7.0", "3.3.0"]


def _rounds(answers: list[str]) -> list[Round]:
    return [Round(index=i, kind="extract" if i == 0 else "continue", output=a) for i, a in enumerate(answers)]


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _graphrag_mismatches(data: dict[str, Any]) -> list[str]:
    engine = f"graphrag-{data['graphrag']}"
    out = []
    for name, conversation in data["conversations"].items():
        read = read_as_engine(engine, _rounds(conversation["answers"]), ExtractedGraph(), GRAPHRAG_DELIMITERS)
        kept = conversation["kept"]
        want = (len(kept["entities"]), len(kept["relationships"]))
        if (read.entities, read.relationships) != want:
            out.append(f"{name}: harness {read.entities}/{read.relationships}, {engine} {want[0]}/{want[1]}")
    return out


def _lightrag_mismatches(data: dict[str, Any]) -> list[str]:
    engine = f"lightrag-{data['lightrag']}"
    delimiters = LIGHTRAG_NEW_DELIMITERS if data["parser"] == "lightrag>=1.4.8" else GRAPHRAG_DELIMITERS
    out = []
    for name, conversation in data["conversations"].items():
        for index, (answer, kept) in enumerate(zip(conversation["answers"], conversation["kept"], strict=True)):
            read = read_as_engine(engine, _rounds([answer]), ExtractedGraph(), delimiters)
            want = (len(kept["entities"]), len(kept["relationships"]))
            if (read.entities, read.relationships) != want:
                out.append(f"{name}[{index}]: harness {read.entities}/{read.relationships}, {engine} {want[0]}/{want[1]}")
    return out


@pytest.mark.parametrize("version", GRAPHRAG_VERSIONS)
def test_graphrag_real_answers_are_counted_as_the_version_counts_them(version: str) -> None:
    data = _load(REAL / f"graphrag-{version}.json")
    assert data["graphrag"] == version and data["model"] and data["conversations"]
    assert _graphrag_mismatches(data) == []


@pytest.mark.parametrize("version", LIGHTRAG_VERSIONS)
def test_lightrag_real_answers_are_counted_as_the_version_counts_them(version: str) -> None:
    data = _load(REAL / f"lightrag-{version}.json")
    assert data["lightrag"] == version and data["model"] and data["conversations"]
    assert _lightrag_mismatches(data) == []


@pytest.mark.parametrize("version", LIGHTRAG_VERSIONS)
def test_lightrag_handwritten_answers_are_counted_as_the_version_counts_them(version: str) -> None:
    assert _lightrag_mismatches(_load(CAPTURES / f"lightrag-{version}.json")) == []


@pytest.mark.parametrize("version", GRAPHRAG_VERSIONS)
def test_graphrag_handwritten_answers_are_counted_as_the_version_counts_them(version: str) -> None:
    assert _graphrag_mismatches(_load(CAPTURES / f"graphrag-{version}.json")) == []


@pytest.mark.parametrize("version", GRAPHRAG_VERSIONS)
def test_graphrag_generated_messy_answers_are_counted_as_the_version_counts_them(version: str) -> None:
    data = _load(GENERATED / f"graphrag-{version}.json")
    assert len(data["conversations"]) == 60
    assert _graphrag_mismatches(data) == []


def test_lightrag_legacy_generated_messy_answers_are_counted_as_the_version_counts_them() -> None:
    # LightRAG 1.4.8+ is left out: 1.4.9.11 and 1.5.7 mend delimiters and mis-prefixed records
    # differently, and the harness models one parser for both (docs/cache-audit.md)
    data = _load(GENERATED / "lightrag-1.4.6.json")
    assert len(data["conversations"]) == 60
    assert _lightrag_mismatches(data) == []
