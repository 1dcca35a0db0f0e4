"""The graph an engine's own extraction parser builds from one case's answers, as the models in
harness/cache_audit/{graphrag,lightrag,llamaindex}_parser.py compute it: its entities and
relationships named as that engine version names them, merged as it merges them, and the
records it read (kept, lost with a reason). Data only: the audit counts it, a run scores it
(harness.scoring.engine_reading)."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.cache_audit.entry import EngineCounts, EngineReading


def add_description(descriptions: list[str], description: str) -> None:
    """One more description of a merged record: kept once, in the order first seen, never empty.
    (GraphRAG 0.x-2.x join a set, in no fixed order; LightRAG sorts; both summarise many with an
    LLM call the model does not make: the fragments are what the engine had to summarise.)"""
    if description and description not in descriptions:
        descriptions.append(description)


@dataclass(slots=True)
class KeptEntity:
    """One entity (node) of the engine's graph. `record`: False for a node the engine added only
    because a relationship names it (GraphRAG 0.x-2.x: type ""; LightRAG: "UNKNOWN")."""

    name: str
    type: str
    descriptions: list[str] = field(default_factory=list)
    record: bool = True

    @property
    def description(self) -> str:
        return "\n".join(self.descriptions)


@dataclass(slots=True)
class KeptRelationship:
    """One relationship (edge) of the engine's graph, with the endpoints as the engine stores them.
    `weight`: None where the engine's records carry none (LlamaIndex); `predicate`: a triple's
    relation (LlamaIndex), "" elsewhere."""

    source: str
    target: str
    descriptions: list[str] = field(default_factory=list)
    weight: float | None = None
    keywords: list[str] = field(default_factory=list)
    predicate: str = ""

    @property
    def description(self) -> str:
        return "\n".join(self.descriptions)


@dataclass(slots=True)
class EngineGraph:
    """What one engine version's parser keeps: `reading` counts the records it kept (before any
    merging: the audit's figures) and says why it lost the others; `entities` and `relationships`
    are the graph those records make, merged and named as the engine does."""

    parser: str
    entities: list[KeptEntity] = field(default_factory=list)
    relationships: list[KeptRelationship] = field(default_factory=list)
    reading: EngineReading = field(default_factory=EngineReading)
    weighted: bool = True  # False: the format has no weight field (LightRAG >= 1.4.8, LlamaIndex)

    def counts(self) -> EngineCounts:
        """The records kept (the audit's counts), not the merged graph's size."""
        counts = self.reading.counts()
        return counts if self.weighted else EngineCounts(counts.entities, counts.relationships, None)
