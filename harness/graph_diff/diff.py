"""The diff of two graphs as one value (`GraphDiff`, written by `--json`: docs/diff.md).

Entities: `added` and `removed` are the node keys of one side only. Those that are one thing
under other names (one cluster of `match`) are also listed as a group: `merged` (fewer names in
B), `split` (more) or `renamed` (as many); what is left is `unexplained_added`/`_removed`. An
entity on both sides is `retyped` when both name a type and the types differ (case, punctuation
and the suite's type synonyms aside) and `redescribed` when both hold a description and the descriptions' lines
differ (whitespace and order aside); an entity of a merged, split or renamed group is counted there
and not here (its description changed because the group did). Relationships are compared by their
endpoint pair, unordered; each added or removed one is put down to a reason (`because`).
Each change is traced to chunks (A's chunks for what A had, B's for what B has); chunks are
ranked by the changes they hold."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import Field

from ..model import MatchingConfig, Value
from ..scoring.normalize import canonical_type, type_table
from .graph import Graph, GraphEntity, GraphRelationship
from .match import Matching, match

FORMAT_VERSION = 1
NO_TYPE = "(no type)"
TEXT_SHOWN = 80  # characters of a chunk's text kept in the diff


class Side(Value):
    label: str
    kind: str  # graphrag, lightrag, run
    source: str
    entities: int
    relationships: int
    chunks: int  # distinct chunks its entities and relationships cite
    chunk_word: str


class NameGroup(Value):
    """One thing named differently: its names in A and in B (sorted), and the chunks of the names
    only one side has."""

    before: list[str]
    after: list[str]
    chunks: list[str]


class TypeChange(Value):
    title: str
    before: str
    after: str
    chunks: list[str]


class DescriptionChange(Value):
    title: str
    before: str
    after: str
    chunks: list[str]


class TypeCount(Value):
    """Per type (types one under the matching rules share a row, named as first written): entities on each side, added and removed (each with its own side's type), and
    retyped into (`retyped_in`) or out of (`retyped_out`) this type."""

    type: str
    a: int
    b: int
    added: int = 0
    removed: int = 0
    retyped_in: int = 0
    retyped_out: int = 0


class EntityChanges(Value):
    count_a: int
    count_b: int
    added: list[str]
    removed: list[str]
    merged: list[NameGroup] = Field(default_factory=list)
    split: list[NameGroup] = Field(default_factory=list)
    renamed: list[NameGroup] = Field(default_factory=list)
    retyped: list[TypeChange] = Field(default_factory=list)
    redescribed: list[DescriptionChange] = Field(default_factory=list)
    unexplained_added: list[str] = Field(default_factory=list)
    unexplained_removed: list[str] = Field(default_factory=list)
    by_type: list[TypeCount] = Field(default_factory=list)


class EdgeDescriptionChange(Value):
    source: str
    target: str
    before: str
    after: str
    chunks: list[str]


class RelationshipChanges(Value):
    """`added`/`removed`: [source, target] as each side stores the edge. `added_because`:
    `repointed` (A links the same two things under other names), `endpoint_new` (an end B names
    that A does not, under any name), `link_new` (both ends were in A, unlinked); `removed_because`
    likewise: `repointed`, `endpoint_gone`, `link_gone`."""

    count_a: int
    count_b: int
    added: list[tuple[str, str]]
    removed: list[tuple[str, str]]
    redescribed: list[EdgeDescriptionChange] = Field(default_factory=list)
    added_because: dict[str, list[tuple[str, str]]] = Field(default_factory=dict)
    removed_because: dict[str, list[tuple[str, str]]] = Field(default_factory=dict)


class ChunkCount(Value):
    """One chunk's share of the change. `changes`: entities added + removed + retyped + redescribed
    + relationships added + removed + redescribed that trace to it (merged, split and renamed groups are counted
    beside, their names being among the added and removed)."""

    chunk: str
    text: str = ""
    entities_a: int = 0
    entities_b: int = 0
    added: int = 0
    removed: int = 0
    retyped: int = 0
    redescribed: int = 0
    relationships_added: int = 0
    relationships_removed: int = 0
    relationships_redescribed: int = 0
    merged: int = 0
    split: int = 0
    renamed: int = 0
    changes: int = 0


class GraphDiff(Value):
    format_version: int = FORMAT_VERSION
    a: Side
    b: Side
    entities: EntityChanges
    relationships: RelationshipChanges
    chunks: list[ChunkCount]  # most change first; only chunks with a change
    chunks_cited: int = 0  # distinct chunks either side's entities and relationships cite (B's as A's where one text)


def _lines(description: str) -> list[str]:
    return sorted(" ".join(line.split()) for line in description.split("\n") if line.strip())


def _chunks(*groups: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(c for group in groups for c in group))


def _side(graph: Graph) -> Side:
    cited = {c for e in graph.entities.values() for c in e.chunks} | {c for r in graph.relationships.values() for c in r.chunks}
    return Side(label=graph.label, kind=graph.kind, source=graph.source, entities=len(graph.entities),
                relationships=len(graph.relationships), chunks=len(cited), chunk_word=graph.chunk_word)


class _Tally:
    """Per-chunk counts as changes are found."""

    def __init__(self) -> None:
        self.rows: dict[str, ChunkCount] = {}

    def add(self, chunks: Iterable[str], field: str) -> None:
        for chunk in chunks:
            row = self.rows.setdefault(chunk, ChunkCount(chunk=chunk))
            setattr(row, field, getattr(row, field) + 1)


def _entities(a: Graph, b: Graph, m: Matching, tally: _Tally, types: dict[str, str]) -> EntityChanges:
    b_chunks = {t: m.b_chunks(e.chunks) for t, e in b.entities.items()}
    added = sorted(set(b.entities) - set(a.entities))
    removed = sorted(set(a.entities) - set(b.entities))
    clusters: dict[int, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    for title in a.entities:
        clusters[m.cluster_of[title]][0].add(title)
    for title in b.entities:
        clusters[m.cluster_of[title]][1].add(title)
    changes = EntityChanges(count_a=len(a.entities), count_b=len(b.entities), added=added, removed=removed)
    grouped: set[str] = set()
    for before, after in clusters.values():
        if not before or not after or before == after:
            continue
        only = [a.entities[t].chunks for t in sorted(before - after)] + [b_chunks[t] for t in sorted(after - before)]
        group = NameGroup(before=sorted(before), after=sorted(after), chunks=_chunks(*only))
        kind = "merged" if len(after) < len(before) else "split" if len(after) > len(before) else "renamed"
        getattr(changes, kind).append(group)
        tally.add(group.chunks, kind)
        grouped |= before | after
    for kind in ("merged", "split", "renamed"):
        getattr(changes, kind).sort(key=lambda g: (g.before, g.after))
    changes.unexplained_added = [t for t in added if t not in grouped]
    changes.unexplained_removed = [t for t in removed if t not in grouped]
    for title in added:
        tally.add(b_chunks[title], "added")
    for title in removed:
        tally.add(a.entities[title].chunks, "removed")
    for title in sorted(set(a.entities) & set(b.entities) - grouped):
        old, new = a.entities[title], b.entities[title]
        chunks = _chunks(old.chunks, b_chunks[title])
        if old.type and new.type and canonical_type(old.type, types) != canonical_type(new.type, types):
            changes.retyped.append(TypeChange(title=title, before=old.type, after=new.type, chunks=chunks))
            tally.add(chunks, "retyped")
        if old.description and new.description and _lines(old.description) != _lines(new.description):
            changes.redescribed.append(DescriptionChange(title=title, before=old.description, after=new.description,
                                                         chunks=chunks))
            tally.add(chunks, "redescribed")
    changes.by_type = _by_type(a.entities, b.entities, changes, types)
    return changes


def _by_type(a: dict[str, GraphEntity], b: dict[str, GraphEntity], changes: EntityChanges,
             types: dict[str, str]) -> list[TypeCount]:
    """Rows per type, types that are one under the matching rules (case, punctuation, the suite's
    synonyms) in one row, shown as first written (A's first)."""
    rows: dict[str, TypeCount] = {}

    def row(written: str) -> TypeCount:
        key = canonical_type(written, types) if written else ""
        return rows.setdefault(key, TypeCount(type=written or NO_TYPE, a=0, b=0))

    for entity in a.values():
        row(entity.type).a += 1
    for entity in b.values():
        row(entity.type).b += 1
    for title in changes.added:
        row(b[title].type).added += 1
    for title in changes.removed:
        row(a[title].type).removed += 1
    for change in changes.retyped:
        row(change.before).retyped_out += 1
        row(change.after).retyped_in += 1
    return sorted(rows.values(), key=lambda r: (-(r.added + r.removed + r.retyped_in + r.retyped_out), -r.a, r.type))


def _edge(edge: GraphRelationship) -> tuple[str, str]:
    return (edge.source, edge.target)


def _relationships(a: Graph, b: Graph, m: Matching, tally: _Tally) -> RelationshipChanges:
    def cluster_pair(edge: GraphRelationship) -> frozenset[int]:
        return frozenset((m.cluster_of[edge.source], m.cluster_of[edge.target]))

    a_pairs = {cluster_pair(e) for e in a.relationships.values()}
    b_pairs = {cluster_pair(e) for e in b.relationships.values()}
    a_clusters = {m.cluster_of[t] for t in a.entities} | {m.cluster_of[t] for e in a.relationships.values() for t in e.pair}
    b_clusters = {m.cluster_of[t] for t in b.entities} | {m.cluster_of[t] for e in b.relationships.values() for t in e.pair}
    added_keys = sorted(set(b.relationships) - set(a.relationships))
    removed_keys = sorted(set(a.relationships) - set(b.relationships))
    added_because: dict[str, list[tuple[str, str]]] = defaultdict(list)
    removed_because: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key in added_keys:
        edge = b.relationships[key]
        reason = ("repointed" if cluster_pair(edge) in a_pairs else
                  "endpoint_new" if not cluster_pair(edge) <= a_clusters else "link_new")
        added_because[reason].append(_edge(edge))
        tally.add(m.b_chunks(edge.chunks), "relationships_added")
    for key in removed_keys:
        edge = a.relationships[key]
        reason = ("repointed" if cluster_pair(edge) in b_pairs else
                  "endpoint_gone" if not cluster_pair(edge) <= b_clusters else "link_gone")
        removed_because[reason].append(_edge(edge))
        tally.add(edge.chunks, "relationships_removed")
    changes = RelationshipChanges(count_a=len(a.relationships), count_b=len(b.relationships),
                                  added=[_edge(b.relationships[k]) for k in added_keys],
                                  removed=[_edge(a.relationships[k]) for k in removed_keys],
                                  added_because=dict(sorted(added_because.items())),
                                  removed_because=dict(sorted(removed_because.items())))
    for key in sorted(set(a.relationships) & set(b.relationships)):
        old, new = a.relationships[key], b.relationships[key]
        if old.description and new.description and _lines(old.description) != _lines(new.description):
            changes.redescribed.append(EdgeDescriptionChange(
                source=new.source, target=new.target, before=old.description, after=new.description,
                chunks=_chunks(old.chunks, m.b_chunks(new.chunks))))
            tally.add(changes.redescribed[-1].chunks, "relationships_redescribed")
    return changes


def _ranked(tally: _Tally, a: Graph, b: Graph, m: Matching) -> list[ChunkCount]:
    for graph, aliased in ((a, False), (b, True)):
        for entity in graph.entities.values():
            for chunk in (m.b_chunks(entity.chunks) if aliased else entity.chunks):
                if chunk in tally.rows:
                    row = tally.rows[chunk]
                    if aliased:
                        row.entities_b += 1
                    else:
                        row.entities_a += 1
    order = {chunk: n for n, chunk in enumerate([*a.chunk_text, *(m.chunk_of_b.get(c, c) for c in b.chunk_text)])}
    texts = {**{m.chunk_of_b.get(c, c): t for c, t in b.chunk_text.items()}, **a.chunk_text}
    for row in tally.rows.values():
        row.changes = (row.added + row.removed + row.retyped + row.redescribed
                       + row.relationships_added + row.relationships_removed + row.relationships_redescribed)
        text = " ".join(texts.get(row.chunk, "").split())
        row.text = text if len(text) <= TEXT_SHOWN else text[:TEXT_SHOWN - 3] + "..."
    return sorted(tally.rows.values(), key=lambda r: (-r.changes, order.get(r.chunk, len(order)), r.chunk))


def diff_graphs(a: Graph, b: Graph, matching: MatchingConfig | None = None) -> GraphDiff:
    """What changed from A to B (module docstring). `matching`: the rules names and types are
    matched by; default: the suite's of a run side (A's first), else the harness defaults."""
    cfg = matching or a.matching or b.matching or MatchingConfig.model_validate({})
    m = match(a, b, cfg)
    tally = _Tally()
    entities = _entities(a, b, m, tally, type_table(cfg.type_synonyms))
    relationships = _relationships(a, b, m, tally)
    chunks = _ranked(tally, a, b, m)
    cited = {c for e in a.entities.values() for c in e.chunks} | {c for r in a.relationships.values() for c in r.chunks}
    cited |= {c for e in b.entities.values() for c in m.b_chunks(e.chunks)}
    cited |= {c for r in b.relationships.values() for c in m.b_chunks(r.chunks)}
    return GraphDiff(a=_side(a), b=_side(b), entities=entities, relationships=relationships, chunks=chunks,
                     chunks_cited=len(cited))


def count_change(before: int, after: int) -> float | None:
    """Percent change of a count; None (n/a) from nothing."""
    return round((after - before) / before * 100, 1) if before else None


__all__ = ["GraphDiff", "diff_graphs", "count_change"]
