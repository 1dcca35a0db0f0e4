"""Ontology conformance of one answer: its relationships against the suite's `ontology:`, no gold needed.

Definitions (also in docs/scoring.md, "Ontology conformance"):

- Counted over relationship **records** with both endpoints non-blank, duplicates included (as type
  conformance counts entity records, and as Text2KGBench counts every predicted triple): a model
  that repeats an off-ontology triple is penalised each time it says it.
- A record conforms when its canonical predicate (`normalize_predicate`, then the suite's
  `predicate_synonyms`) is the canonical form of an ontology relation's name. A record with no
  predicate (GraphRAG and LightRAG write none) does not conform.
- Domain/range: over conforming records whose relation declares a domain or a range, a record is
  right when its subject's type matches the domain and its object's type the range (each only where
  declared). An endpoint's type is the predicted entity's (its first non-empty type, by normalised
  name, as scoring de-duplicates); types compare after `normalize_type` and the suite's
  `type_synonyms`. A record is checked only when the answer types every endpoint a declaration
  constrains: plain triples (`(s, p, o)`, no types) leave domain/range n/a rather than 0, and an
  answer that omits types already loses type conformance. When two ontology relations share a
  name, matching either is enough (and if either declares neither a domain nor a range, the record
  is not checked).
"""

from __future__ import annotations

from ..model import ExtractedGraph, MatchingConfig, Ontology, OntologyScores
from ..metrics.ratios import ratio_or_none
from .normalize import canonical_predicate, canonical_type, normalize_name, predicate_table, type_table
from .predicted import predicted_entities


def ontology_types(ontology: Ontology) -> list[str]:
    """The types type conformance checks against: the ontology's `entity_types`, or, when it lists
    none, the types its relations name as domain or range (it still says which types it joins);
    in order, without repeats."""
    named = [*ontology.entity_types]
    if not any(t.strip() for t in named):
        for relation in ontology.relations:
            named.extend(t for t in (relation.domain, relation.range) if t)
    return list(dict.fromkeys(t for t in named if t.strip()))


def ontology_scores(graph: ExtractedGraph, ontology: Ontology, matching: MatchingConfig) -> OntologyScores:
    """The ontology figures of one extracted graph (module docstring)."""
    predicates = predicate_table(matching.predicate_synonyms)
    types = type_table(matching.type_synonyms)
    # canonical relation name -> the (domain, range) pairs declared for it, canonical, "" = not declared
    relations: dict[str, list[tuple[str, str]]] = {}
    for relation in ontology.relations:
        relations.setdefault(canonical_predicate(relation.name, predicates), []).append(
            (canonical_type(relation.domain or "", types), canonical_type(relation.range or "", types))
        )
    predicted = predicted_entities(graph.entities)
    type_of = {key: canonical_type(kind, types) for key, kind in zip(predicted.keys, predicted.types)}

    records = conforming = checked = right = 0
    for rel in graph.relationships:
        if not rel.source.strip() or not rel.target.strip():
            continue
        records += 1
        declared = relations.get(canonical_predicate(rel.type, predicates))
        if declared is None:
            continue
        conforming += 1
        constrained = [(d, r) for d, r in declared if d or r]
        if not constrained or len(constrained) < len(declared):  # a declaration without either: nothing to check
            continue
        subject = type_of.get(normalize_name(rel.source), "")
        obj = type_of.get(normalize_name(rel.target), "")
        if any((d and not subject) or (r and not obj) for d, r in constrained):
            continue  # an endpoint the answer gives no type for: nothing to compare (module docstring)
        checked += 1
        right += any(
            (not d or subject == d) and (not r or obj == r) for d, r in constrained
        )
    return OntologyScores(
        records=records,
        conforming=conforming,
        conformance=ratio_or_none(conforming, records),
        checked=checked,
        domain_range_ok=right,
        domain_range=ratio_or_none(right, checked),
    )
