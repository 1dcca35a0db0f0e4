"""What scoring sets aside is kept in the case score (and so in results.jsonl)."""

from harness.model import Entity, ExtractedGraph, GoldCase, GoldEntity, GoldRelationship, Relationship
from harness.scoring import score_case


def test_dropped_counts_are_part_of_the_score():
    gold = GoldCase(id="x", text="A met B", entities=[GoldEntity(name="A"), GoldEntity(name="B")],
                    relationships=[GoldRelationship(source="A", target="B")])
    graph = ExtractedGraph(
        entities=[Entity(name="A"), Entity(name="a"), Entity(name="B")],
        relationships=[Relationship(source="A", target="A"), Relationship(source="A", target="B"),
                       Relationship(source="B", target="A")],
    )
    dropped = score_case(gold, graph).dropped
    assert dropped["duplicate_entities"] == 1
    assert dropped["duplicate_relationships"] == 1
    assert dropped["self_loops"] == 1
