"""(b) Faithfulness: is each extracted entity and relationship description supported by the
case's chunk? (`judge.faithfulness`, docs/judges.md)

Every entity and relationship of the row's graph with a description is one statement,
`NAME: description` or `SOURCE -> TARGET: description`, asked once per case (the first of
repeated items), entities first, at most `judge.max_questions` per case (the rest counted as
`left_out`). The question ids are what reviewers' `judgements:` name. The figures are the shares
of readable verdicts that say SUPPORTED (metrics/judged.py); an unreadable answer is n/a, in
neither count.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import ExtractedGraph, JudgedFaithfulness, JudgeVerdict, SupportQuestion


def entity_question(name: str) -> str:
    return f"entity description: {name}"


def relationship_question(source: str, target: str) -> str:
    return f"relationship description: {source} -> {target}"


def statements(graph: ExtractedGraph, max_questions: int) -> tuple[list[tuple[str, str, str]], int]:
    """(list, id, statement) of every description to ask about, in the answer's order ("entities"
    first, then "relationships"), and how many were left out by the cap."""
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for entity in graph.entities:
        qid = entity_question(entity.name)
        if entity.description.strip() and qid not in seen:
            seen.add(qid)
            found.append(("entities", qid, f"{entity.name}: {entity.description.strip()}"))
    for edge in graph.relationships:
        qid = relationship_question(edge.source, edge.target)
        if edge.description.strip() and qid not in seen:
            seen.add(qid)
            found.append(("relationships", qid, f"{edge.source} -> {edge.target}: {edge.description.strip()}"))
    return found[:max_questions], max(0, len(found) - max_questions)


def judged_faithfulness(asked: Sequence[tuple[str, str, str]], verdicts: Sequence[JudgeVerdict | None],
                        left_out: int) -> JudgedFaithfulness:
    """The case's questions with the judge's verdicts, in asking order."""
    result = JudgedFaithfulness(left_out=left_out)
    for (where, qid, statement), verdict in zip(asked, verdicts):
        getattr(result, where).append(SupportQuestion(id=qid, statement=statement, verdict=verdict))
    return result
