"""Tuning answers are untrusted: whatever a model writes, the checks return or raise ModelCallError."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import ModelCallError
from harness.tune.examples import judge_example
from harness.tune.steps import clean_entity_types, clean_language, clean_line, clean_persona, clean_rating

PIECES = st.sampled_from([
    '("entity"<|>', '("relationship"<|>', "<|>", "##", "<|COMPLETE|>", ")", "\n", "<think>", "</think>",
    "```json", "```", '{"entity_types": [', '"person"', ",", "]}", "You are ", "0 and 10", "English", "Sorry",
    "I'm sorry", "{", "}", "ANA RUIZ", "person", "8", "Passage", "中文", "\u2019s", " ",
])
ANSWERS = st.one_of(st.text(max_size=300), st.lists(PIECES, max_size=40).map("".join))


@settings(max_examples=300, deadline=None)
@given(ANSWERS)
def test_answer_checks_never_raise_anything_else(answer: str) -> None:
    for check in (lambda a: clean_line(a, "domain"), clean_language, clean_persona, clean_rating, clean_entity_types):
        try:
            check(answer)
        except ModelCallError:
            pass


@settings(max_examples=300, deadline=None)
@given(ANSWERS, st.text(max_size=200))
def test_the_example_judge_never_raises(answer: str, chunk: str) -> None:
    verdict = judge_example(answer, chunk=chunk, prompt_example_names=["ANA RUIZ"], entity_types=["person"])
    assert verdict.kept == (verdict.reason == "ok")
