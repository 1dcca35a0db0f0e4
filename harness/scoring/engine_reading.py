"""What the engine a suite names (`engine:`) would keep from a case's answers: the graph its own
parser builds (the audit's model, harness.cache_audit.engines, never a second model of the
engine's parser) as the graph the case is scored on, and how it compares with what the harness
recovers (docs/scoring.md, "What the engine keeps").

The engine's graph becomes an ExtractedGraph named as the engine names it (GraphRAG: upper case;
merged records: one entity per name, descriptions one a line). An entity's or relationship's
`round` is the first answer the harness recovered it from (0 when it recovered it from none), so
gleaning figures still say which answer added what. Pure: rounds and the recovered graph in, an
EngineView out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..cache_audit.engine_graph import EngineGraph
from ..cache_audit.engines import engine_graph
from ..formats.base import Delimiters
from ..model import EngineRead, Entity, ExtractedGraph, Relationship, Round
from .normalize import normalize_name


@dataclass(frozen=True)
class EngineView:
    """One case as the engine would keep it: the graph scored by default, and the reading."""

    graph: ExtractedGraph
    read: EngineRead


def _pair(source: str, target: str) -> frozenset[str]:
    return frozenset((normalize_name(source), normalize_name(target)))


def _as_graph(kept: EngineGraph, recovered: ExtractedGraph) -> ExtractedGraph:
    first_entity: dict[str, int] = {}
    for entity in recovered.entities:
        key = normalize_name(entity.name)
        first_entity[key] = min(first_entity.get(key, entity.round), entity.round)
    first_pair: dict[frozenset[str], int] = {}
    for rel in recovered.relationships:
        pair = _pair(rel.source, rel.target)
        first_pair[pair] = min(first_pair.get(pair, rel.round), rel.round)
    entities = [Entity(name=e.name, type=e.type, description=e.description,
                       round=first_entity.get(normalize_name(e.name), 0)) for e in kept.entities]
    relationships = [
        Relationship(source=r.source, target=r.target, description=r.description,
                     strength=r.weight if kept.weighted else None, keywords=",".join(r.keywords), type=r.predicate,
                     round=first_pair.get(_pair(r.source, r.target), 0))
        for r in kept.relationships]
    return ExtractedGraph(entities=entities, relationships=relationships, claims=recovered.claims,
                          report=recovered.report)


def _lost(kept: EngineGraph, recovered: ExtractedGraph) -> int:
    """Recovered records the engine's graph has no counterpart of: an entity no kept entity record
    names (a node the engine added only for a relationship's endpoint has lost the record's type
    and description), a relationship between two names no kept relationship joins (either way)."""
    names = {normalize_name(e.name) for e in kept.entities if e.record}
    pairs = {_pair(r.source, r.target) for r in kept.relationships}
    return (sum(1 for e in recovered.entities if normalize_name(e.name) not in names)
            + sum(1 for r in recovered.relationships if _pair(r.source, r.target) not in pairs))


def read_as_engine(engine: str, rounds: list[Round], recovered: ExtractedGraph, delimiters: Delimiters,
                   answer_format: str | None = None) -> EngineView:
    """The engine's reading of one case's answers (loop checks left out). `delimiters`: the
    variant's tuple, record and completion delimiters (run.plan.variant_delimiters), which GraphRAG
    up to 2.x reads with; `answer_format`: the variant's, which says which LlamaIndex extractor
    wrote the answers; `recovered`: the harness's own graph of the same answers."""
    answers = [r.output for r in rounds if r.kind != "loop"]
    kept = engine_graph(engine, answers, delimiters.as_variables(), answer_format)
    lost = _lost(kept, recovered)
    reasons: Counter[str] = Counter(kept.reading.lost)
    unexplained = lost - sum(reasons.values())
    if unexplained > 0:
        reasons[f"not read by {kept.parser}'s parser"] += unexplained
    read = EngineRead(engine=engine, parser=kept.parser, entities=len(kept.entities),
                      relationships=len(kept.relationships), recovered_entities=len(recovered.entities),
                      recovered_relationships=len(recovered.relationships), lost=lost,
                      reasons=dict(sorted(reasons.items())))
    return EngineView(graph=_as_graph(kept, recovered), read=read)

