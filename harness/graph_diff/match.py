"""What is one thing on both sides: the same node key, or one cluster of the fragmentation rules
(harness/scoring/fragmentation.py, `name_clusters`) over the names of both graphs; and which chunk
of B is which chunk of A (the same id, or, where both sides hold their chunks' text, the same
text under another id: GraphRAG 3.x hashes a text unit's text alone, 0.x-2.x with its document)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..model import MatchingConfig
from ..scoring.fragmentation import name_clusters
from .graph import Graph


@dataclass(slots=True)
class Matching:
    """`cluster_of`: each title of either side -> its cluster; `chunk_of_b`: a B chunk id -> the A
    chunk id of the same text (only where they differ)."""

    cluster_of: dict[str, int]
    chunk_of_b: dict[str, str]

    def b_chunks(self, chunks: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.chunk_of_b.get(c, c) for c in chunks))


def align_chunks(a: Graph, b: Graph) -> dict[str, str]:
    first_of_text: dict[str, str] = {}
    for chunk, text in a.chunk_text.items():
        first_of_text.setdefault(text, chunk)
    return {chunk: first_of_text[text] for chunk, text in b.chunk_text.items()
            if text in first_of_text and first_of_text[text] != chunk and chunk not in a.chunk_text}


def match(a: Graph, b: Graph, matching: MatchingConfig | None = None) -> Matching:
    titles: dict[str, set[str]] = defaultdict(set)
    for graph in (a, b):
        for entity in graph.entities.values():
            titles[entity.title].update([entity.type] if entity.type else [])
        for edge in graph.relationships.values():  # an endpoint with no node of its own
            titles[edge.source]
            titles[edge.target]
    return Matching(name_clusters(titles, matching), align_chunks(a, b))
