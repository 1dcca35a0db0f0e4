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

ROOT = Path(__file__).parents[1] / "fixtures" / "engine_parsing"
# hand-written conversations, a local model's real answers (real-smollm2/), generated messy answers (generated/)
CAPTURES = sorted(ROOT.rglob("lightrag-*.json"))


def comparable(graph: dict[str, list[dict[str, Any]]], descriptions: bool = True) -> dict[str, list[Any]]:
    """Entities by name; relationships by their unordered pair (the graphml's orientation is the
    node order of the networkx graph, not LightRAG's). A node added for an edge's endpoint
    (`UNKNOWN`) takes the description of whichever of its edges' concurrent tasks added it last:
    a race, left out. `descriptions=False`: none compared (LightRAG summarised them with an LLM)."""
    def parts(item: dict[str, Any]) -> list[str]:
        return sorted(item["description"]) if descriptions else []

    return {
        "entities": sorted((e["name"], e["type"], [] if e["type"] == "UNKNOWN" else parts(e)) for e in graph["entities"]),
        "relationships": sorted((sorted((r["source"], r["target"])), parts(r), r["keywords"], r["weight"])
                                for r in graph["relationships"]),
    }


def as_captured(graph: EngineGraph) -> dict[str, list[dict[str, Any]]]:
    return {
        "entities": [{"name": e.name, "type": e.type, "description": e.descriptions} for e in graph.entities],
        "relationships": [{"source": r.source, "target": r.target, "description": r.descriptions,
                           "keywords": ",".join(r.keywords), "weight": r.weight} for r in graph.relationships],
    }


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: str(p.relative_to(ROOT).with_suffix("")))
def test_the_graph_is_the_real_releases(capture: Path) -> None:
    data = json.loads(capture.read_text(encoding="utf-8"))
    parser = parser_of_release(tuple(int(p) for p in data["lightrag"].split(".")))
    assert len(data["conversations"]) >= 3
    for name, conversation in data["conversations"].items():
        described = not conversation["graph"]["summarised"]  # an LLM summary the model does not make
        model = lightrag_graph(conversation["answers"], parser)
        assert comparable(as_captured(model), described) == comparable(conversation["graph"], described), name


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: str(p.relative_to(ROOT).with_suffix("")))
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
    """1.5 reads an entity-tagged record of five fields as a relation; 1.4.9.11 drops it."""
    text = "entity<|#|>A<|#|>person<|#|>a\nentity<|#|>A<|#|>B<|#|>knows<|#|>A knows B\n"
    old, new = lightrag_graph([text], LINES), lightrag_graph([text], LINES_15)
    assert old.relationships == [] and old.reading.lost == {"entity with 5 fields (LightRAG needs 4)": 1}
    assert [(r.source, r.target) for r in new.relationships] == [("A", "B")] and new.reading.lost == {}


def test_lightrag_1_4_9_glean_once_and_fail_a_document_with_a_relation_without_description() -> None:
    """Captured in generated/: an answer after the one gleaning is never asked for; a relation whose
    descriptions are all empty makes 1.4.9.11's merge raise, and the document keeps nothing."""
    three = ["entity<|#|>A<|#|>person<|#|>a\n", "entity<|#|>B<|#|>person<|#|>b\n", "entity<|#|>C<|#|>person<|#|>c\n"]
    assert sorted(e.name for e in lightrag_graph(three, LINES).entities) == ["A", "B"]
    empty = ["entity<|#|>A<|#|>person<|#|>a\nrelation<|#|>A<|#|>B<|#|>k<|#|><br>\n"]
    failed = lightrag_graph(empty, LINES)
    assert (failed.entities, failed.relationships) == ([], [])
    assert sum(failed.reading.lost.values()) == 2
    assert [e.name for e in lightrag_graph(empty, LINES_15).entities] == ["A"]  # 1.5 drops the relation instead
    assert lightrag_graph(empty, LINES_15).reading.lost == {"relation without a description": 1}
