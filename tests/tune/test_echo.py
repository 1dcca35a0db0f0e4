"""What of a tuning answer repeats the tuning question (harness/tune/echo.py)."""

from __future__ import annotations

import pytest

from harness.tune.echo import SHAPE, echo, item_key, shape_words
from harness.tune.steps import own_text


def test_shape_words_are_read_from_the_question_itself() -> None:
    assert shape_words('Answer with JSON only: {"entity_types": ["type", ...]}') == {
        "entity_types", "entity_type", "entity", "entitys", "entities", "types", "type"}
    assert shape_words("No JSON shape here: \"You are\" is quoted but no shape") == frozenset()
    # the entity-types question as tune asks it
    assert {"type", "entity_types"} <= shape_words(own_text("entity-types"))


@pytest.mark.parametrize("item", ["type", "TYPE", "<type>", '"type"', "Entity Types", "entity-type", "types"])
def test_shape_words_in_any_spelling(item: str) -> None:
    assert echo(item, own_text("entity-types")) == SHAPE


@pytest.mark.parametrize("item", ["person", "prototype", "blood_type", "typeface", "entity_resolution_tool", "..."])
def test_other_words_are_not_echoes(item: str) -> None:
    assert echo(item, own_text("entity-types")) is None


def test_own_text_holds_no_sample_nor_earlier_answer() -> None:
    assert "Passage 1" not in own_text("domain") and "technology podcasts" in own_text("domain")
    assert own_text("rating").count("public health") == 1  # its example, without persona or domain
    assert item_key(" Lower-case Types ") == "lower_case_types"
