"""The `summary` format: the whole answer is the summary; JSON, extraction records, empty answers
and refusals are flagged; it is never guessed, so it cannot take an extraction answer."""

from __future__ import annotations

import pytest

from harness.formats import detect_format, format_names, get_format
from harness.formats.summary import not_prose, summary_text
from harness.formats.answer import parse
from harness.parsing.codes import is_error
from harness.prompts.examples import Example, ExampleEntity


def codes(answer: str) -> list[str]:
    return [issue.code for issue in parse(answer, "summary").format_report.issues]


def test_a_prose_summary_is_one_clean_record() -> None:
    result = parse("Acme is a rocket maker based in Ohio.", "summary")
    report = result.format_report
    assert (report.format, report.records_seen, report.records_parsed, report.issues) == ("summary", 1, 1, [])
    assert result.graph.entities == [] and report.completion == "present"


def test_think_blocks_and_fences_are_stripped_from_the_summary() -> None:
    answer = "<think>Let me merge them.</think>\n```\nAcme makes rockets.\n```"
    assert summary_text(answer) == "Acme makes rockets."
    assert set(codes(answer)) == {"think-block", "fence-stripped"}


@pytest.mark.parametrize("answer", [
    '{"summary": "Acme makes rockets."}',
    '["Acme makes rockets."]',
    '("entity"<|>ACME<|>organization<|>Makes rockets)\n<|COMPLETE|>',
    "entity<|#|>ACME<|#|>organization<|#|>Makes rockets",
])
def test_json_or_extraction_records_are_not_a_summary(answer: str) -> None:
    assert codes(answer) == ["summary-not-prose"]
    assert is_error("summary-not-prose")
    assert parse(answer, "summary").format_report.records_parsed == 0


@pytest.mark.parametrize(("answer", "code"), [
    ("", "empty-output"),
    ("   \n", "empty-output"),
    ("<think>nothing to add</think>", "empty-output"),
    ("I'm sorry, but I can't help with that.", "refusal"),
])
def test_empty_answers_and_refusals_are_format_errors(answer: str, code: str) -> None:
    found = codes(answer)
    assert code in found and is_error(code) and "no-records" not in found


def test_prose_mentioning_braces_or_records_stays_prose() -> None:
    assert not not_prose("Acme (an entity) uses {braces} in its name.", "<|>")


def test_it_is_never_guessed() -> None:
    fmt = get_format("summary")
    assert "summary" in format_names() and fmt.detection_rules == ()
    assert detect_format("Acme is a rocket maker based in Ohio.") == "graphrag"
    assert parse('("entity"<|>ACME<|>organization<|>Makes rockets)', "auto").format_report.format == "graphrag"


def test_an_example_answer_is_its_entities_descriptions() -> None:
    example = Example(text="t", entities=[ExampleEntity("ACME", "organization", "Makes rockets"),
                                          ExampleEntity("OHIO", "geo", "A state.")])
    fmt = get_format("summary")
    answer = fmt.write_example(example, fmt.default_delimiters())
    assert answer == "Makes rockets. A state."
    assert codes(answer) == []


def test_json_nested_too_deeply_to_decode_is_judged_as_broken_json_not_an_internal_error() -> None:
    # json.loads raises RecursionError past ~1,000 levels; it escaped as an internal error
    deep = parse("[" * 5000 + "]" * 5000, "summary").format_report
    assert [i.code for i in deep.issues] == ["summary-not-prose"]
    open_only = parse("[" * 5000, "summary").format_report
    assert "internal-error" not in [i.code for i in open_only.issues]
    assert [i.code for i in open_only.issues] == [i.code for i in parse("[[[", "summary").format_report.issues]
