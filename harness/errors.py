"""Errors that end a command with a documented exit code and a one-line message."""

from __future__ import annotations

from typing import TypeVar

from .known_keys import scrub

E = TypeVar("E", bound=BaseException)


class HarnessError(Exception):
    """Base: a message for the user (one line) and the exit code the CLI returns. The message
    is scrubbed of every known key when made: it may quote an endpoint's error text or a value."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        message = scrub(message)
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


def find_cause(exc: BaseException, kind: type[E]) -> E | None:
    """The first exception of `kind` in `exc`'s cause/context chain (itself included), if any.

    The SDK and vcrpy wrap what went wrong below them; this finds it without looping on a cycle.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
