"""The suite-kind registry: the built-in kinds, and a new kind added as one module plus one
registration line (tests/kinds/throwaway_kind.py), loaded, checked, rendered, scored and read back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.kinds import registry
from harness.kinds.registry import case_problem, get_kind, kind_names, register_kind, rows_kind
from harness.model import CaseResult, Round, _KIND_SCORES
from harness.run.evaluation import evaluate_case
from harness.run.plan import plan_variant
from harness.suites import load_suite

from . import throwaway_kind


@pytest.fixture
def echo_kind() -> Iterator[None]:
    """The throw-away kind registered for one test, and the registry as it was afterwards."""
    kinds, scores = dict(registry.SUITE_KINDS), dict(_KIND_SCORES)
    register_kind(throwaway_kind.SPEC)  # the one registration line a new kind needs
    yield
    registry.SUITE_KINDS.clear()
    registry.SUITE_KINDS.update(kinds)
    _KIND_SCORES.clear()
    _KIND_SCORES.update(scores)


def _suite(tmp_path: Path, cases: list[dict]) -> Path:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "echo.txt").write_text("Say {word} {times} times about this:\n{input_text}\n",
                                                   encoding="utf-8")
    path = tmp_path / "suites" / "echo.yaml"
    path.parent.mkdir()
    suite = {"name": "echo", "kind": "echo_length", "model": {"name": "gpt-4o-mini"},
             "variants": {"default": {"prompt": "prompts/echo.txt"}}, "cases": cases}
    path.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    return path


def test_the_built_in_kinds_are_registered_in_order() -> None:
    assert kind_names()[:5] == ("extract_graph", "summarize_descriptions", "community_report", "extract_claims",
                                "global_search_map")
    assert [get_kind(k).score_key for k in kind_names()[:5]] == [None, "summary", "report", "claims", "map_points"]
    assert get_kind("extract_graph").builds_graph and not get_kind("community_report").builds_graph


def test_a_kind_is_registered_once() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_kind(get_kind("extract_graph"))
    with pytest.raises(TypeError, match="KindSpec"):
        register_kind({"name": "loose"})


def test_an_unknown_kind_is_one_line_naming_the_known_ones(tmp_path: Path) -> None:
    path = _suite(tmp_path, [{"id": "a", "text": "t"}])
    with pytest.raises(InputError, match=r"kind.*'echo_length' is not a suite kind \(one of extract_graph, "):
        load_suite(path)


def test_a_new_kind_is_one_module_and_one_line(echo_kind: None, tmp_path: Path) -> None:
    path = _suite(tmp_path, [{"id": "a", "text": "A river town.", "inputs": {"word": "town", "times": 2}},
                             {"id": "b", "text": "A quiet lake.", "inputs": {"word": "lake"}}])
    suite = load_suite(path)
    plan = plan_variant(suite, "default")
    first, second = suite.cases
    assert plan.render(first)[-1]["content"] == "Say town 2 times about this:\nA river town.\n"
    assert (plan.format, plan.max_gleanings) == ("summary", 0)
    rows = [evaluate_case(suite, plan, first, [Round(index=0, kind="extract", output="town town")], "h"),
            evaluate_case(suite, plan, second, [Round(index=0, kind="extract", output="lake")], "h")]
    assert [(r.score.figures["echo"].said, r.score.figures["echo"].wanted) for r in rows] == [(2, 2), (1, 3)]
    assert rows_kind(rows) == "echo_length"
    # written under its key, as the built-in kinds' figures are, and read back into its model
    line = rows[0].model_dump_json()
    assert '"echo":{"said":2,"wanted":2}' in line
    again = CaseResult.model_validate_json(line)
    assert again == rows[0] and isinstance(again.score.figures["echo"], throwaway_kind.EchoScore)


@pytest.mark.parametrize(("inputs", "where", "message"), [
    ({}, "cases[0].inputs", "an echo_length case needs `inputs.word`"),
    ({"word": "x", "loud": True}, "cases[0].inputs.loud", "`loud` is not an input of an echo_length case (word, times)"),
    ({"word": "x", "times": "many"}, "cases[0].inputs.times", "not a valid value (expected int)"),
], ids=["missing", "unknown", "wrong-type"])
def test_a_kinds_own_inputs_are_checked_in_its_words(echo_kind: None, tmp_path: Path, inputs: dict, where: str,
                                                     message: str) -> None:
    path = _suite(tmp_path, [{"id": "a", "text": "t", "inputs": inputs}])
    with pytest.raises(InputError) as caught:
        load_suite(path)
    assert where in caught.value.message and message in caught.value.message


def test_a_built_in_kind_takes_no_inputs(tmp_path: Path) -> None:
    from harness.suites import CaseSpec

    problem = case_problem("extract_graph", CaseSpec(id="a", text="t", inputs={"word": "x"}))
    assert problem == (("inputs",), "an extract_graph case takes no `inputs:`")


def test_a_kind_without_a_source_must_say_how_its_text_is_written() -> None:
    import dataclasses

    with pytest.raises(ValueError, match="needs case_text"):
        dataclasses.replace(throwaway_kind.SPEC, name="sourceless", needs_source=False)
