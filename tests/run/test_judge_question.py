"""`harness prompts render` on a judge prompt: the judge's first question of the prompt's kind on
a case, from a replay of the case's extraction (harness/run/judge_question.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.judges.test_stage import example  # noqa: F401  the shipped judged example, copied

def test_prompts_render_shows_a_judge_prompt_filled_with_the_cases_first_question(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`harness prompts render` fills a judge prompt with its kind's first question on the case,
    from the replayed extraction (no key), as it fills any prompt with the case's variables."""
    def render(prompt: str, variant: str = "default") -> str:
        assert main(["prompts", "render", prompt, "--suite", str(example), "--case", "rust-migration",
                     "--variant", variant, "--text"]) == 0
        return capsys.readouterr().out

    match = render("builtin:harness/judge_match")
    assert "Gold entity: Rust\nPredicted entity: RUST LANGUAGE" in match and "Team lead Priya Raman" in match
    support = render("builtin:harness/judge_support")
    assert "Statement: NORTHWIND TRADERS: Company whose billing team rewrote its invoice service" in support
    pairwise = render("builtin:harness/judge_pairwise")
    assert "First answer:\n(\"entity\"<|>NORTHWIND TRADERS" in pairwise and "Second answer:" in pairwise
    (example.parent / "judge.yaml").write_text('name: mine\nuser: "{input_text}: is {gold} {predicted}?"\n')
    assert "is Rust RUST LANGUAGE?" in render(str(example.parent / "judge.yaml"))  # known by its placeholders
