"""`--agreement OTHER.yaml`: how far two reviewers' gold for the same cases agree.

The suite's gold (its side file's cases, or its own) is the reference and OTHER's entities and
relationships are scored against it with the harness's scoring (`scoring.score_case`: the same
normalisation, alias and fuzzy matching, the suite's `matching:`): entity F1 and relationship F1
per case and pooled over the cases (micro: summed tp, gold and predicted counts). F1 is symmetric
in the two sides' counts; only aliases are read from the reference side (OTHER's names are
matched against the reference names and aliases). A case listed in only one of the two, or
without gold on the reference side, is reported and not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..metrics.ratios import f1
from ..model import Entity, ExtractedGraph, GoldCase, MatchingConfig, Relationship
from .gold_file import GoldFileCase


@dataclass
class CaseAgreement:
    case_id: str
    entity_f1: float | None
    relationship_f1: float | None
    entities: tuple[int, int, int]  # (tp, reference, other)
    relationships: tuple[int, int, int]


@dataclass
class Agreement:
    cases: list[CaseAgreement] = field(default_factory=list)
    only_reference: list[str] = field(default_factory=list)  # cases with gold in the suite only
    only_other: list[str] = field(default_factory=list)  # cases in OTHER only

    def pooled(self, kind: str) -> float | None:
        tp = sum(getattr(c, kind)[0] for c in self.cases)
        ref = sum(getattr(c, kind)[1] for c in self.cases)
        other = sum(getattr(c, kind)[2] for c in self.cases)
        return f1(tp, other, ref)


def _as_graph(case: GoldFileCase) -> ExtractedGraph:
    return ExtractedGraph(
        entities=[Entity(name=e.name, type=e.type) for e in case.entities],
        relationships=[Relationship(source=r.source, target=r.target, type=r.type) for r in case.relationships])


def agreement(reference: list[GoldCase], other: list[GoldFileCase], matching: MatchingConfig) -> Agreement:
    from ..scoring import score_case

    ref = {case.id: case for case in reference if case.has_entity_gold or case.has_relationship_gold}
    result = Agreement()
    other_ids = {case.id for case in other}
    for case in other:
        gold = ref.get(case.id)
        if gold is None:
            result.only_other.append(case.id)
            continue
        # the other side is complete gold too: its empty list means "none here"
        score = score_case(gold.model_copy(update={"annotated": True}), _as_graph(case), matching)
        ent, rel = score.entities, score.relationships
        result.cases.append(CaseAgreement(case.id, ent.f1, rel.f1, (ent.tp, ent.gold, ent.pred),
                                          (rel.tp, rel.gold, rel.pred)))
    result.only_reference = [case_id for case_id in ref if case_id not in other_ids]
    return result
