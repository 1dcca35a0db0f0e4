"""The placeholder syntax shared by every template: `{name}`, with `{{` and `}}` for literal braces.

It is Python's `str.format` syntax restricted to plain names, which is what GraphRAG and
LightRAG prompt files use, so a prompt means the same thing here and in the user's pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Literal

from ..errors import InputError

TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")

Missing = Literal["error", "keep", "empty"]


def placeholders(text: str) -> list[str]:
    """Names of the `{placeholders}` in text, in order of first use (escapes excluded)."""
    seen: dict[str, None] = {}
    for match in TOKEN.finditer(text):
        if match.group(1):
            seen.setdefault(match.group(1))
    return list(seen)


def placeholder_lines(text: str, first_line: int = 1) -> dict[str, int]:
    """The file line of the first use of each placeholder."""
    lines: dict[str, int] = {}
    for match in TOKEN.finditer(text):
        name = match.group(1)
        if name and name not in lines:
            lines[name] = first_line + text.count("\n", 0, match.start())
    return lines


def fill(
    text: str,
    variables: Mapping[str, str],
    *,
    source: str = "<prompt>",
    missing: Missing = "error",
    first_line: int = 1,
) -> str:
    """Replace placeholders and unescape `{{`/`}}`.

    A placeholder with no value is an InputError naming the file line (`missing="error"`), is
    left as written (`"keep"`) or becomes empty (`"empty"`). `first_line` is the file line the
    text starts on, so templates embedded in YAML name the right line.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = match.group(1)
        if name in variables:
            return variables[name]
        if missing == "keep":
            return token
        if missing == "empty":
            return ""
        line = first_line + text.count("\n", 0, match.start())
        known = ", ".join(sorted(variables)) or "none"
        raise InputError(f"{source}:{line}: placeholder {{{name}}} has no value (known: {known})")

    return TOKEN.sub(replace, text)


def rendered_length(text: str, variables: Mapping[str, str], *, missing: Missing = "error") -> int:
    """The length `fill(text, variables, missing=...)` would return, computed without building it
    (a thousand `{input_text}` with a 10 MB chunk must be refused, not allocated)."""
    total, uses = _placeholder_uses(text)
    for name, width in uses:
        if name in variables:
            total += len(variables[name]) - width
        elif missing == "empty":
            total -= width
    return total


@lru_cache(maxsize=64)
def _placeholder_uses(text: str) -> tuple[int, tuple[tuple[str, int], ...]]:
    """(the text's length once its `{{`/`}}` escapes are single braces, each placeholder use with
    the width it takes in the text): a template is scanned once, not once per case it renders."""
    escapes = 0
    uses: list[tuple[str, int]] = []
    for match in TOKEN.finditer(text):
        name = match.group(1)
        if name is None:
            escapes += 1
        else:
            uses.append((name, match.end() - match.start()))
    return len(text) - escapes, tuple(uses)


def escape(value: str) -> str:
    """Make a value safe to put back into a template: its braces become escapes."""
    return value.replace("{", "{{").replace("}", "}}")


def partial_fill(text: str, variables: Mapping[str, str]) -> str:
    """Substitute only the given placeholders; escapes and every other placeholder stay as written."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name and name in variables:
            return escape(variables[name])
        return match.group(0)

    return TOKEN.sub(replace, text)
