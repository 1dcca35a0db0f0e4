"""Description summaries scored against their descriptions, with numbers worked out by hand."""

from __future__ import annotations

from harness.model import GoldCase
from harness.scoring.summary_score import (
    DEFAULT_MAX_LENGTH, content_words, count_words, names_entity, person_words, score_summary, split_facts,
)

ACME = GoldCase(
    id="acme", text="[]", entity_name="ACME", max_length=10,
    descriptions=["Acme makes rockets in Ohio.", "Acme was founded in 1990; it employs 200 people."],
    facts=["Acme makes rockets", "Acme builds 200 engines"],
)
SUMMARY = "Acme makes rockets in Ohio. It was founded in 1990. We think Acme is the best."


def test_the_worked_example_of_docs_scoring() -> None:
    score = score_summary(ACME, SUMMARY)
    # words: "Acme makes rockets in Ohio" 5 + "It was founded in 1990" 5 + "We think Acme is the best" 6 = 16 > 10
    assert (score.words, score.max_length, score.within_length) == (16, 10, False)
    assert score.names_entity and not score.third_person and score.first_or_second_person == ["we"]
    # description facts (name words and stopwords out, stemmed): {make, rocket, ohio}, {found, 1990} (the
    # clause before ';'), {employ, 200, peopl}; the summary holds all of the first two, none of the third
    assert (score.description_facts, score.facts_kept) == (3, 2)
    assert score.dropped_facts == ["it employs 200 people."]
    # summary facts: {make, rocket, ohio} 3/3 and {found, 1990} 2/2 in the descriptions; {think, best} 0/2: added
    assert (score.summary_facts, score.facts_added) == (3, 1)
    assert score.added_facts == ["We think Acme is the best."]
    # gold: {make, rocket} 2/2 found; {build, 200, engin} has 200 (1/3, under two thirds): 1 of 2
    assert (score.gold_facts, score.gold_facts_found) == (2, 1)


def test_a_case_without_max_length_is_held_to_graphrags_default() -> None:
    score = score_summary(ACME.model_copy(update={"max_length": None}), SUMMARY)
    assert (score.max_length, score.within_length) == (DEFAULT_MAX_LENGTH, True)  # 16 <= 500


def test_facts_repeated_across_descriptions_count_once() -> None:
    case = ACME.model_copy(update={"descriptions": ["Acme makes rockets.", "ACME makes rockets!", "Rockets, Acme makes."]})
    # all three are {make, rocket}: one fact, kept by a summary that says it once
    score = score_summary(case, "Acme makes rockets.")
    assert (score.description_facts, score.facts_kept, score.summary_facts, score.facts_added) == (1, 1, 1, 0)


def test_sentences_and_clauses() -> None:
    assert split_facts("J. Smith runs it. It costs 2.5 million; it grew. 它很大。好！") == [
        "J. Smith runs it.", "It costs 2.5 million", "it grew.", "它很大", "好"]
    assert content_words("The founders were founding a foundation", leave_out={"founders"}) == {"found", "foundat"}


def test_cjk_characters_count_as_words_and_content_words() -> None:
    assert count_words("发作性睡病是一种 chronic disorder") == 8 + 2
    assert content_words("睡病") == {"睡", "病"}


def test_the_entity_is_named_as_names_are_normalised() -> None:
    assert names_entity("“Acme” builds rockets.", ["ACME"])
    assert not names_entity("Acmes build rockets.", ["ACME"])  # whole words only
    assert names_entity("Ana met Bo in Lisbon.", ["ANA", "BO"]) and not names_entity("Ana left.", ["ANA", "BO"])
    assert names_entity("发作性睡病是一种病", ["发作性睡病"])


def test_a_relationship_case_must_name_both_ends() -> None:
    pair = ACME.model_copy(update={"entity_name": '["ACME", "OHIO"]'})
    assert score_summary(pair, "Acme makes rockets in Ohio.").names_entity
    assert not score_summary(pair, "Acme makes rockets.").names_entity


def test_first_and_second_person() -> None:
    assert person_words("Acme is a US company; I think you know it.") == ["i", "you"]  # "US" is the country
    assert person_words("Acme sold it to us.") == ["us"]
    assert person_words("Acme vende cohetes; nosotros no.", "Spanish") == ["nosotros"]
    assert person_words("我们认为它很好。") == ["我们"]
    assert person_words("Acme builds rockets for its customers.") == []


def test_an_empty_summary_keeps_nothing_and_names_nothing() -> None:
    score = score_summary(ACME, "")
    assert (score.words, score.summary_facts, score.facts_kept, score.names_entity, score.third_person) == (0, 0, 0, False, True)
