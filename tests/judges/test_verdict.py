from __future__ import annotations

import pytest

from harness.judges.verdict import read_verdict


@pytest.mark.parametrize(("text", "verdict"), [
    ("SAME", "same"), ("Same: both name Rust.", "same"), ("**yes**", "same"), ("  different", "different"),
    ("No, they differ.", "different"), ("I cannot tell from this text.", None), ("", None), ("???", None),
    ("Sameness is likely", None), ("系统管理员", None),
])
def test_the_first_word_decides_and_anything_else_is_na(text: str, verdict: str | None) -> None:
    assert read_verdict(text) == verdict
