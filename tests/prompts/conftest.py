"""Fixtures for the prompt tests: the `harness` command as users run it, and a clean environment."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest


def _run_cli(argv: list[str]) -> int:
    from harness.cli import main

    return main(argv)


@pytest.fixture
def harness_cli() -> Callable[[list[str]], int]:
    """`harness ...` through cli.main, so exit codes and one-line errors are what users get."""
    return _run_cli


@pytest.fixture(autouse=True)
def no_prompt_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    """No HARNESS_PROMPT_* / HARNESS_PROMPTS_DIR leaks in from the developer's shell."""
    for name in list(os.environ):
        if name.startswith("HARNESS_PROMPT"):
            monkeypatch.delenv(name)
