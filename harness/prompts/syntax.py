"""The placeholder syntax shared by every template: `{name}`, with `{{` and `}}` for literal braces.

It is Python's `str.format` syntax restricted to plain names, which is what GraphRAG and
LightRAG prompt files use, so a prompt means the same thing here and in the user's pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
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
    scan = _scan(text)
    pieces = [scan.literals[0]]
    for (name, start, token), literal in zip(scan.uses, scan.literals[1:]):
        if name in variables:
            pieces.append(variables[name])
        elif missing == "keep":
            pieces.append(token)
        elif missing != "empty":
            line = first_line + text.count("\n", 0, start)
            known = ", ".join(sorted(variables)) or "none"
            raise InputError(f"{source}:{line}: placeholder {{{name}}} has no value (known: {known})")
        pieces.append(literal)
    return "".join(pieces)


def rendered_length(text: str, variables: Mapping[str, str], *, missing: Missing = "error") -> int:
    """The length `fill(text, variables, missing=...)` would return, computed without building it
    (a thousand `{input_text}` with a 10 MB chunk must be refused, not allocated)."""
    scan = _scan(text)
    total = scan.literal_length
    for name, _, token in scan.uses:
        if name in variables:
            total += len(variables[name])
        elif missing != "empty":
            total += len(token)
    return total


@dataclass(frozen=True, slots=True)
class _Scan:
    """A template text cut at its placeholders, scanned once per text (`_scan`), not once per case."""

    literals: tuple[str, ...]  # the text around the placeholders, `{{`/`}}` unescaped: one more than `uses`
    uses: tuple[tuple[str, int, str], ...]  # each placeholder: (name, offset in the text, as written)
    literal_length: int  # the literals' total length


@lru_cache(maxsize=64)
def _scan(text: str) -> _Scan:
    literals: list[str] = []
    uses: list[tuple[str, int, str]] = []
    current: list[str] = []
    position = 0
    for match in TOKEN.finditer(text):
        current.append(text[position : match.start()])
        position = match.end()
        name = match.group(1)
        if name is None:
            current.append(match.group(0)[0])  # `{{` or `}}` stands for one brace
            continue
        literals.append("".join(current))
        current = []
        uses.append((name, match.start(), match.group(0)))
    current.append(text[position:])
    literals.append("".join(current))
    return _Scan(tuple(literals), tuple(uses), sum(len(literal) for literal in literals))


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
