"""A throw-away suite kind for tests/kinds/test_registry.py: one module, as harness/kinds/<kind>.py
modules are, registered by the test with one line (`register_kind(throwaway_kind.SPEC)`).

`echo_length`: the model repeats a case's `inputs.word` some number of times; a case is scored on
how many times the answer says it."""

from __future__ import annotations

from harness.kinds.spec import KindSpec, Plan, ScoreInput
from harness.model import CaseScore, GoldCase, Value


class EchoInputs(Value):
    word: str
    times: int = 3


class EchoScore(Value):
    said: int  # how many times the answer says the word
    wanted: int


def _variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    given = EchoInputs.model_validate(case.inputs)
    return {"input_text": case.text, "word": given.word, "times": str(given.times)}


def _score(given: ScoreInput, base: CaseScore) -> CaseScore:
    inputs = EchoInputs.model_validate(given.case.inputs)
    said = given.first_answer().casefold().split().count(inputs.word.casefold())
    return base.with_figures("echo", EchoScore(said=said, wanted=inputs.times))


SPEC = KindSpec("echo_length", needs_source=True, inputs=(), gold=(), variables=_variables, engine_defaults={},
                answer_format="summary", gleans=False, score=_score, score_key="echo", score_model=EchoScore,
                case_fields=EchoInputs)
