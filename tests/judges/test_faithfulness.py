"""(b) Faithfulness: which descriptions are asked, the cap, and the figures from hand-written verdicts."""

from __future__ import annotations

import pytest

from harness.judges.faithfulness import judged_faithfulness, statements
from harness.judges.verdict import read_support
from harness.metrics import get as get_metric
from harness.model import CaseScore, Entity, ExtractedGraph, GoldCase, Relationship, check_judgements
from harness.scoring.case_score import score_case

GRAPH = ExtractedGraph(
    entities=[Entity(name="Zhang Wei", description="System administrator"), Entity(name="Mail Server"),
              Entity(name="Li Na", description="Technical director"), Entity(name="Zhang Wei", description="again")],
    relationships=[Relationship(source="Zhang Wei", target="Mail Server", description="restored it"),
                   Relationship(source="Li Na", target="Mail Server")],
)


def test_every_described_item_is_one_statement_entities_first_repeats_once() -> None:
    asked, left_out = statements(GRAPH, 40)
    assert asked == [
        ("entities", "entity description: Zhang Wei", "Zhang Wei: System administrator"),
        ("entities", "entity description: Li Na", "Li Na: Technical director"),
        ("relationships", "relationship description: Zhang Wei -> Mail Server", "Zhang Wei -> Mail Server: restored it"),
    ]
    assert left_out == 0
    assert statements(GRAPH, 2) == (asked[:2], 1)


@pytest.mark.parametrize(("text", "verdict"), [("SUPPORTED", "supported"), ("**Unsupported**: no", "unsupported"),
                                                ("yes", "supported"), ("No.", "unsupported"),
                                                ("Not supported", None), ("", None), ("Partly", None)])
def test_read_support(text: str, verdict: str | None) -> None:
    assert read_support(text) == verdict


def _score(verdicts: list[str | None]) -> CaseScore:
    score = score_case(GoldCase(id="c", text="t"), GRAPH)
    asked, left_out = statements(GRAPH, 40)
    score.faithful = judged_faithfulness(asked, verdicts, left_out)  # type: ignore[arg-type]
    return score


def test_faithfulness_figures_from_hand_written_verdicts() -> None:
    score = _score(["supported", "unsupported", "supported"])
    assert get_metric("judged_entity_faithfulness").value(score) == pytest.approx(1 / 2)
    assert get_metric("judged_relationship_faithfulness").value(score) == pytest.approx(1.0)


def test_an_unreadable_verdict_counts_nowhere_and_none_readable_is_na() -> None:
    score = _score([None, "unsupported", None])
    assert get_metric("judged_entity_faithfulness").value(score) == pytest.approx(0.0)  # 1 readable, unsupported
    assert get_metric("judged_relationship_faithfulness").value(score) is None  # nothing readable: n/a, never 0
    assert get_metric("judged_entity_faithfulness").value(score_case(GoldCase(id="c", text="t"), GRAPH)) is None


def test_reviewer_verdicts_are_checked_per_question_family() -> None:
    assert check_judgements({"entity description: A": "supported", "entity: A = B": "same", "pairwise: a vs b": "a"})
    with pytest.raises(ValueError, match="not one of supported, unsupported"):
        check_judgements({"relationship description: A -> B": "same"})
    with pytest.raises(ValueError, match="is no judge question"):
        check_judgements({"entity A = B": "same"})
