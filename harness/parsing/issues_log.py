"""Collects issues while parsing one output.

Non-dropping issues are aggregated per code (one FormatIssue with a count and the first
excerpt), so a clean-but-quirky output does not produce hundreds of identical issues. Dropped
records each get their own FormatIssue, as the design requires.
"""

from __future__ import annotations

from pydantic import TypeAdapter

from harness.model import FormatIssue
from harness.parsing.codes import FORMAT_CODES
from harness.parsing.issues import excerpt


class IssueLog:
    __slots__ = ("round", "_counts", "_first", "_messages", "_dropped", "_order")

    def __init__(self, round: int = 0) -> None:
        self.round = round
        self._counts: dict[str, int] = {}
        self._first: dict[str, str] = {}
        self._messages: dict[str, str] = {}
        self._dropped: list[FormatIssue] = []
        self._order: list[str | FormatIssue] = []

    def note(self, code: str, snippet: str = "", message: str = "") -> None:
        """Record a non-dropping issue (aggregated per code)."""
        if FORMAT_CODES[code][1]:
            self.drop(code, snippet, message)
            return
        n = self._counts.get(code)
        if n is None:
            self._counts[code] = 1
            self._first[code] = snippet
            self._messages[code] = message
            self._order.append(code)
        else:
            self._counts[code] = n + 1

    def drop(self, code: str, snippet: str = "", message: str = "") -> None:
        """Record a dropped record: always its own issue."""
        meaning = FORMAT_CODES[code][0]
        item = FormatIssue(
            code=code,
            message=message or meaning,
            excerpt=excerpt(snippet),
            round=self.round,
            dropped=True,
        )
        self._dropped.append(item)
        self._order.append(item)

    def has(self, code: str) -> bool:
        """Whether an issue with this code was recorded."""
        return code in self._counts or any(i.code == code for i in self._dropped)

    @property
    def dropped_count(self) -> int:
        return len(self._dropped)

    def issues(self) -> list[FormatIssue]:
        if not self._order:
            return []
        if not self._counts:
            return list(self._dropped)
        rows: list[FormatIssue | dict[str, object]] = []
        for entry in self._order:
            if isinstance(entry, FormatIssue):
                rows.append(entry)
                continue
            code = entry
            n = self._counts[code]
            message = self._messages[code] or FORMAT_CODES[code][0]
            if n > 1:
                message = f"{message} ({n} times)"
            rows.append(
                {"code": code, "message": message, "excerpt": excerpt(self._first[code]), "round": self.round}
            )
        return _ISSUES.validate_python(rows)  # one call for the list: cheaper than one per issue


_ISSUES = TypeAdapter(list[FormatIssue])
