"""What GraphRAG's own extraction parser keeps from one text and the graph it builds of it, per
version, modelled on graph_extractor.py (`_process_results`, 0.x-2.x; `_process_result`, 3.x) and
the extract_graph operation around it. Checked against the real versions' output in
tests/fixtures/engine_parsing/ (scripts/capture_graphrag_parsing.py).

Reading, every version: split the text on the record delimiter (never on the completion
delimiter), strip each record and one leading "(" and one trailing ")", split on the tuple
delimiter; keep `"entity"` records with at least 4 fields and `"relationship"` records with at
least 5 (the tag exactly `"entity"` with its quotes). The weight is the last field:

- 0.1 to 0.3.1: `float(x) if isinstance(x, numbers.Number) else 1.0` on a string: every weight is
  1.0 (graphrag-0.x; 0.3.2 to 0.5.x store the 0.x layout but parse as 1.x does, and 0.9 stores
  fnllm's: harness.cache_audit.versions says which the audit assumed);
- 0.3.2 on: `float(x)`, 1.0 on ValueError, so `5)\\n<|COMPLETE|>` (the last record when no record
  delimiter comes before the completion delimiter) falls back to 1.0;
- 3.x: a record that is empty or exactly `<|COMPLETE|>` is skipped (no count changes).

Names: `clean_str(field.upper())` (HTML unescaped, control characters removed), the type too; the
descriptions `clean_str(field)`. What a reading counts as kept (the audit's figures): 3.x a row per
record; 0.x-2.x the distinct names an entity record gave a type and the distinct unordered pairs,
a record that adds nothing to the graph named as merged ("entity named again", "relationship
written again, either way round").

The graph:

- 0.x to 2.x (a networkx Graph, undirected): one node per name; a relationship adds a node (type
  "", no description) for an endpoint no entity record named before it; a name seen again merges
  its descriptions and, from 0.5.0, takes the later non-empty type (up to 0.4.1 the code sets a
  key nothing reads: the first type stays, "" for a node a relationship added; and a name written
  again without a type, before any repeat with one, reads that key back and raises KeyError, so
  the text unit keeps nothing). A relationship
  seen again in either direction is one edge: weights added, descriptions merged. Edges come out
  as networkx lists them (`to_pandas_edgelist`): from the endpoint added first.
- 3.x (data frames): entity rows grouped by (title, type), so one name with two types is two
  entities; relationship rows grouped by (source, target), directed, weights added; no node for
  an endpoint. From 3.0.6 (`filter_orphan_relationships`) a relationship whose source or target is
  no entity's title is dropped: within one case, an endpoint no entity record of the case names.

In every version the first answer and its gleanings are glued into one text before parsing
(`results += response` in `_process_document`), so a case's answers are read glued.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from harness.cache_audit.engine_graph import EngineGraph, KeptEntity, KeptRelationship, add_description
from harness.cache_audit.entry import EngineReading

GRAPHRAG_TUPLE = "<|>"
GRAPHRAG_RECORD = "##"
COMPLETION = "<|COMPLETE|>"
SEAM = f"record glued after {COMPLETION} (answers joined before parsing)"
# 0.x-2.x: records that add nothing to the text unit's graph
MERGED_ENTITY = "entity named again (one node of the engine's graph)"
MERGED_RELATIONSHIP = "relationship written again, either way round (one edge of the engine's graph)"
RAISES = ("record of a case whose parse raised (GraphRAG up to 0.4.1: KeyError 'entity_type' on a name "
          "written again without a type; the text unit keeps nothing)")

_PARENS = re.compile(r"^\(|\)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_RECORD_START = re.compile(r'\(\s*"?(entity|relationship)"?\s*')


def family(release: tuple[int, ...]) -> str:
    """The parser family of a GraphRAG release: graphrag-0.x for 0.1-0.3.1 (weights always 1.0),
    graphrag-1.x for 0.3.2-1.x, graphrag-2.x, graphrag-3.x."""
    if release[0] == 0:
        return "graphrag-0.x" if release < (0, 3, 2) else "graphrag-1.x"
    return f"graphrag-{release[0]}.x"


def clean_str(value: str) -> str:
    """GraphRAG's clean_str (index/utils/string.py): strip, HTML-unescape, drop control characters."""
    return _CONTROL.sub("", html.unescape(value.strip()))


@dataclass(slots=True)
class _Record:
    kind: str  # "entity" or "relationship"
    attrs: list[str]
    weight: float


def _float_weight(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _drop_reason(attrs: list[str], record: str, completion_delimiter: str) -> str | None:
    """Why GraphRAG reads nothing from a record that holds one (None: no record in it)."""
    tag = attrs[0]
    if tag == '"entity"':
        return f"entity with {len(attrs)} fields (GraphRAG needs 4)"
    if tag == '"relationship"':
        return f"relationship with {len(attrs)} fields (GraphRAG needs 5)"
    start = _RECORD_START.search(record)
    if start is None and tag.strip().strip('"').lower() not in ("entity", "relationship"):
        return None
    if tag.startswith(completion_delimiter):
        return f"record glued after {completion_delimiter} (answers joined before parsing)"
    if start is not None and start.start() > 0:
        return "text before the record (a fence, prose or markdown) hides its tag"
    return 'tag not exactly "entity" or "relationship"'


def _read(text: str, version: str, tuple_delimiter: str, record_delimiter: str,
          completion_delimiter: str) -> tuple[EngineReading, list[_Record]]:
    """The records GraphRAG `version` (a family) keeps, in order, and its reading: what it keeps
    (3.x: a row per record; 0.x-2.x, which read into one undirected graph: the distinct names an
    entity record gave a type and the distinct unordered pairs, a record that adds nothing to the
    graph named with its reason) and one reason per record lost (a record run into the one before
    it, with no record delimiter between them, counted as lost with that reason)."""
    reading = EngineReading()
    kept: list[_Record] = []
    graph = version != "graphrag-3.x"
    typed: set[str] = set()
    pairs: set[frozenset[str]] = set()
    for raw in text.split(record_delimiter):
        record = _PARENS.sub("", raw.strip())
        attrs = record.split(tuple_delimiter)
        if version == "graphrag-3.x" and (attrs == [""] or attrs == [completion_delimiter]):
            continue
        if attrs[0] == '"entity"' and len(attrs) >= 4:
            kept.append(_Record("entity", attrs, 1.0))
            if not graph:
                reading.entities += 1
            elif clean_str(attrs[2].upper()):
                name = clean_str(attrs[1].upper())
                if name in typed:
                    reading.lose(MERGED_ENTITY)
                typed.add(name)
        elif attrs[0] == '"relationship"' and len(attrs) >= 5:
            if not graph:
                reading.relationships += 1
            else:
                pair = frozenset((clean_str(attrs[1].upper()), clean_str(attrs[2].upper())))
                if pair in pairs:
                    reading.lose(MERGED_RELATIONSHIP)
                pairs.add(pair)
            weight = None if version == "graphrag-0.x" else _float_weight(attrs[-1])
            if weight is None:
                reading.weight_fallbacks += 1
            kept.append(_Record("relationship", attrs, 1.0 if weight is None else weight))
        else:
            reason = _drop_reason(attrs, record, completion_delimiter)
            if reason is not None:
                reading.lose(reason)
        # records after the first in one piece: the engine read them as a field of the first
        starts = [m.start() for m in _RECORD_START.finditer(raw)]
        for before, start in zip(starts, starts[1:]):
            if completion_delimiter in raw[before:start]:
                reading.lose(f"record glued after {completion_delimiter} (answers joined before parsing)")
            else:
                reading.lose(f"record not separated by {record_delimiter!r} (read into the record before it)")
    if graph:
        reading.entities, reading.relationships = len(typed), len(pairs)
    return reading, kept


def graphrag_reading(
    text: str,
    version: str = "graphrag-3.x",
    tuple_delimiter: str = GRAPHRAG_TUPLE,
    record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineReading:
    """What GraphRAG `version` (graphrag-0.x, -1.x, -2.x, -3.x) keeps from one text (an answer, or
    a conversation's answers glued as the engine glues them), and why it reads nothing from the
    records it drops: the audit's counts (3.x: rows; 0.x-2.x: typed names and pairs, exact from
    0.5 on: up to 0.4.1 a name a relationship named first stays untyped, which `graphrag_graph`,
    given the release, counts)."""
    return _read(text, version, tuple_delimiter, record_delimiter, completion_delimiter)[0]


class _TypeKeyError(Exception):
    """0.1-0.4.1's `_process_results` raising KeyError('entity_type'): see `_networkx_graph`."""


def _networkx_graph(records: list[_Record], release: tuple[int, ...]) -> tuple[list[KeptEntity], list[KeptRelationship]]:
    """`_process_results` (0.x-2.x) on one text, then the nodes and edges as networkx lists them.
    Up to 0.4.1 a name written again sets `node["entity_type"]` (a key nothing reads) and, when the
    new record has no type, reads it back: KeyError unless an earlier repeat with a type set it."""
    nodes: dict[str, KeptEntity] = {}
    adjacency: dict[str, dict[str, KeptRelationship]] = {}
    later_type_wins = release >= (0, 5, 0)
    entity_type_set: set[str] = set()  # up to 0.4.1: the nodes whose `entity_type` key exists
    for rec in records:
        if rec.kind == "entity":
            name, kind, description = clean_str(rec.attrs[1].upper()), clean_str(rec.attrs[2].upper()), clean_str(rec.attrs[3])
            node = nodes.get(name)
            if node is None:
                nodes[name] = KeptEntity(name, kind, [description] if description else [])
                adjacency[name] = {}
                continue
            add_description(node.descriptions, description)
            node.record = True
            if later_type_wins and kind:
                node.type = kind
            elif not later_type_wins:
                if not kind and name not in entity_type_set:
                    raise _TypeKeyError
                entity_type_set.add(name)
            continue
        source, target = clean_str(rec.attrs[1].upper()), clean_str(rec.attrs[2].upper())
        description = clean_str(rec.attrs[3])
        for end in (source, target):
            if end not in nodes:
                nodes[end] = KeptEntity(end, "", [], record=False)
                adjacency[end] = {}
        edge = adjacency[source].get(target)
        if edge is None:
            edge = KeptRelationship(source, target, [description] if description else [], rec.weight)
            adjacency[source][target] = edge
            adjacency[target][source] = edge
        else:
            edge.weight = (edge.weight or 0.0) + rec.weight
            add_description(edge.descriptions, description)
    # Graph.edges(): nodes in insertion order, each with the neighbours not yet visited
    edges: list[KeptRelationship] = []
    seen: set[str] = set()
    for name, neighbours in adjacency.items():
        for other, edge in neighbours.items():
            if other not in seen:
                edges.append(KeptRelationship(name, other, edge.descriptions, edge.weight))
        seen.add(name)
    return list(nodes.values()), edges


def _dataframe_graph(records: list[_Record], release: tuple[int, ...]) -> tuple[list[KeptEntity], list[KeptRelationship]]:
    """`_process_result` (3.x) on one text, then `_merge_entities`, `_merge_relationships` and,
    from 3.0.6, `filter_orphan_relationships`."""
    entities: dict[tuple[str, str], KeptEntity] = {}
    relationships: dict[tuple[str, str], KeptRelationship] = {}
    for rec in records:
        if rec.kind == "entity":
            name, kind, description = clean_str(rec.attrs[1].upper()), clean_str(rec.attrs[2].upper()), clean_str(rec.attrs[3])
            entity = entities.setdefault((name, kind), KeptEntity(name, kind))
            add_description(entity.descriptions, description)
            continue
        key = (clean_str(rec.attrs[1].upper()), clean_str(rec.attrs[2].upper()))
        edge = relationships.get(key)
        if edge is None:
            relationships[key] = edge = KeptRelationship(key[0], key[1], [], 0.0)
        edge.weight = (edge.weight or 0.0) + rec.weight
        add_description(edge.descriptions, clean_str(rec.attrs[3]))
    kept = list(relationships.values())
    if release >= (3, 0, 6):
        titles = {name for name, _ in entities}
        kept = [r for r in kept if r.source in titles and r.target in titles]
    return list(entities.values()), kept


def graphrag_graph(
    text: str,
    release: tuple[int, ...],
    tuple_delimiter: str = GRAPHRAG_TUPLE,
    record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineGraph:
    """The graph GraphRAG `release` builds from one text (a case's answers glued): its records,
    merged and named as that release does. Relationships the 3.0.6+ orphan filter drops are
    counted as lost with that reason."""
    version = family(release)
    reading, records = _read(text, version, tuple_delimiter, record_delimiter, completion_delimiter)
    build = _networkx_graph if release < (3, 0, 0) else _dataframe_graph
    try:
        entities, relationships = build(records, release)
    except _TypeKeyError:
        reading.lose(RAISES, len(records))
        reading.entities = reading.relationships = 0
        return EngineGraph(parser=version, reading=reading)
    if release < (3, 0, 0):  # what the release keeps as typed nodes (up to 0.4.1 the first type stays)
        reading.entities = sum(1 for e in entities if e.type)
    if release >= (3, 0, 0):
        merged = {(clean_str(r.attrs[1].upper()), clean_str(r.attrs[2].upper())) for r in records if r.kind == "relationship"}
        orphans = len(merged) - len(relationships)
        if orphans:
            reading.lose("relationship naming an entity no entity record names (filter_orphan_relationships)", orphans)
    return EngineGraph(parser=version, entities=entities, relationships=relationships, reading=reading)
