"""(a) Semantic matching: the questions for the pairs exact/alias/fuzzy left open, and the counts
with the judged matches added.

Candidates are bounded: each open gold entity of a case is asked about against at most
`max_candidates` open predicted entities of the same case (in the answer's order), and a case puts
at most `max_questions`; the pairs not asked are counted (`JudgedMatch.left_out`). A judged match
is one-to-one: each open gold entity takes the first open predicted one judged SAME and not taken.
An open gold relationship is matched by an open predicted one whose endpoints each equal the gold
endpoint (a name or alias, normalized) or were judged SAME with it: relationships cost no calls
of their own, and their figures stand on the entity verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import CaseScore, GoldCase, JudgedMatch, JudgeQuestion, JudgeVerdict
from ..scoring.normalize import normalize_name


def question_id(gold: str, pred: str) -> str:
    """What a reviewer's `judgements:` entry names (docs/judges.md)."""
    return f"entity: {gold} = {pred}"


def open_pairs(score: CaseScore, case: GoldCase, *, max_candidates: int,
               max_questions: int) -> tuple[list[tuple[str, str]], int]:
    """(gold, predicted) pairs to ask about, and how many open pairs were left out by the caps."""
    if not case.has_entity_gold:
        return [], 0
    gold_open, pred_open = score.entities.missed, score.entities.unmatched
    asked: list[tuple[str, str]] = []
    left_out = 0
    for gold in gold_open:
        for index, pred in enumerate(pred_open):
            if index >= max_candidates or len(asked) >= max_questions:
                left_out += 1
            else:
                asked.append((gold, pred))
    return asked, left_out


def judged_match(score: CaseScore, case: GoldCase, verdicts: Mapping[tuple[str, str], JudgeVerdict | None],
                 left_out: int) -> JudgedMatch:
    """The case's judged counts from the string stage's and the judge's verdicts on `open_pairs`."""
    questions = [JudgeQuestion(id=question_id(g, p), gold=g, pred=p, verdict=v) for (g, p), v in verdicts.items()]
    same = {pair for pair, verdict in verdicts.items() if verdict == "same"}
    taken: set[str] = set()
    judged_entities = 0
    for gold in score.entities.missed:
        for pred in score.entities.unmatched:
            if (gold, pred) in same and pred not in taken:
                taken.add(pred)
                judged_entities += 1
                break
    result = JudgedMatch(questions=questions, left_out=left_out)
    e = score.entities
    if case.has_entity_gold:
        result.entity_tp, result.entity_gold, result.entity_pred = e.tp + judged_entities, e.gold, e.pred
    r = score.relationships
    if r.annotated and r.gold:
        result.relationship_tp = r.tp + _judged_edges(r.missed, r.unmatched, case, same)
        result.relationship_gold, result.relationship_pred = r.gold, r.pred
    return result


def _judged_edges(gold_open: list[list[str]], pred_open: list[list[str]], case: GoldCase,
                  same: set[tuple[str, str]]) -> int:
    spellings = {e.name: {normalize_name(n) for n in (e.name, *e.aliases)} for e in case.entities}

    def ends_meet(gold: str, pred: str) -> bool:
        return normalize_name(pred) in spellings.get(gold, {normalize_name(gold)}) or (gold, pred) in same

    taken: set[int] = set()
    found = 0
    for gs, gt in (tuple(edge) for edge in gold_open):
        for index, (ps, pt) in enumerate(tuple(edge) for edge in pred_open):
            if index in taken:
                continue
            if (ends_meet(gs, ps) and ends_meet(gt, pt)) or (ends_meet(gs, pt) and ends_meet(gt, ps)):
                taken.add(index)
                found += 1
                break
    return found
