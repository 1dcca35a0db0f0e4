"""Gold proposed from a run: per case, the union of the chosen variants' extractions, merged.

Entities are merged through the scoring's own matching (`scoring.align.align` over
`scoring.normalize.normalize_name` keys, with the suite's `matching.fuzzy_threshold`), variant by
variant in the order given: each variant's de-duplicated entities are aligned one-to-one with the
proposals so far (exact name, then alias, then fuzzy); what aligns joins that proposal, the rest
become new proposals. Before aligning, a leading title (Dr, Mr, Mrs, Ms, Prof, Sir, Dame) is set
aside, so "Dr. Ana Ruiz" and "ANA RUIZ" are one proposal. A proposal's name is the spelling the
chunk writes verbatim, then the one the most variants used (ties: grounded, then first seen), and a
name the chunk writes in another letter case is given as the chunk writes it (GraphRAG answers in
capitals); its other spellings with a different normalised key become aliases.

Each proposal records the variants that found it (`found_by`), whether it is grounded (one of its
spellings occurs in the chunk as the reference-free figures count it: `scoring.predicted.grounded_in`)
and its type votes (one per variant: its first non-empty type, canonical through the suite's
`type_synonyms`); its type is the type with most votes (ties: the first given).

Relationships are merged by their mapped endpoints (unordered unless `matching.directed`) and,
when a variant writes a predicate, its canonical predicate (`predicate_synonyms`); self-loops and
relationships with an endpoint no variant declared as an entity are left out (counted).
Only sample 0 of a repeated run is read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..model import CaseResult, ExtractedGraph, GoldCase, MatchingConfig
from ..scoring.align import align
from ..scoring.normalize import canonical_predicate, canonical_type, normalize_name, predicate_table, type_table
from ..scoring.predicted import grounded_in, predicted_entities
from .gold_file import GoldFileCase, ProposedEntity, ProposedRelationship

TITLES: frozenset[str] = frozenset({"dr", "mr", "mrs", "ms", "prof", "professor", "sir", "dame"})


def merge_key(name: str) -> str:
    """The normalised name without a leading title (`Dr. Ana Ruiz` -> `ana ruiz`)."""
    key = normalize_name(name)
    tokens = key.split(" ")
    if len(tokens) > 1 and tokens[0] in TITLES:
        return " ".join(tokens[1:])
    return key


@dataclass
class _Proposal:
    spellings: list[str] = field(default_factory=list)  # as predicted, first seen first
    spelling_votes: Counter[str] = field(default_factory=Counter)
    keys: list[str] = field(default_factory=list)  # distinct merge keys, first seen first
    found_by: list[str] = field(default_factory=list)
    type_votes: Counter[str] = field(default_factory=Counter)
    type_order: list[str] = field(default_factory=list)

    def add(self, spelling: str, variant: str, entity_type: str) -> None:
        if spelling not in self.spellings:
            self.spellings.append(spelling)
        self.spelling_votes[spelling] += 1
        key = merge_key(spelling)
        if key not in self.keys:
            self.keys.append(key)
        if variant not in self.found_by:
            self.found_by.append(variant)
            if entity_type:
                self.type_votes[entity_type] += 1
                if entity_type not in self.type_order:
                    self.type_order.append(entity_type)


@dataclass
class CaseProposal:
    case: GoldFileCase
    dangling: int = 0  # relationships left out: an endpoint no variant declared
    self_loops: int = 0


def _pick(candidates: list[str], votes: Counter[str], grounded: dict[str, bool], text: str) -> str:
    """Written as in the chunk, then most votes, then grounded, then first; a name the chunk writes
    in another case (GraphRAG answers in capitals) is given as the chunk writes it."""
    best = max(candidates, key=lambda s: (s in text, votes[s], grounded.get(s, False), -candidates.index(s)))
    if best not in text:
        found = re.search(re.escape(best), text, flags=re.IGNORECASE)
        if found is not None and normalize_name(found.group(0)) == normalize_name(best):
            return found.group(0)
    return best


def propose_case(case: GoldCase, graphs: dict[str, ExtractedGraph], matching: MatchingConfig) -> CaseProposal:
    """The proposal for one case from each variant's graph (variant -> graph, in the order given)."""
    types = type_table(matching.type_synonyms)
    predicates = predicate_table(matching.predicate_synonyms)
    proposals: list[_Proposal] = []
    owner: dict[tuple[str, str], int] = {}  # (variant, normalised name) -> proposal index
    for variant, graph in graphs.items():
        found = predicted_entities(graph.entities)
        keys = [merge_key(name) for name in found.names]
        distinct = list(dict.fromkeys(keys))
        matches = align([p.keys for p in proposals], distinct, matching.fuzzy_threshold)
        target = {distinct[m.pred]: m.gold for m in matches}
        for key in distinct:
            if key not in target:
                target[key] = len(proposals)
                proposals.append(_Proposal())
        for name, key, norm, entity_type in zip(found.names, keys, found.keys, found.types):
            index = target[key]
            proposals[index].add(name, variant, canonical_type(entity_type, types) if entity_type.strip() else "")
            owner[(variant, norm)] = index

    spellings = [s for p in proposals for s in p.spellings]
    grounded = dict(zip(spellings, grounded_in([normalize_name(s) for s in spellings], case.text)))
    names: list[str] = []
    entities: list[ProposedEntity] = []
    used: set[str] = set()
    for p in proposals:
        name = _pick(p.spellings, p.spelling_votes, grounded, case.text)
        aliases: list[str] = []
        spelled = {normalize_name(name)}
        for spelling in p.spellings:
            if normalize_name(spelling) not in spelled and spelling not in used:
                spelled.add(normalize_name(spelling))
                aliases.append(spelling)
        used.update([name, *aliases])
        entity_type = max(p.type_order, key=lambda t: (p.type_votes[t], -p.type_order.index(t))) if p.type_order else ""
        names.append(name)
        entities.append(ProposedEntity(name=name, type=entity_type, aliases=aliases, found_by=p.found_by,
                                       grounded=any(grounded[s] for s in p.spellings),
                                       type_votes=dict(sorted(p.type_votes.items(), key=lambda kv: -kv[1]))))

    relationships: dict[tuple[tuple[int, int], str], ProposedRelationship] = {}
    dangling = self_loops = 0
    for variant, graph in graphs.items():
        for rel in graph.relationships:
            start = owner.get((variant, normalize_name(rel.source)))
            end = owner.get((variant, normalize_name(rel.target)))
            if start is None or end is None:
                dangling += 1
                continue
            if start == end:
                self_loops += 1
                continue
            pair = (start, end) if matching.directed else (min(start, end), max(start, end))
            predicate = canonical_predicate(rel.type, predicates) if rel.type.strip() else ""
            rel_key = (pair, predicate)
            found_rel = relationships.get(rel_key)
            if found_rel is None:
                relationships[rel_key] = ProposedRelationship(
                    source=names[start], target=names[end], type=predicate, description=rel.description,
                    found_by=[variant], grounded=bool(entities[start].grounded and entities[end].grounded))
            elif variant not in found_rel.found_by:
                found_rel.found_by.append(variant)
    gold = GoldFileCase(id=case.id, review="pending", entities=entities, relationships=list(relationships.values()))
    return CaseProposal(gold, dangling=dangling, self_loops=self_loops)


def graphs_by_case(rows: list[CaseResult], variants: list[str]) -> dict[str, dict[str, ExtractedGraph]]:
    """case id -> variant -> graph, from sample 0 of each row of the chosen variants (in their order);
    rows with an error have no answer and are left out. A suite naming its engine proposes from the
    graph the harness recovered, not the engine's: gold says what the text holds, as the model
    wrote it, whatever that engine would lose or rename."""
    found: dict[str, dict[str, ExtractedGraph]] = {}
    for variant in variants:
        for row in rows:
            if row.variant == variant and row.sample == 0 and row.error is None:
                found.setdefault(row.case_id, {})[variant] = row.graph if row.recovered is None else row.recovered.graph
    return found


def graphs_of_runs(runs: list[tuple[str, list[CaseResult]]], variants: list[str]
                   ) -> dict[str, dict[str, ExtractedGraph]]:
    """`graphs_by_case` over several runs (name, rows), merged: case id -> voter -> graph. A
    variant only one run holds votes under its name; a variant several runs hold votes once per
    run, as `variant@run` (two runs of one variant are two answers, and neither replaces the other)."""
    holders = {variant: [name for name, rows in runs if any(row.variant == variant for row in rows)]
               for variant in variants}
    merged: dict[str, dict[str, ExtractedGraph]] = {}
    for name, rows in runs:
        for case_id, graphs in graphs_by_case(rows, variants).items():
            for variant, graph in graphs.items():
                voter = variant if len(holders[variant]) < 2 else f"{variant}@{name}"
                merged.setdefault(case_id, {})[voter] = graph
    # each case's voters in the order variants are given, then runs
    order = {voter: index for index, voter in enumerate(
        v if len(holders[v]) < 2 else f"{v}@{name}" for v in variants for name in holders[v])}
    return {case_id: dict(sorted(graphs.items(), key=lambda item: order[item[0]])) for case_id, graphs in merged.items()}
