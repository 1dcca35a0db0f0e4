"""The importers' tests use the prompts tests' CLI runner and environment (tests/prompts/conftest.py)."""

from ..prompts.conftest import harness_cli, no_prompt_overrides  # noqa: F401  (fixtures, found by name)
