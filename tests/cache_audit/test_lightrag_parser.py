"""The harness's model of LightRAG's parser builds the graph each real release stored for the same
conversations (tests/fixtures/engine_parsing/lightrag-*.json, written by
scripts/capture_lightrag_parsing.py through `LightRAG.ainsert` with a scripted LLM): every entity
with its type and description parts, every relationship (an unordered pair: LightRAG's graph is
undirected) with its description parts, keywords and weight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cache_audit.engine_graph import EngineGraph
from harness.cache_audit.lightrag_parser import LEGACY, LINES, LINES_15, lightrag_graph, parser_of_release

CAPTURES = sorted((Path(__file__).parents[1] / "fixtures" / "engine_parsing").glob("lightrag-*.json"))


def comparable(graph: dict[str, list[dict[str, Any]]]) -> dict[str, list[Any]]:
    """Entities by name; relationships by their unordered pair (the graphml's orientation is the
    node order of the networkx graph, not LightRAG's)."""
    return {
        "entities": sorted((e["name"], e["type"], sorted(e["description"])) for e in graph["entities"]),
        "relationships": sorted((sorted((r["source"], r["target"])), sorted(r["description"]), r["keywords"], r["weight"])
                                for r in graph["relationships"]),
    }


def as_captured(graph: EngineGraph) -> dict[str, list[dict[str, Any]]]:
    return {
        "entities": [{"name": e.name, "type": e.type, "description": e.descriptions} for e in graph.entities],
        "relationships": [{"source": r.source, "target": r.target, "description": r.descriptions,
                           "keywords": ",".join(r.keywords), "weight": r.weight} for r in graph.relationships],
    }


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.stem)
def test_the_graph_is_the_real_releases(capture: Path) -> None:
    data = json.loads(capture.read_text(encoding="utf-8"))
    parser = parser_of_release(tuple(int(p) for p in data["lightrag"].split(".")))
    assert len(data["conversations"]) >= 3
    for name, conversation in data["conversations"].items():
        assert not conversation["graph"]["summarised"], name  # no LLM summary the model could not make
        model = lightrag_graph(conversation["answers"], parser)
        assert comparable(as_captured(model)) == comparable(conversation["graph"]), name


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.stem)
def test_each_answer_keeps_the_records_the_real_release_kept(capture: Path) -> None:
    """Before any merging: the records LightRAG's own handlers keep from each answer alone."""
    data = json.loads(capture.read_text(encoding="utf-8"))
    parser = parser_of_release(tuple(int(p) for p in data["lightrag"].split(".")))
    assert data["parser"] == parser
    for name, conversation in data["conversations"].items():
        for answer, kept in zip(conversation["answers"], conversation["kept"], strict=True):
            reading = lightrag_graph([answer], parser).reading
            assert (reading.entities, reading.relationships) == (len(kept["entities"]), len(kept["relationships"])), name


def test_each_release_reads_with_its_own_parser() -> None:
    assert [parser_of_release(v) for v in [(1, 3, 9), (1, 4, 6), (1, 4, 8), (1, 4, 9, 11), (1, 5, 7)]] == [
        LEGACY, LEGACY, LINES, LINES, LINES_15]


def test_releases_differ_where_their_code_does() -> None:
    """1.5 reads an entity-tagged record of five fields as a relation and needs a relation's
    description (`<br>` is cleaned away); 1.4.9.11 drops the first and keeps the second."""
    text = "entity<|#|>A<|#|>person<|#|>a\nentity<|#|>A<|#|>B<|#|>knows<|#|>A knows B\nrelation<|#|>A<|#|>C<|#|>k<|#|><br>\n"
    old, new = lightrag_graph([text], LINES), lightrag_graph([text], LINES_15)
    assert sorted((r.source, r.target) for r in old.relationships) == [("A", "C")]
    assert sorted((r.source, r.target) for r in new.relationships) == [("A", "B")]
    assert new.reading.lost == {"relation without a description": 1}
    assert old.reading.lost == {"entity with 5 fields (LightRAG needs 4)": 1}
