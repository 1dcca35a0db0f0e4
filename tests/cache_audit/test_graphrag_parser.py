"""The harness's model of GraphRAG's parser builds the graph each real version built from the same
conversations (tests/fixtures/engine_parsing/graphrag-*.json, written by
scripts/capture_graphrag_parsing.py with that version's own `_process_result(s)` and merge
functions): every entity and relationship, in the version's order, named, typed, described and
weighted as it does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cache_audit.engine_graph import EngineGraph
from harness.cache_audit.graphrag_parser import family, graphrag_graph, graphrag_reading

ROOT = Path(__file__).parents[1] / "fixtures" / "engine_parsing"
# hand-written conversations, a local model's real answers (real-smollm2/), generated messy answers (generated/)
CAPTURES = sorted(ROOT.rglob("graphrag-*.json"))


def _release(data: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(p) for p in data["graphrag"].split("."))


def as_captured(graph: EngineGraph) -> dict[str, list[dict[str, Any]]]:
    """The model's graph in the captures' shape (description parts sorted: the engine's order is a set's)."""
    return {
        "entities": [{"name": e.name, "type": e.type, "description": sorted(e.descriptions)} for e in graph.entities],
        "relationships": [{"source": r.source, "target": r.target, "description": sorted(r.descriptions),
                           "weight": r.weight} for r in graph.relationships],
    }


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: str(p.relative_to(ROOT).with_suffix("")))
def test_the_graph_is_the_real_versions(capture: Path) -> None:
    data = json.loads(capture.read_text(encoding="utf-8"))
    assert len(data["conversations"]) >= 4
    for name, conversation in data["conversations"].items():
        graph = graphrag_graph("".join(conversation["answers"]), _release(data))
        assert as_captured(graph) == conversation["graph"], name


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: str(p.relative_to(ROOT).with_suffix("")))
def test_the_reading_keeps_what_the_real_parser_kept(capture: Path) -> None:
    """The audit's counts: 3.x a row per record `_process_result` keeps; 0.x-2.x the nodes an
    entity record gave a type and the graph's edges (a version that raised keeps nothing). The
    audit knows only the parser family: from 0.5 on that is exact."""
    data = json.loads(capture.read_text(encoding="utf-8"))
    release = _release(data)
    for name, conversation in data["conversations"].items():
        text, kept = "".join(conversation["answers"]), conversation["kept"]
        want = (len(kept["entities"]), len(kept["relationships"]))
        reading = graphrag_graph(text, release).reading
        assert (reading.entities, reading.relationships) == want, name
        if release >= (0, 5, 0):
            reading = graphrag_reading(text, family(release))
            assert (reading.entities, reading.relationships) == want, name


def test_versions_differ_where_their_code_does() -> None:
    """One answer, four releases: 0.x-2.x add a node for a relationship's endpoint and merge
    both directions; 3.0-3.0.5 keep a relationship to no entity; 3.0.6 drops it; 0.3.1 sets the
    weight to 1.0 and 0.4.1 keeps a name's first type."""
    text = ('("entity"<|>A<|>PERSON<|>a)##("entity"<|>A<|>GEO<|>a2)##("relationship"<|>A<|>B<|>ab<|>2)##'
            '("relationship"<|>B<|>A<|>ba<|>3)<|COMPLETE|>')
    two = graphrag_graph(text, (2, 7, 0))
    assert [(e.name, e.type, e.record) for e in two.entities] == [("A", "GEO", True), ("B", "", False)]
    # both directions are one edge: 2 + 1.0 (the last field, '3)<|COMPLETE|>', falls back to 1.0)
    assert [(r.source, r.target, r.weight) for r in two.relationships] == [("A", "B", 3.0)]
    assert [(e.name, e.type) for e in graphrag_graph(text, (0, 4, 1)).entities] == [("A", "PERSON"), ("B", "")]
    assert [r.weight for r in graphrag_graph(text, (0, 3, 1)).relationships] == [2.0]  # 1.0 + 1.0
    three = graphrag_graph(text, (3, 0, 5))
    assert [(e.name, e.type) for e in three.entities] == [("A", "PERSON"), ("A", "GEO")]
    assert [(r.source, r.target, r.weight) for r in three.relationships] == [("A", "B", 2.0), ("B", "A", 1.0)]
    orphan_filtered = graphrag_graph(text, (3, 0, 6))
    assert orphan_filtered.relationships == []
    assert orphan_filtered.reading.lost == {
        "relationship naming an entity no entity record names (filter_orphan_relationships)": 2}


def test_the_reading_counts_typed_names_and_pairs_before_3x_and_rows_after() -> None:
    text = '("entity"<|>A<|>PERSON<|>a)##("entity"<|>a<|>PERSON<|>b)##("relationship"<|>A<|>B<|>ab<|>2)'
    reading = graphrag_reading(text, "graphrag-2.x")
    assert (reading.entities, reading.relationships) == (1, 1)
    assert reading.lost == {"entity named again (one node of the engine's graph)": 1}
    assert (graphrag_reading(text, "graphrag-3.x").entities, graphrag_reading(text, "graphrag-3.x").relationships) == (2, 1)
    assert len(graphrag_graph(text, (2, 7, 0)).entities) == 2  # A (both records), B (the endpoint)


def test_up_to_0_4_1_a_name_written_again_without_a_type_raises() -> None:
    """KeyError 'entity_type' (captured from 0.3.0 and 0.4.1 in generated/): the text unit keeps nothing."""
    text = '("entity"<|>A<|>PERSON<|>a)##("entity"<|>A<|><|>again)##("relationship"<|>A<|>B<|>ab<|>2)'
    broken = graphrag_graph(text, (0, 4, 1))
    assert (broken.entities, broken.relationships) == ([], [])
    assert sum(broken.reading.lost.values()) == 3
    retyped_first = '("entity"<|>A<|>PERSON<|>a)##("entity"<|>A<|>GEO<|>b)##("entity"<|>A<|><|>c)'
    assert [(e.name, e.type) for e in graphrag_graph(retyped_first, (0, 4, 1)).entities] == [("A", "PERSON")]
    assert [(e.name, e.type) for e in graphrag_graph(text, (0, 5, 0)).entities] == [("A", "PERSON"), ("B", "")]
