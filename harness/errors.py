"""Errors that end a command with a documented exit code and a one-line message."""

from __future__ import annotations


class HarnessError(Exception):
    """Base: a message for the user (one line) and the exit code the CLI returns."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputError(HarnessError):
    """Bad input or configuration: a suite, a prompt, a results file (exit 2)."""

    exit_code = 2


class CassetteMissingError(HarnessError):
    """A cassette is missing or stale while replaying (exit 3)."""

    exit_code = 3


class ModelCallError(HarnessError):
    """Model calls still failing after retries (exit 4)."""

    exit_code = 4
