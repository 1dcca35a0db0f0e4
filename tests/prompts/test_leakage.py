"""Which cases a prompt already shows in its few-shot examples."""

from __future__ import annotations

from harness.prompts.leakage import chunk_in_prompt

CHUNK = ("DANA: Welcome back to Cold Boot, the show where we take technology apart to see what is inside. "
         "I'm Dana Whitfield, and across the table as always is Felix Ardanaz. Today's guest is someone "
         "I have known for a long time, the chief technology officer of Northgate Robotics.")


def test_a_chunk_used_as_an_example_is_found_whatever_the_spacing_and_case() -> None:
    prompt = "-Examples-\nExample 1:\nText:\n" + CHUNK.upper().replace(" ", "  \n") + "\nOutput:\n..."
    assert chunk_in_prompt(CHUNK, prompt)


def test_an_excerpt_of_the_chunk_is_enough() -> None:
    assert chunk_in_prompt(CHUNK, "Example text: " + CHUNK[60:260] + " Output: ...")


def test_a_prompt_that_only_shares_names_or_phrases_does_not_count() -> None:
    prompt = "Example: Dana Whitfield hosts Cold Boot, a show about technology. Northgate Robotics builds robots."
    assert not chunk_in_prompt(CHUNK, prompt)
    assert not chunk_in_prompt("", prompt) and not chunk_in_prompt(CHUNK, "")


def test_a_short_chunk_counts_only_whole() -> None:
    assert chunk_in_prompt("Tomas Berg won the pie contest.", "Text: tomas berg won the pie contest. Output:")
    assert not chunk_in_prompt("Tomas Berg won the pie contest.", "Text: Tomas Berg won. Output:")


def test_prompt_without_chunk_renders_an_empty_chunk_and_empty_unknown_variables():
    from harness.prompts.leakage import prompt_without_chunk
    from harness.prompts.template import PromptTemplate

    template = PromptTemplate(user="Types: {entity_types}. Kind: {document_type}.\nText: {input_text}", system="Sys {language}")
    text = prompt_without_chunk(template, {"entity_types": "person,geo", "language": "English", "input_text": "a chunk"})
    assert text == "Sys English\nTypes: person,geo. Kind: .\nText: "
