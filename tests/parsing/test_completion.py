from __future__ import annotations

import pytest

from harness.checks import check_completion


@pytest.mark.parametrize(
    "text,status,codes",
    [
        ('("entity"<|>A<|>p<|>x)\n<|COMPLETE|>', "present", []),
        ('("entity"<|>A<|>p<|>x)\n<|COMPLETE|>\n', "present", []),
        ('("entity"<|>A<|>p<|>x)##\n<|COMPLETE|>)', "present", []),
        ('("entity"<|>A<|>p<|>x)', "missing", ["completion-missing"]),
        ("", "missing", ["completion-missing"]),
        ('("entity"<|>A<|>p<|>x)\n<|complete|>', "present", ["completion-lowercase"]),
        ('("entity"<|>A<|>p<|>x)\n<COMPLETE>', "present", ["completion-malformed"]),
        ('("entity"<|>A<|>p<|>x)\n|COMPLETE|>', "present", ["completion-malformed"]),
        ('x\n<|COMPLETE|>\n<|COMPLETE|>', "misplaced", ["completion-repeated"]),
        ('<|COMPLETE|>\n("entity"<|>A<|>p<|>x)', "misplaced", ["completion-not-last"]),
    ],
)
def test_status(text: str, status: str, codes: list[str]) -> None:
    check = check_completion(text)
    assert check.status == status
    assert check.codes == codes
    assert check.ok == (status == "present")


def test_closing_note_does_not_misplace() -> None:
    check = check_completion('("entity"<|>A<|>p<|>x)\n<|COMPLETE|>\nLet me know if you need more.')
    assert check.status == "present"
    assert check.trailing_text == "Let me know if you need more."


def test_prose_and_tables_are_not_marks() -> None:
    assert check_completion("the extraction is complete").status == "missing"
    assert check_completion("| step | complete |").status == "missing"
    assert check_completion("incomplete|>").status == "missing"


def test_custom_delimiter() -> None:
    assert check_completion("x [[DONE]]", "[[DONE]]").status == "present"
    assert check_completion("x ###", "###").status == "present"
    assert check_completion("x", "###").status == "missing"


def test_marks_positions() -> None:
    check = check_completion("ab<|COMPLETE|>")
    assert [(m.start, m.end, m.kind) for m in check.marks] == [(2, 14, "exact")]
