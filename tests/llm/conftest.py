"""Fixtures shared by the model-client and cassette tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.run.schedule import RunOptions, run_suite


@pytest.fixture
def recorded_towns(suite, server, api_key, tmp_path, monkeypatch) -> Path:
    """The cassette of case 'mayor' of variant 'default', recorded from the fake server; no key set after."""
    outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec", base_url=server.base_url,
                                          variants=["default"], cases=["mayor"]))
    assert not outcome.missing and not outcome.failures
    monkeypatch.delenv("OPENAI_API_KEY")
    return suite.cassette_dir() / "default" / "mayor.json"
