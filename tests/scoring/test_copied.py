"""Copied passages (harness/scoring/copied.py): runs of words a text shares with a prompt and not
with its input, worked by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.scoring.copied import LONG_RUN, copied_passage, input_text, prompt_text, words
from tests.support.growth import Repeat, assert_linear

PROMPT = ("Example 1: The Marlow Valley Water Board voted on Monday to build a reservoir above the village of Ashcombe.\n"
          '("entity"<|>PRIYA NATARAJAN<|>person<|>Natarajan chairs the board)')
CHUNK = "Maya Chen hosts the Circuit Breakers podcast and chairs the panel."


def test_words_split_delimiters_and_cjk() -> None:
    assert words('("entity"<|>PRIYA NATARAJAN<|>person)') == ["entity", "priya", "natarajan", "person"]
    assert words("北京大学 is in Beijing") == ["北", "京", "大", "学", "is", "in", "beijing"]


def test_a_long_passage_is_copied_wherever_it_stands() -> None:
    # eight words in a row of the example, none of them the chunk's
    text = "She said the Marlow Valley Water Board voted on Monday, then left."
    assert copied_passage(text, PROMPT, CHUNK) == "the marlow valley water board voted on monday"
    assert copied_passage(text, PROMPT, CHUNK, long=False) is None  # 8 of 12 words: under the share


def test_a_short_text_mostly_copied_is_copied() -> None:
    # 4 words, every one in a run of three the prompt holds (between two <|> delimiters)
    assert copied_passage("Natarajan chairs the board", PROMPT, CHUNK) == "natarajan chairs the board"
    # 3 of 6 words: "natarajan chairs the" is copied, the rest is not
    assert copied_passage("Natarajan chairs the new podcast panel", PROMPT, CHUNK) is None


def test_what_the_input_holds_is_never_copied() -> None:
    chunk = "The Marlow Valley Water Board voted on Monday to build a reservoir."
    assert copied_passage("The Marlow Valley Water Board voted on Monday", PROMPT, chunk) is None
    # "chairs the" is the chunk's, but "natarajan chairs the" is not: still copied
    assert copied_passage("Natarajan chairs the board", PROMPT, CHUNK) is not None


def test_short_texts_and_empty_prompts_copy_nothing() -> None:
    assert copied_passage("the board", PROMPT, CHUNK) is None  # fewer words than a run
    assert copied_passage("Natarajan chairs the board", "", CHUNK) is None
    assert copied_passage("", PROMPT, CHUNK) is None


def test_indexes_are_reused() -> None:
    assert prompt_text(PROMPT) is prompt_text(PROMPT)
    index, given = prompt_text(PROMPT), input_text(CHUNK)
    assert copied_passage("Natarajan chairs the board", index, given) == "natarajan chairs the board"
    assert len(next(iter(index.long_runs)).split()) == LONG_RUN


PIECES = st.sampled_from(["the", "board", "Natarajan", "chairs", "voted", "<|>", "北京", " ", ",", "Monday", "on"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map(" ".join), st.lists(PIECES, max_size=40).map(" ".join),
       st.lists(PIECES, max_size=20).map(" ".join))
def test_never_raises_and_a_copy_is_made_of_prompt_runs(text: str, prompt: str, chunk: str) -> None:
    found = copied_passage(text, prompt, chunk)
    if found is not None:
        run = found.split()
        assert found in " ".join(words(text))
        # every word of it lies in a run of three the prompt holds (overlapping runs join)
        held = [i for i in range(len(run) - 2) if " ".join(run[i : i + 3]) in prompt_text(prompt).runs]
        assert all(any(i <= k < i + 3 for i in held) for k in range(len(run)))


def _copies_from_the_example(text: str) -> str | None:
    return copied_passage(text, PROMPT, CHUNK)


@pytest.mark.slow
def test_a_long_description_is_read_in_linear_time() -> None:
    assert_linear(_copies_from_the_example, Repeat("Natarajan chairs the board "), 4_000)
    assert_linear(_copies_from_the_example, Repeat("the village of Ashcombe voted "), 4_000)
