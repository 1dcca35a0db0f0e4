"""Errors that end a command: one line, an exit code, and no key in the line."""

from __future__ import annotations

import pytest

from harness.errors import CassetteMissingError, HarnessError, InputError, ModelCallError


@pytest.mark.parametrize("kind", [HarnessError, InputError, CassetteMissingError, ModelCallError])
def test_a_message_quoting_a_known_key_is_scrubbed_when_made(kind, monkeypatch):
    """An error may quote an endpoint's text or a value (issue 28, item 4): whoever prints it (the
    CLI, the pytest plugin, a library user's traceback) gets it without the key."""
    key = "sk-error-" + "Tg5Yh8Uj2Ik6Ol9Pa3Sd"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    error = kind(f"model call failed: HTTP 401: invalid key {key} (first 20: {key[:20]})")
    assert error.message == str(error) == "model call failed: HTTP 401: invalid key [REDACTED] (first 20: [REDACTED])"
    assert kind("no key here").message == "no key here"
