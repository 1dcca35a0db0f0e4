"""Which cases a prompt already shows in its few-shot examples."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.prompts.leakage import MAX_INDEXED, WINDOW, chunk_in_prompt, fold

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


def _chunk_in_prompt_plainly(chunk: str, prompt: str, window: int) -> bool:
    """The definition without the prompt index: every window searched in the whole prompt."""
    text, haystack = fold(chunk), fold(prompt)
    if not text or not haystack:
        return False
    if len(text) <= window:
        return text in haystack
    starts = range(0, len(text) - window + 1, window // 2)
    return any(text[i : i + window] in haystack for i in starts) or text[-window:] in haystack


_WORDS = st.lists(st.sampled_from(["ana", "met", "Bo", "in", "Lowbridge", "the", "trust", "\n", "  "]), max_size=60)


@settings(max_examples=300, deadline=None)
@given(_WORDS.map(" ".join), _WORDS.map(" ".join), st.integers(0, 40), st.integers(0, 40),
       st.sampled_from([4, 16, 17, 40, WINDOW]))
def test_the_prompt_index_finds_what_a_plain_search_finds(chunk: str, filler: str, cut: int, length: int,
                                                          window: int) -> None:
    # the prompt carries (sometimes) a piece of the chunk; windows shorter than the index's grams
    # are searched plainly
    prompt = filler + chunk[cut : cut + length * 4] + filler
    assert chunk_in_prompt(chunk, prompt, window) == _chunk_in_prompt_plainly(chunk, prompt, window)


def test_a_prompt_too_long_to_index_is_searched_plainly() -> None:
    prompt = "x " * MAX_INDEXED + CHUNK[40:300]
    assert chunk_in_prompt(CHUNK, prompt) and not chunk_in_prompt(CHUNK, "x " * MAX_INDEXED)
