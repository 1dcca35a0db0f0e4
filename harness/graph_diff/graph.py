"""The one graph value both sides of a diff are read into, whatever wrote them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import MatchingConfig


@dataclass(slots=True)
class GraphEntity:
    """One node: `title` as the engine keys it (GraphRAG's title, LightRAG's entity name, a run's
    GraphRAG node key), its type and description as stored, and the chunks (text unit ids, LightRAG
    chunk ids, a run's case ids) it was extracted from."""

    title: str
    type: str = ""
    description: str = ""
    chunks: tuple[str, ...] = ()


@dataclass(slots=True)
class GraphRelationship:
    """One edge, endpoints as the engine stores them. Both engines' graphs are undirected (GraphRAG
    writes an edge's endpoints in either order from one index to the next), so edges are compared
    by `pair`, the endpoints sorted."""

    source: str
    target: str
    description: str = ""
    chunks: tuple[str, ...] = ()

    @property
    def pair(self) -> tuple[str, str]:
        return (self.source, self.target) if self.source <= self.target else (self.target, self.source)


@dataclass(slots=True)
class Graph:
    """One side of a diff. `label`: the path (and variant) as given; `kind`: graphrag, lightrag or
    run; `source`: the files read, for the header line; `chunk_text`: the text of each chunk where
    the side holds it (GraphRAG's text units table, LightRAG's chunk store), in the engine's order;
    `chunk_word`: what a chunk is on this side (text unit, chunk, case, document); `matching`: the
    suite's matching rules (fuzzy threshold, type synonyms) where the side is a suite's run."""

    label: str
    kind: str
    source: str
    entities: dict[str, GraphEntity] = field(default_factory=dict)
    relationships: dict[tuple[str, str], GraphRelationship] = field(default_factory=dict)
    chunk_text: dict[str, str] = field(default_factory=dict)
    chunk_word: str = "chunk"
    matching: MatchingConfig | None = None

    def add_entity(self, entity: GraphEntity) -> None:
        """Keep one node per title: a repeated title (a table written twice, a union over cases)
        gathers its chunks and descriptions; the first non-empty type stays."""
        kept = self.entities.get(entity.title)
        if kept is None:
            self.entities[entity.title] = entity
            return
        kept.type = kept.type or entity.type
        if entity.description and entity.description not in kept.description.split("\n"):
            kept.description = f"{kept.description}\n{entity.description}" if kept.description else entity.description
        kept.chunks = tuple(dict.fromkeys((*kept.chunks, *entity.chunks)))

    def add_relationship(self, edge: GraphRelationship) -> None:
        kept = self.relationships.get(edge.pair)
        if kept is None:
            self.relationships[edge.pair] = edge
            return
        if edge.description and edge.description not in kept.description.split("\n"):
            kept.description = f"{kept.description}\n{edge.description}" if kept.description else edge.description
        kept.chunks = tuple(dict.fromkeys((*kept.chunks, *edge.chunks)))
