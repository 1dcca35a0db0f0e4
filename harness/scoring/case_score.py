"""Per-case scores: entities, relationships and grounding of one extraction against its gold case.

Conventions (also in docs/scoring.md):

- Predictions are de-duplicated first: entities by normalised name (the first occurrence's
  name is kept, with the first non-empty type); relationships by mapped edge. Counts are
  after de-duplication. Entities with a blank name and edges with a blank endpoint are dropped.
- A relationship endpoint resolves to the predicted entity with the same normalised name
  (and so through the alignment to its gold entity); a name the output never declared as
  an entity resolves by exact normalised name, then alias, to a gold entity, and otherwise
  stays an unaligned node. Undeclared endpoints never count as entity predictions.
- Self-loops (both endpoints mapped to the same node) are dropped and counted, in the
  prediction and in gold.
- Edges are undirected unless `MatchingConfig.directed`; a gold edge marked `directed: true`
  only matches a prediction in its direction. Directed recall always asks for the gold
  direction; endpoint recall is over gold edges whose two endpoints were found as entities.
- Typed relationships (`CaseScore.typed`, only when every gold relationship of the case has a
  `type`): an edge is its mapped endpoints plus its canonical predicate (`normalize_predicate`,
  then the suite's `predicate_synonyms`), de-duplicated on that; direction as above. A gold
  edge with two predicates is two typed gold edges. Cases with untyped or partly typed gold
  get None (they pool nothing for the typed metrics).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from ..model import (
    CaseScore,
    EntityScores,
    ExtractedGraph,
    GoldCase,
    Grounding,
    MatchingConfig,
    Ontology,
    RelationshipScores,
    TypedRelationshipScores,
)
from .align import Match, align
from .normalize import canonical_predicate, canonical_type, normalize_name, predicate_table, type_table
from .ontology import ontology_scores
from .predicted import PredictedEntities, grounded_in, predicted_entities
from ..metrics.ratios import f1, precision, ratio_or_none, recall

Node = tuple[str, int | str]  # ("g", gold index) or ("p", normalised name of an unaligned node)
Edge = tuple[Node, Node]

_DEFAULT = MatchingConfig()


@dataclass
class CaseDetail:
    """Everything `score_case` worked out, for reports and debugging (not persisted)."""

    score: CaseScore
    matches: list[tuple[str, str, str, float]]  # (gold name, predicted name, "exact"|"fuzzy", similarity)
    dropped: dict[str, int] = field(default_factory=dict)


@lru_cache(maxsize=64)
def _types(items: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, str]:
    return type_table({k: list(v) for k, v in items})


@lru_cache(maxsize=64)
def _predicates(items: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, str]:
    return predicate_table({k: list(v) for k, v in items})


def predicates_of(matching: MatchingConfig) -> dict[str, str]:
    """The suite's predicate table (normalised spelling -> canonical), cached per synonym table."""
    return _predicates(tuple((k, tuple(v)) for k, v in matching.predicate_synonyms.items()))


def has_typed_gold(gold: GoldCase) -> bool:
    """Whether the case's gold is typed: annotated with relationships, at least one, all with a `type`."""
    return gold.has_relationship_gold and bool(gold.relationships) and all(r.type.strip() for r in gold.relationships)


def score_case(gold: GoldCase, graph: ExtractedGraph, matching: MatchingConfig | None = None,
               ontology: Ontology | None = None) -> CaseScore:
    """Score one extracted graph against its gold case, with what was set aside before counting
    (and against the suite's ontology when it has one: `CaseScore.ontology`)."""
    detail = explain_case(gold, graph, matching)
    update: dict[str, object] = {"dropped": dict(sorted(detail.dropped.items()))}
    if ontology is not None:
        update["ontology"] = ontology_scores(graph, ontology, matching or _DEFAULT)
    return detail.score.model_copy(update=update)


@dataclass
class EntityAlignment:
    """The first step of `explain_case`: predictions de-duplicated, gold names indexed, and the
    one-to-one alignment between them."""

    predicted: PredictedEntities
    by_name: dict[str, int]  # normalised gold name -> first gold index with it
    by_alias: dict[str, int]  # normalised alias -> first gold index with it (not a name key of that entity)
    matches: list[Match]  # sorted by gold index


def align_entities(gold: GoldCase, graph: ExtractedGraph, matching: MatchingConfig | None = None) -> EntityAlignment:
    """Align the graph's (de-duplicated) entities with the gold entities, as `explain_case` does."""
    cfg = matching or _DEFAULT
    predicted = predicted_entities(graph.entities)
    gold_keys: list[list[str]] = []
    by_name: dict[str, int] = {}
    by_alias: dict[str, int] = {}
    for i, ent in enumerate(gold.entities):
        keys = [normalize_name(ent.name)]
        by_name.setdefault(keys[0], i)
        for alias in ent.aliases:
            akey = normalize_name(alias)
            if akey and akey not in keys:
                keys.append(akey)
                by_alias.setdefault(akey, i)
        gold_keys.append(keys)
    return EntityAlignment(predicted, by_name, by_alias, align(gold_keys, predicted.keys, cfg.fuzzy_threshold))


def entity_matches(gold: GoldCase, graph: ExtractedGraph,
                   matching: MatchingConfig | None = None) -> list[tuple[str, str, str, float]]:
    """`explain_case(...).matches` without scoring anything else: (gold name, predicted name,
    "exact"|"fuzzy", similarity), for readers that need only the alignment (fragmentation)."""
    return _named_matches(gold, align_entities(gold, graph, matching))


def _named_matches(gold: GoldCase, aligned: EntityAlignment) -> list[tuple[str, str, str, float]]:
    names = aligned.predicted.names
    return [(gold.entities[mt.gold].name, names[mt.pred], mt.kind, mt.similarity) for mt in aligned.matches]


def explain_case(gold: GoldCase, graph: ExtractedGraph, matching: MatchingConfig | None = None) -> CaseDetail:
    """`score_case` plus the alignment and the counts of what was dropped."""
    cfg = matching or _DEFAULT
    types = _types(tuple((k, tuple(v)) for k, v in cfg.type_synonyms.items()))
    dropped = {
        "duplicate_entities": 0,
        "blank_entities": 0,
        "duplicate_relationships": 0,
        "blank_relationships": 0,
        "self_loops": 0,
        "gold_self_loops": 0,
        "undeclared_endpoints": 0,
    }

    # ---- predicted entities, de-duplicated by normalised name; gold entities and their lookup keys
    aligned = align_entities(gold, graph, cfg)
    predicted, by_name, by_alias, matches = aligned.predicted, aligned.by_name, aligned.by_alias, aligned.matches
    pred_keys, pred_names, pred_types, pred_pos = predicted.keys, predicted.names, predicted.types, predicted.position
    dropped["blank_entities"] = predicted.blanks
    dropped["duplicate_entities"] = predicted.duplicates

    gold_of: dict[int, int] = {mt.pred: mt.gold for mt in matches}
    matched_gold = {mt.gold for mt in matches}

    # ---- entity scores
    typed_tp = 0
    for mt in matches:
        gold_type = canonical_type(gold.entities[mt.gold].type, types)
        if not gold_type or gold_type == canonical_type(pred_types[mt.pred], types):
            typed_tp += 1
    n_gold, n_pred, tp = len(gold.entities), len(pred_keys), len(matches)
    exact = sum(1 for mt in matches if mt.kind == "exact")
    unmatched_idx = [j for j in range(n_pred) if j not in gold_of]
    # Without entity gold, nothing predicted is right or wrong: every gold-based rate is undefined.
    has_entities = gold.has_entity_gold
    entities = EntityScores(
        precision=precision(tp, n_pred, n_gold) if has_entities else None,
        recall=recall(tp, n_gold) if has_entities else None,
        f1=f1(tp, n_pred, n_gold) if has_entities else None,
        strict_f1=f1(typed_tp, n_pred, n_gold) if has_entities else None,
        type_accuracy=ratio_or_none(typed_tp, tp) if has_entities else None,
        tp=tp,
        gold=n_gold,
        pred=n_pred,
        exact=exact,
        fuzzy=tp - exact,
        missed=[e.name for i, e in enumerate(gold.entities) if i not in matched_gold] if has_entities else [],
        unmatched=[pred_names[j] for j in unmatched_idx] if has_entities else [],
        typed_tp=typed_tp,
        annotated=has_entities,
    )

    # ---- grounding
    grounded = grounded_in(pred_keys, gold.text)
    n_grounded = sum(grounded)
    grounding = Grounding(
        grounded=n_grounded,
        ungrounded=n_pred - n_grounded,
        unverified=[pred_names[j] for j in unmatched_idx if grounded[j]],
        rate=ratio_or_none(n_grounded, n_pred),
    )

    # ---- relationships
    def pred_node(name: str, count: bool = True) -> Node:
        key = normalize_name(name)
        j = pred_pos.get(key)
        if j is not None:
            g = gold_of.get(j)
            return ("p", key) if g is None else ("g", g)
        dropped["undeclared_endpoints"] += count
        g = by_name.get(key, by_alias.get(key))
        return ("p", key) if g is None else ("g", g)

    def gold_node(name: str) -> Node:
        key = normalize_name(name)
        g = by_name.get(key, by_alias.get(key))
        return ("p", key) if g is None else ("g", g)

    def edge_key(s: Node, t: Node) -> Edge:
        return (s, t) if cfg.directed or s <= t else (t, s)

    pred_edges: dict[Edge, list[str]] = {}
    pred_dirs: dict[Edge, set[Edge]] = {}
    for rel in graph.relationships:
        if not rel.source.strip() or not rel.target.strip():
            dropped["blank_relationships"] += 1
            continue
        s, t = pred_node(rel.source), pred_node(rel.target)
        if s == t:
            dropped["self_loops"] += 1
            continue
        key = edge_key(s, t)
        if key in pred_edges:
            dropped["duplicate_relationships"] += 1
        else:
            pred_edges[key] = [rel.source, rel.target]
            pred_dirs[key] = set()
        pred_dirs[key].add((s, t))

    gold_edges: dict[Edge, list[str]] = {}
    gold_dirs: dict[Edge, set[Edge]] = {}
    required: dict[Edge, set[Edge]] = {}
    for grel in gold.relationships:
        s, t = gold_node(grel.source), gold_node(grel.target)
        if s == t:
            dropped["gold_self_loops"] += 1
            continue
        key = edge_key(s, t)
        if key not in gold_edges:
            gold_edges[key] = [grel.source, grel.target]
            gold_dirs[key] = set()
            required[key] = set()
        gold_dirs[key].add((s, t))
        if grel.directed:
            required[key].add((s, t))

    found: set[Node] = set()
    for j, name in enumerate(pred_keys):
        g = gold_of.get(j)
        found.add(("p", name) if g is None else ("g", g))

    hit: set[Edge] = set()
    directed_tp = endpoint_gold = endpoint_tp = 0
    for key in gold_edges:
        dirs = pred_dirs.get(key)
        ok = dirs is not None and (not required[key] or bool(required[key] & dirs))
        if ok:
            hit.add(key)
        if dirs is not None and gold_dirs[key] & dirs:
            directed_tp += 1
        if key[0] in found and key[1] in found:
            endpoint_gold += 1
            endpoint_tp += ok
    r_tp, r_gold, r_pred = len(hit), len(gold_edges), len(pred_edges)
    has_edges = gold.has_relationship_gold
    relationships = RelationshipScores(
        precision=precision(r_tp, r_pred, r_gold) if has_edges else None,
        recall=recall(r_tp, r_gold) if has_edges else None,
        f1=f1(r_tp, r_pred, r_gold) if has_edges else None,
        directed_recall=recall(directed_tp, r_gold) if has_edges else None,
        endpoint_recall=ratio_or_none(endpoint_tp, endpoint_gold) if has_edges else None,
        tp=r_tp,
        gold=r_gold,
        pred=r_pred,
        directed_tp=directed_tp,
        endpoint_gold=endpoint_gold,
        missed=[names for key, names in gold_edges.items() if key not in hit] if has_edges else [],
        unmatched=[names for key, names in pred_edges.items() if key not in hit] if has_edges else [],
        annotated=has_edges,
    )

    typed = _typed(gold, graph, cfg, pred_node, gold_node, edge_key) if has_typed_gold(gold) else None

    return CaseDetail(
        score=CaseScore(entities=entities, relationships=relationships, grounding=grounding, typed=typed),
        matches=_named_matches(gold, aligned),
        dropped=dropped,
    )


TypedEdge = tuple[Edge, str]


def _typed(
    gold: GoldCase,
    graph: ExtractedGraph,
    cfg: MatchingConfig,
    pred_node: Callable[[str, bool], Node],
    gold_node: Callable[[str], Node],
    edge_key: Callable[[Node, Node], Edge],
) -> TypedRelationshipScores:
    """Relationships matched on endpoints and canonical predicate (module docstring). Endpoints map
    exactly as for the endpoint scores; blank edges, self-loops and duplicates are left out alike."""
    table = predicates_of(cfg)

    pred_dirs: dict[TypedEdge, set[Edge]] = {}
    pred_names: dict[TypedEdge, list[str]] = {}
    for rel in graph.relationships:
        if not rel.source.strip() or not rel.target.strip():
            continue
        s, t = pred_node(rel.source, False), pred_node(rel.target, False)
        if s == t:
            continue
        key = (edge_key(s, t), canonical_predicate(rel.type, table))
        pred_names.setdefault(key, [rel.source, rel.type, rel.target])
        pred_dirs.setdefault(key, set()).add((s, t))

    gold_names: dict[TypedEdge, list[str]] = {}
    required: dict[TypedEdge, set[Edge]] = {}
    for grel in gold.relationships:
        s, t = gold_node(grel.source), gold_node(grel.target)
        if s == t:
            continue
        key = (edge_key(s, t), canonical_predicate(grel.type, table))
        gold_names.setdefault(key, [grel.source, grel.type, grel.target])
        required.setdefault(key, set())
        if grel.directed:
            required[key].add((s, t))

    hit = {
        key for key in gold_names
        if key in pred_dirs and (not required[key] or bool(required[key] & pred_dirs[key]))
    }
    tp, n_gold, n_pred = len(hit), len(gold_names), len(pred_names)
    return TypedRelationshipScores(
        precision=precision(tp, n_pred, n_gold),
        recall=recall(tp, n_gold),
        f1=f1(tp, n_pred, n_gold),
        tp=tp,
        gold=n_gold,
        pred=n_pred,
        missed=[names for key, names in gold_names.items() if key not in hit],
        unmatched=[names for key, names in pred_names.items() if key not in hit],
    )
