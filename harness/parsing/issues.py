"""The helpers that build FormatIssue values (excerpts, issues); the codes themselves are in
harness.parsing.codes."""

from __future__ import annotations

from harness.model import FormatIssue
from harness.parsing.codes import FORMAT_CODES

EXCERPT_CHARS = 160


def short(value: object, limit: int = EXCERPT_CHARS) -> str:
    """repr() for excerpts of decoded JSON: truncated, and safe on pathological nesting."""
    if isinstance(value, str):
        return value[:limit]
    try:
        return repr(value)[:limit]
    except (RecursionError, ValueError):
        return f"<{type(value).__name__}>"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, single-string excerpt of model output for an issue (NUL shown as \\0)."""
    text = text.strip()
    if "\x00" in text:
        text = text.replace("\x00", "\\0")
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def issue(code: str, message: str = "", snippet: str = "", *, round: int = 0) -> FormatIssue:
    """Build a FormatIssue; `dropped` follows the code's definition so the two never disagree."""
    meaning, dropped = FORMAT_CODES[code]
    return FormatIssue(
        code=code, message=message or meaning, excerpt=excerpt(snippet), round=round, dropped=dropped
    )
