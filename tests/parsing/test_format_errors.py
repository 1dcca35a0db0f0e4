"""One definition of "has format errors" for parse, result rows, reports and the gate (12.3)."""

from __future__ import annotations

import pytest

from harness.cli import main
from harness.model import CaseResult
from harness.parsing import has_format_errors
from harness.formats.answer import parse
from harness.run.evaluation import merge_rounds
from harness.summary import format_summary

from ..support.community_report import report_text as _report

REFUSAL = "I'm sorry, but I can't help with extracting entities from this text.\n<|COMPLETE|>"


def _row(result) -> CaseResult:  # type: ignore[no-untyped-def]
    return CaseResult(suite="s", variant="v", case_id="c", graph=result.graph, format_report=result.format_report)


def _gate_counts(*results) -> int:  # type: ignore[no-untyped-def]
    return format_summary([_row(r) for r in results]).cases_with_errors


def test_refusal_ending_with_the_completion_delimiter_is_an_error_everywhere() -> None:
    r = parse(REFUSAL)
    assert has_format_errors(r)
    assert _gate_counts(r) == 1


@pytest.mark.parametrize("over", [{"rating": 12}, {"findings": "none"}, {"rating": "high"}])
def test_schema_violating_report_is_an_error_everywhere(over: dict[str, object]) -> None:
    r = parse(_report(**over), "report")
    assert r.graph.report is not None  # still read
    assert has_format_errors(r)
    assert _gate_counts(r) == 1


def test_clean_report_is_clean_everywhere() -> None:
    r = parse(_report(), "report")
    assert not has_format_errors(r) and _gate_counts(r) == 0


def test_bare_completion_delimiter_is_a_clean_empty_extraction() -> None:
    r = parse("<|COMPLETE|>")
    codes = {i.code for i in r.format_report.issues}
    assert "empty-extraction" in codes and "no-records" not in codes
    assert r.format_report.completion == "present"
    assert not has_format_errors(r) and _gate_counts(r) == 0


def test_result_rows_and_parse_agree_on_every_kind_of_answer() -> None:
    answers = [
        REFUSAL, "", "just prose", "<|COMPLETE|>", '("entity"<|>A<|>person<|>x)\n<|COMPLETE|>',
        '("entity"<|>A<|>person<|>x)', '("entity")\n<|COMPLETE|>', _report(rating=12), _report(),
    ]
    for text in answers:
        r = parse(text)
        assert _gate_counts(r) == int(has_format_errors(r)), text


def test_gleaning_round_with_only_the_delimiter_keeps_a_clean_case_clean(suite) -> None:  # type: ignore[no-untyped-def]
    from harness.model import Round
    from harness.run.plan import plan_variant

    plan = plan_variant(suite, next(iter(suite.spec.variants)))

    rounds = [
        Round(index=0, kind="extract", output='("entity"<|>A<|>person<|>x)\n<|COMPLETE|>'),
        Round(index=1, kind="continue", output="<|COMPLETE|>"),
    ]
    graph, combined, _ = merge_rounds(rounds, plan)
    assert [e.name for e in graph.entities] == ["A"]
    assert not has_format_errors(combined)


@pytest.mark.parametrize(
    "text,fmt,expected",
    [(REFUSAL, "auto", 1), (_report(rating=12), "report", 1), (_report(findings="none"), "report", 1),
     ("<|COMPLETE|>", "auto", 0), (_report(), "report", 0)],
)
def test_cli_parse_exit_code_follows_the_same_definition(tmp_path, capsys, text: str, fmt: str, expected: int) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "answer.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["parse", str(path), "--format", fmt]) == expected
    capsys.readouterr()
