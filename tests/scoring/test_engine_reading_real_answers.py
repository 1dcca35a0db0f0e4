"""What a run scores by default for a suite naming its engine is the graph the real version built
(issue 27, done-when #1): per conversation, the entities and relationships of the harness's
reading (harness.scoring.engine_reading.read_as_engine, through the models in
harness/cache_audit/) are, in number and by name, those of the version's own graph; and what the
version's parser keeps before merging (the audit's counts) is what it kept.

The captures are tests/fixtures/engine_parsing/: hand-written answers (`graphrag-<v>.json`,
`lightrag-<v>.json`), real answers of a local model to each version's own extraction conversation
(`real-smollm2/`) and generated messy answers (`generated/`, scripts/generate_messy_answers.py),
each read by the version's own code (scripts/capture_graphrag_parsing.py,
scripts/capture_lightrag_parsing.py). GraphRAG parses a conversation's answers glued together;
LightRAG parses each answer on its own and merges them, so its records are compared per answer
and its graph per conversation (undirected: by unordered pair).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cache_audit.graphrag_parser import graphrag_graph
from harness.cache_audit.lightrag_parser import lightrag_graph, parser_of_release
from harness.model import ExtractedGraph, Round
from harness.scoring.engine_reading import read_as_engine
from harness.formats.base import Delimiters

CAPTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engine_parsing"
REAL = CAPTURES / "real-smollm2"
GENERATED = CAPTURES / "generated"
# the delimiters GraphRAG 0.x-2.x fill their prompt with by default (3.x and LightRAG use theirs as constants)
GRAPHRAG_DELIMITERS = Delimiters(tuple="<|>", record="##", completion="<|COMPLETE|>")
LIGHTRAG_VERSIONS = ["1.4.6", "1.4.9.11", "1.5.7"]
GRAPHRAG_VERSIONS = ["0.5.0", "0.9.0", "1.2.0", "2.7.0", "3.3.0"]


def _rounds(answers: list[str]) -> list[Round]:
    return [Round(index=i, kind="extract" if i == 0 else "continue", output=a) for i, a in enumerate(answers)]


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _graphrag_mismatches(data: dict[str, Any]) -> list[str]:
    engine = f"graphrag-{data['graphrag']}"
    out = []
    for name, conversation in data["conversations"].items():
        view = read_as_engine(engine, _rounds(conversation["answers"]), ExtractedGraph(), GRAPHRAG_DELIMITERS)
        real = conversation["graph"]
        scored = ([e.name for e in view.graph.entities], [(r.source, r.target) for r in view.graph.relationships])
        built = ([e["name"] for e in real["entities"]], [(r["source"], r["target"]) for r in real["relationships"]])
        if (view.read.entities, view.read.relationships) != (len(built[0]), len(built[1])) or scored != built:
            out.append(f"{name}: scored {scored}, {engine} built {built}")
        reading = graphrag_graph("".join(conversation["answers"]), _release(data["graphrag"])).reading
        kept = (len(conversation["kept"]["entities"]), len(conversation["kept"]["relationships"]))
        if (reading.entities, reading.relationships) != kept:
            out.append(f"{name}: the model's parser keeps {reading.entities}/{reading.relationships}, {engine} {kept}")
    return out


def _lightrag_mismatches(data: dict[str, Any]) -> list[str]:
    engine = f"lightrag-{data['lightrag']}"
    parser = parser_of_release(_release(data["lightrag"]))
    out = []
    for name, conversation in data["conversations"].items():
        view = read_as_engine(engine, _rounds(conversation["answers"]), ExtractedGraph(), Delimiters())  # the engine's defaults
        real = conversation["graph"]
        scored = (sorted(e.name for e in view.graph.entities),
                  sorted(tuple(sorted((r.source, r.target))) for r in view.graph.relationships))
        built = (sorted(e["name"] for e in real["entities"]),
                 sorted(tuple(sorted((r["source"], r["target"]))) for r in real["relationships"]))
        if (view.read.entities, view.read.relationships) != (len(built[0]), len(built[1])) or scored != built:
            out.append(f"{name}: scored {scored}, {engine} built {built}")
        for index, (answer, kept) in enumerate(zip(conversation["answers"], conversation["kept"], strict=True)):
            reading = lightrag_graph([answer], parser).reading
            want = (len(kept["entities"]), len(kept["relationships"]))
            if (reading.entities, reading.relationships) != want:
                out.append(f"{name}[{index}]: the model's parser keeps {reading.entities}/{reading.relationships}, "
                           f"{engine} {want[0]}/{want[1]}")
    return out


@pytest.mark.parametrize("version", GRAPHRAG_VERSIONS)
def test_graphrag_real_answers_are_scored_as_the_version_builds_them(version: str) -> None:
    data = _load(REAL / f"graphrag-{version}.json")
    assert data["graphrag"] == version and data["model"] and data["conversations"]
    assert _graphrag_mismatches(data) == []


@pytest.mark.parametrize("version", LIGHTRAG_VERSIONS)
def test_lightrag_real_answers_are_scored_as_the_version_builds_them(version: str) -> None:
    data = _load(REAL / f"lightrag-{version}.json")
    assert data["lightrag"] == version and data["model"] and data["conversations"]
    assert _lightrag_mismatches(data) == []


@pytest.mark.parametrize("version", LIGHTRAG_VERSIONS)
def test_lightrag_handwritten_answers_are_scored_as_the_version_builds_them(version: str) -> None:
    assert _lightrag_mismatches(_load(CAPTURES / f"lightrag-{version}.json")) == []


@pytest.mark.parametrize("version", ["0.3.0", "0.4.1", *GRAPHRAG_VERSIONS])
def test_graphrag_handwritten_answers_are_scored_as_the_version_builds_them(version: str) -> None:
    assert _graphrag_mismatches(_load(CAPTURES / f"graphrag-{version}.json")) == []


@pytest.mark.parametrize("version", ["0.3.0", "0.4.1", *GRAPHRAG_VERSIONS])
def test_graphrag_generated_messy_answers_are_scored_as_the_version_builds_them(version: str) -> None:
    data = _load(GENERATED / f"graphrag-{version}.json")
    assert len(data["conversations"]) == 60
    assert _graphrag_mismatches(data) == []


@pytest.mark.parametrize("version", LIGHTRAG_VERSIONS)
def test_lightrag_generated_messy_answers_are_scored_as_the_version_builds_them(version: str) -> None:
    data = _load(GENERATED / f"lightrag-{version}.json")
    assert len(data["conversations"]) == 60
    assert _lightrag_mismatches(data) == []
