"""Which names and chunks of B are A's (harness/graph_diff/match.py)."""

from __future__ import annotations

from harness.graph_diff.diff import diff_graphs
from harness.graph_diff.graph import Graph, GraphEntity, GraphRelationship
from harness.graph_diff.match import align_chunks, match


def _graph(chunk_text: dict[str, str], *entities: GraphEntity) -> Graph:
    graph = Graph(label="g", kind="graphrag", source="test", chunk_text=chunk_text)
    for entity in entities:
        graph.add_entity(entity)
    return graph


def test_chunks_of_one_text_under_other_ids_are_one_chunk() -> None:
    """GraphRAG 3.x ids a text unit by its text alone, 2.x with its document: an upgrade renames
    every chunk, and the per-chunk figures must still line up."""
    a = _graph({"u1": "The harbour.", "u2": "The union."}, GraphEntity("PORT", "GEO", "a port", ("u1",)))
    b = _graph({"v1": "The harbour.", "v2": "Something new."},
               GraphEntity("PORT", "GEO", "a port", ("v1",)), GraphEntity("UNION", "ORGANIZATION", "", ("v1", "v2")))
    assert align_chunks(a, b) == {"v1": "u1"}
    diff = diff_graphs(a, b)
    assert [(c.chunk, c.added, c.entities_a, c.entities_b) for c in diff.chunks] == [("u1", 1, 1, 2), ("v2", 1, 0, 1)]
    assert diff.chunks_cited == 2  # u1 (= v1) and v2


def test_relationship_endpoints_without_nodes_are_clustered() -> None:
    a = _graph({})
    a.add_relationship(GraphRelationship("HOLMES", "WATSON"))
    b = _graph({}, GraphEntity("SHERLOCK HOLMES", "PERSON"), GraphEntity("HOLMES", "PERSON"))
    clusters = match(a, b).cluster_of
    assert set(clusters) == {"HOLMES", "WATSON", "SHERLOCK HOLMES"}
    assert clusters["HOLMES"] == clusters["SHERLOCK HOLMES"] != clusters["WATSON"]


def test_a_repeated_title_gathers_its_chunks_and_descriptions() -> None:
    graph = _graph({}, GraphEntity("PORT", "", "a port", ("u1",)), GraphEntity("PORT", "GEO", "a city", ("u2", "u1")))
    kept = graph.entities["PORT"]
    assert (kept.type, kept.description, kept.chunks) == ("GEO", "a port\na city", ("u1", "u2"))
