"""The tuning questions' answers: what is accepted, reduced, or refused with a hint."""

from __future__ import annotations

import pytest

from harness.errors import ModelCallError
from harness.tune.steps import (
    clean_entity_types,
    clean_language,
    clean_line,
    clean_persona,
    clean_rating,
    domain_prompt,
    entity_types_prompt,
    language_prompt,
    persona_prompt,
    rating_prompt,
)


def test_language_sentences_are_reduced_or_refused() -> None:
    assert clean_language("Spanish") == ("Spanish", None)
    assert clean_language("english.") == ("English", None)
    name, note = clean_language("The primary language of the provided text is Chinese.")
    assert name == "Chinese" and note and "reduced" in note
    with pytest.raises(ModelCallError, match="--language"):
        clean_language("It is hard to say; the passages mix several scripts and registers.")
    with pytest.raises(ModelCallError):
        clean_language("The text mixes English and Spanish.")  # two names: no guess


def test_domain_must_be_a_short_phrase() -> None:
    assert clean_line('Domain: "Clinical pharmacology."', "domain") == "Clinical pharmacology"
    with pytest.raises(ModelCallError, match="--domain"):
        clean_line("I'm sorry, I cannot determine the domain", "domain")
    with pytest.raises(ModelCallError):
        clean_line("This is a long answer " * 5, "domain")


def test_persona_must_address_the_expert() -> None:
    assert clean_persona('Persona: You are an  editor.\n').startswith("You are an editor")
    for bad in ("An editor who maps towns.", "You are " + "very " * 130, "You are... I'm sorry, I cannot help."):
        with pytest.raises(ModelCallError):
            clean_persona(bad)


def test_rating_must_describe_both_ends_of_the_scale() -> None:
    text = clean_rating("Rating: A score between 0 and 10 for impact on patients, 0 trivial, 10 national policy.")
    assert text.startswith("A score") and "10" in text
    for bad in ("A score of how important it is.", "I'm sorry, I cannot rate 0 to 10.", "From 0 to 10 {x}"):
        with pytest.raises(ModelCallError):
            clean_rating(bad)


def test_entity_types_are_normalised_deduplicated_and_capped() -> None:
    types, notes = clean_entity_types('{"entity_types": ["Person", "person", "Org Unit", " ", "geo"]}', cap=2)
    assert types == ["person", "org_unit"]
    assert any("duplicate" in n for n in notes) and any("first 2" in n for n in notes)
    assert any("empty" in n for n in notes)


def test_plurals_fold_only_into_a_listed_singular() -> None:
    types, notes = clean_entity_types('{"entity_types": ["organizations", "organization", "news", "companies", "company"]}')
    assert types == ["organization", "news", "company"]
    assert sum("plural" in n for n in notes) == 2


@pytest.mark.parametrize("answer", [
    '```json\n{"entity_types": ["person", "drug"]}\n```',
    '<think>types?</think>{"entity_types": ["person", "drug"]}',
    'Here are the types: {"entity_types": ["person", "drug"],}',  # prose and a trailing comma
    '["person", "drug"]',
    '{"types": [{"name": "person"}, {"name": "drug"}]}',
])
def test_entity_types_survive_json_mode_being_ignored(answer: str) -> None:
    assert clean_entity_types(answer)[0] == ["person", "drug"]


@pytest.mark.parametrize("answer", ["person, place", '{"entity_types": "person"}', '{"entity_types": []}', ""])
def test_unusable_entity_types_are_refused(answer: str) -> None:
    with pytest.raises(ModelCallError):
        clean_entity_types(answer)


def test_every_question_names_its_task_and_carries_the_samples() -> None:
    texts = ["Alpha passage " * 200, "Beta passage"]
    prompts = {"domain": domain_prompt(texts), "language": language_prompt(texts),
               "persona": persona_prompt("regional news"), "rating": rating_prompt("regional news", "You are x.", texts),
               "entity-types": entity_types_prompt("regional news", texts)}
    for task, prompt in prompts.items():
        assert prompt.startswith(f"TASK: {task}\n")
    assert "Beta passage" in prompts["domain"] and len(prompts["domain"]) < 3000  # samples are cut


def test_reasoning_blocks_and_fences_are_not_part_of_the_answer() -> None:
    assert clean_line("<think>Passages about drugs... maybe pharmacology?</think>\nClinical pharmacology", "domain") \
        == "Clinical pharmacology"
    assert clean_language("<think>Could be Spanish or Catalan.</think>Spanish") == ("Spanish", None)
    assert clean_persona("```\nYou are a pharmacologist.\n```") == "You are a pharmacologist."
    with pytest.raises(ModelCallError):  # reasoning that never ends is no answer
        clean_line("<think>The domain could be", "domain")


@pytest.mark.parametrize(("answer", "name"), [("Español", "Spanish"), ("中文", "Chinese"), ("**German**", "German")])
def test_native_and_decorated_language_names(answer: str, name: str) -> None:
    assert clean_language(answer)[0] == name


@pytest.mark.parametrize("answer", ["Not sure", "Unknown", "Mixed", "N/A"])
def test_short_non_answers_are_not_languages(answer: str) -> None:
    with pytest.raises(ModelCallError):
        clean_language(answer)


# ---------------------------------------------------------------- issue 28: answers that copy the question


def test_a_type_that_echoes_the_answer_shape_is_dropped_with_a_note() -> None:
    # both real models answered `"type"`, echoing {"entity_types": ["type", ...]}
    types, notes = clean_entity_types('{"entity_types": ["type", "person", "Entity_Types", "podcast"]}')
    assert types == ["person", "podcast"]
    assert notes == ["dropped 'type': a word of the tuning prompt's answer shape",
                     "dropped 'Entity_Types': a word of the tuning prompt's answer shape"]


def test_a_type_that_echoes_the_instructions_is_dropped_unless_the_samples_say_it() -> None:
    types, notes = clean_entity_types('{"entity_types": ["short lower-case general types", "person"]}')
    assert types == ["person"] and "a repeat of the tuning prompt's own text" in notes[0]
    # a phrase the sample passages hold is theirs, though the question says it too
    given = "Passage 1:\nThe style guide asks for short lower-case general types of type."
    assert clean_entity_types('{"entity_types": ["general types", "short lower-case general types"]}',
                              given=given)[0] == ["general_types", "short_lower_case_general_types"]
    # the question's own example types are good answers
    assert clean_entity_types('{"entity_types": ["person", "organization", "location"]}') == (
        ["person", "organization", "location"], [])


def test_every_type_an_echo_is_refused_as_an_empty_list_is() -> None:
    with pytest.raises(ModelCallError, match=r"no usable type \(dropped 'type': a word of the tuning prompt's "
                                             r"answer shape\); give them with --entity-types"):
        clean_entity_types('{"entity_types": ["type", "..."]}')


def test_the_rating_example_copied_word_for_word_is_refused() -> None:
    # a 0.5B model's rating description for a technology podcast
    copied = ("A float score between 0 and 10 for how much the community affects public health, 0 being trivial "
              "and 10 being a matter of national policy.")
    with pytest.raises(ModelCallError, match="is a repeat of the tuning prompt's own text.*--record-mode rewrite"):
        clean_rating(copied, given="technology podcasts")
    with pytest.raises(ModelCallError, match="tuning prompt"):
        clean_rating(copied.replace("public health", "technology podcasts"), given="technology podcasts")
    # the example's form in the model's own words is what the question asks for
    adapted = ("A float score between 0 and 10 for how much the community shapes the technology podcast landscape, "
               "0 being an offhand mention and 10 being an industry-defining shift.")
    assert clean_rating(adapted, given="technology podcasts") == adapted


def test_a_domain_or_persona_that_repeats_the_question_is_refused() -> None:
    with pytest.raises(ModelCallError, match="tuning prompt.*--domain"):
        clean_line("technology podcasts, clinical pharmacology, regional news", "domain")
    assert clean_line("technology podcasts", "domain") == "technology podcasts"  # one of its examples: fine
    echo = ('You are an expert who builds knowledge graphs from technology podcasts texts: two or three sentences in '
            'the second person, starting with "You are", saying what the expert knows.')
    with pytest.raises(ModelCallError, match="tuning prompt.*--persona"):
        clean_persona(echo, given="technology podcasts")
