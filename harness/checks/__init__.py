"""Format checks on model output: completion delimiter, citations, community-report schema and
query-phase answers. Pure functions: text in, issues (FormatIssue) or JSON-able dicts out."""

from harness.checks.citations import (
    DEFAULT_DATASETS,
    Citation,
    Reference,
    check_citations,
    citation_issues,
    citation_missing,
    find_citations,
)
from harness.checks.completion import CompletionCheck, CompletionMark, check_completion, find_marks
from harness.checks.query import (
    check_drift_response,
    check_map_response,
    check_rate_response,
    check_summary,
    count_words,
)
from harness.checks.report_schema import check_report, report_from_text, report_schema_issues

__all__ = [
    "DEFAULT_DATASETS",
    "Citation",
    "CompletionCheck",
    "CompletionMark",
    "Reference",
    "check_citations",
    "check_completion",
    "check_drift_response",
    "check_map_response",
    "check_rate_response",
    "check_report",
    "check_summary",
    "citation_issues",
    "citation_missing",
    "count_words",
    "find_citations",
    "find_marks",
    "report_from_text",
    "report_schema_issues",
]
