"""Which answers may become few-shot examples: poisoned ones are rejected with a reason."""

from __future__ import annotations

import pytest

from harness.tune.examples import judge_example

CHUNK = "Mayor Ana Ruiz of Lowbridge opened the new library on Monday."
GOOD = ('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##'
        '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of<|>8)\n<|COMPLETE|>')
COPIED = ('("entity"<|>PRIYA NATARAJAN<|>person<|>Chair)##("entity"<|>ASHCOMBE<|>geo<|>Village)##'
          '("relationship"<|>PRIYA NATARAJAN<|>ASHCOMBE<|>chairs a board near<|>8)\n<|COMPLETE|>')


@pytest.mark.parametrize(("answer", "kind"), [
    ("I'm sorry, but I can't help with that request.", "refusal"),
    ("The passage is about a mayor who opened a library.", "summary"),
    ("In summary, the examples above show how to list entities and relationships.", "summary"),
    ("I can help you with that. However, the input text appears to be a summary of a story.", "summary"),
    ("Mayor, library, Monday.", "prose"),
    ("", "empty"),
    ('("entity"<|>ANA RUIZ<|>person<|>Mayor)\n<|COMPLETE|>', "no-relationship"),
    (GOOD.replace("\n<|COMPLETE|>", ""), "completion"),
    ("Here are the records:\n" + GOOD, "prose-mixed"),
    (GOOD.replace("<|>geo<|>", "<|>river<|>"), "type"),
    (GOOD.replace("ANA RUIZ<|>LOWBRIDGE<|>mayor", "ANA RUIZ<|>KESTREL TRUST<|>mayor"), "dangling"),
    (GOOD.replace("LOWBRIDGE", "MILLBROOK"), "ungrounded"),
    (COPIED, "copied"),
])
def test_poisoned_examples_are_rejected_with_a_reason(answer: str, kind: str) -> None:
    verdict = judge_example(answer, chunk=CHUNK, prompt_example_names=["PRIYA NATARAJAN", "ASHCOMBE"],
                            entity_types=["person", "geo"])
    assert not verdict.kept
    assert verdict.kind == kind, verdict.reason
    assert verdict.reason.startswith(kind + ": ") and len(verdict.reason) > len(kind) + 5


def test_a_clean_grounded_extraction_is_kept() -> None:
    verdict = judge_example(GOOD, chunk=CHUNK, entity_types=["person", "geo"])
    assert verdict.kept and verdict.reason == "ok" and verdict.kind == "ok"
    assert len(verdict.graph.relationships) == 1


@pytest.mark.parametrize(("name", "chunk"), [
    ("CRUZ", "It was a rebellion against Cruz's narrowing vision."),  # possessive
    ("CRUZ", "It was a rebellion against Cruz\u2019s narrowing vision."),
    ("THE DEVICE", "Taylor observed the device with reverence."),  # article and case
    ("SAN FRANCISCO GIANTS", "the Giants of San Francisco won"),  # most words present
    ("協理級以下人員", "協理級(含)   以下人員   宿費"),  # CJK: most character pairs present
])
def test_names_the_passage_holds_in_another_form_are_grounded(name: str, chunk: str) -> None:
    answer = (f'("entity"<|>{name}<|>person<|>x)##("entity"<|>{name} 2<|>person<|>y)##'
              f'("relationship"<|>{name}<|>{name} 2<|>z<|>5)\n<|COMPLETE|>')
    verdict = judge_example(answer, chunk=chunk + f" {name.title()} 2")
    assert name not in verdict.ungrounded, verdict.reason


def test_without_the_chunk_grounding_is_not_checked() -> None:
    assert judge_example(GOOD.replace("LOWBRIDGE", "MILLBROOK")).kept


# ---------------------------------------------------------------- issue 28: descriptions a prompt would keep

PROMPT_TEXT = ("Write each entity as (\"entity\"<|><entity_name><|><entity_type><|><entity_description>)\n"
               "entity_description: what the passage tells us about the entity, its attributes and what it does\n"
               "Example 1: (\"entity\"<|>PRIYA NATARAJAN<|>person<|>Chair of the Marlow Valley Water Board who "
               "announced when work would start)")
PODCAST = "Maya Chen hosts the Circuit Breakers podcast and interviews Omar Haddad, founder of Gearloose."


def _answer(maya: str, omar: str = "Founder of Gearloose") -> str:
    return (f'("entity"<|>MAYA CHEN<|>person<|>{maya})##("entity"<|>OMAR HADDAD<|>person<|>{omar})##'
            '("relationship"<|>MAYA CHEN<|>OMAR HADDAD<|>Maya Chen interviews Omar Haddad<|>8)<|COMPLETE|>')


@pytest.mark.parametrize(("maya", "kind"), [
    ("Chair of the Marlow Valley Water Board who announced when work would start", "copied"),  # the example's
    ("what the passage tells us about the entity, its attributes and what it does", "copied"),  # the instruction
    ("<entity_description>", "placeholder"),
    ("entity_description", "placeholder"),
    ("N/A", "placeholder"),
    ("Host of the Circuit Breakers podcast", "ok"),
])
def test_descriptions_must_be_the_passages_own(maya: str, kind: str) -> None:
    verdict = judge_example(_answer(maya), chunk=PODCAST, entity_types=["person"], prompt_text=PROMPT_TEXT)
    assert verdict.kind == kind, verdict.reason


def test_without_the_prompt_text_copies_are_not_looked_for() -> None:
    answer = _answer("Chair of the Marlow Valley Water Board who announced when work would start")
    assert judge_example(answer, chunk=PODCAST, entity_types=["person"]).kept
