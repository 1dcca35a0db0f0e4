"""Format checks on model output that are not a format's own: citations, and query-phase answers.
Pure functions: text in, issues (FormatIssue) or JSON-able dicts out. (The completion check is
the parser's: harness.parsing.completion; the community-report schema is the report format's:
harness.formats.report. Both are re-exported here.)

A lazy facade (harness.lazy_exports), so that importing one check does not import them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_exports

_EXPORTS = {
    "DEFAULT_DATASETS": (".citations", "DEFAULT_DATASETS"),
    "Citation": (".citations", "Citation"),
    "Reference": (".citations", "Reference"),
    "citation_issues": (".citations", "citation_issues"),
    "citation_missing": (".citations", "citation_missing"),
    "find_citations": (".citations", "find_citations"),
    "check_citations": (".answer_citations", "check_citations"),
    "CompletionCheck": ("harness.parsing.completion", "CompletionCheck"),
    "CompletionMark": ("harness.parsing.completion", "CompletionMark"),
    "check_completion": ("harness.parsing.completion", "check_completion"),
    "find_marks": ("harness.parsing.completion", "find_marks"),
    "check_drift_response": (".query", "check_drift_response"),
    "check_map_response": (".query", "check_map_response"),
    "check_rate_response": (".query", "check_rate_response"),
    "check_summary": (".query", "check_summary"),
    "count_words": (".query", "count_words"),
    "report_from_text": ("harness.formats.report", "report_from_text"),
    "report_schema_issues": ("harness.formats.report", "report_schema_issues"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from harness.checks.answer_citations import check_citations
    from harness.checks.citations import (
        DEFAULT_DATASETS,
        Citation,
        Reference,
        citation_issues,
        citation_missing,
        find_citations,
    )
    from harness.checks.query import (
        check_drift_response,
        check_map_response,
        check_rate_response,
        check_summary,
        count_words,
    )
    from harness.formats.report import report_from_text, report_schema_issues
    from harness.parsing.completion import CompletionCheck, CompletionMark, check_completion, find_marks

__all__ = sorted(_EXPORTS)
