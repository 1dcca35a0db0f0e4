"""The one definition of "this answer has format errors".

`harness parse` exits 1 on it, result rows are counted with it (summary `cases_with_errors` and
`format_error_rate`, hence the reports and the gate's `format_errors` threshold). An answer has
format errors when a record was dropped, when the completion status is not `present`, or when an
issue carries an error code (harness.parsing.codes.ERROR_CODES: a refusal, no records, an
internal error, a community report that breaks the schema).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast

from harness.parsing.codes import FORMAT_CODES, is_error

# Structural types instead of harness.model's classes: the verdict needs only these fields, and
# parsing modules below harness.model stay free of it.


class _Issue(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def dropped(self) -> bool: ...


class FormatReportLike(Protocol):
    """What the verdict reads of a harness.model.FormatReport."""

    @property
    def records_dropped(self) -> int: ...
    @property
    def completion(self) -> str: ...
    @property
    def issues(self) -> Sequence[_Issue]: ...


class ParseResultLike(Protocol):
    @property
    def format_report(self) -> FormatReportLike: ...


def format_error_reasons(report: FormatReportLike) -> list[str]:
    """Why the answer counts as having format errors (empty when it does not)."""
    reasons: list[str] = []
    if report.records_dropped or any(i.dropped for i in report.issues):
        reasons.append(f"{max(report.records_dropped, sum(i.dropped for i in report.issues))} record(s) dropped")
    if report.completion != "present":
        reasons.append(f"completion {report.completion}")
    for code in dict.fromkeys(i.code for i in report.issues if not i.dropped):
        if code in FORMAT_CODES and is_error(code):
            reasons.append(code)
    return reasons


def has_format_errors(result: ParseResultLike | FormatReportLike) -> bool:
    """True when the answer (a parse result, or the format report of a result row) has format
    errors; see the module docstring."""
    report = cast(FormatReportLike, getattr(result, "format_report", result))
    return bool(format_error_reasons(report))
