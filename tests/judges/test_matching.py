"""Semantic matching after exact/alias/fuzzy: questions only for open pairs, bounded, one-to-one."""

from __future__ import annotations

from harness.judges.matching import judged_match, open_pairs, question_id
from harness.metrics import get as get_metric
from harness.model import Entity, ExtractedGraph, GoldCase, GoldEntity, GoldRelationship, Relationship
from harness.scoring.case_score import score_case

GOLD = GoldCase(
    id="c", text="星河科技公司的系统管理员张伟维护邮件服务器。", annotated=True,
    entities=[GoldEntity(name="系统管理员"), GoldEntity(name="张伟"), GoldEntity(name="邮件服务器"),
              GoldEntity(name="Rust", aliases=["Rust lang"])],
    relationships=[GoldRelationship(source="张伟", target="系统管理员"), GoldRelationship(source="张伟", target="邮件服务器"),
                   GoldRelationship(source="Rust", target="邮件服务器")],
)
GRAPH = ExtractedGraph(
    entities=[Entity(name="System Admin"), Entity(name="Zhang Wei"), Entity(name="Mail Server"), Entity(name="Rust")],
    relationships=[Relationship(source="Zhang Wei", target="System Admin"), Relationship(source="Mail Server", target="Zhang Wei"),
                   Relationship(source="Rust", target="Mail Server")],
)


def _score():
    return score_case(GOLD, GRAPH)


def test_only_pairs_the_string_stages_left_open_are_asked() -> None:
    score = _score()
    assert score.entities.tp == 1  # Rust matched exactly: never asked about
    pairs, left_out = open_pairs(score, GOLD, max_candidates=5, max_questions=40)
    assert len(pairs) == 9 and left_out == 0
    assert all(gold != "Rust" and pred != "Rust" for gold, pred in pairs)


def test_candidates_and_questions_are_capped_and_the_rest_counted() -> None:
    score = _score()
    pairs, left_out = open_pairs(score, GOLD, max_candidates=2, max_questions=40)
    assert len(pairs) == 6 and left_out == 3
    pairs, left_out = open_pairs(score, GOLD, max_candidates=5, max_questions=4)
    assert len(pairs) == 4 and left_out == 5


def test_cross_lingual_verdicts_add_judged_matches_one_to_one() -> None:
    score = _score()
    verdicts = {("系统管理员", "System Admin"): "same", ("张伟", "Zhang Wei"): "same",
                ("张伟", "System Admin"): "same",  # System Admin is taken already: no second match
                ("邮件服务器", "Mail Server"): None}  # unreadable: n/a, never a match
    judged = judged_match(score, GOLD, verdicts, left_out=2)
    assert (judged.entity_tp, judged.entity_gold, judged.entity_pred) == (3, 4, 4)
    assert judged.left_out == 2
    assert [q.id for q in judged.questions][0] == question_id("系统管理员", "System Admin") == "entity: 系统管理员 = System Admin"
    assert [q.verdict for q in judged.questions] == ["same", "same", "same", None]
    # relationships: Zhang Wei -> System Admin meets both judged ends; Mail Server's end was n/a
    assert (judged.relationship_tp, judged.relationship_gold, judged.relationship_pred) == (score.relationships.tp + 1, 3, 3)


def test_judged_figures_beside_the_string_ones() -> None:
    score = _score()
    score.judged = judged_match(score, GOLD, {("系统管理员", "System Admin"): "same"}, left_out=0)
    recall = get_metric("judged_entity_recall")
    assert recall is not None and recall.value(score) == 2 / 4
    assert get_metric("entity_recall").value(score) == 1 / 4  # unchanged


def test_judged_figures_are_na_without_a_judge() -> None:
    score = _score()
    for name in ("judged_entity_precision", "judged_entity_recall", "judged_relationship_f1"):
        metric = get_metric(name)
        assert metric is not None and metric.value(score) is None


def test_a_case_without_entity_gold_asks_nothing() -> None:
    draft = GOLD.model_copy(update={"annotated": False})
    score = score_case(draft, GRAPH)
    assert open_pairs(score, draft, max_candidates=5, max_questions=40) == ([], 0)
    assert judged_match(score, draft, {}, 0).entity_tp is None
