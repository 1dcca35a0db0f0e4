"""Format checks on model output that are not a format's own: citations, and query-phase answers.
Pure functions: text in, issues (FormatIssue) or JSON-able dicts out. (The completion check is
the parser's: harness.parsing.completion; the community-report schema is the report format's:
harness.formats.report. Both are re-exported here.)

A lazy facade (harness.lazy_exports), so that importing one check does not import them all.
"""

from __future__ import annotations

from harness.lazy_exports import lazy_exports

# public name -> the module it lives in (each name is the same in both places)
_HOMES: dict[str, tuple[str, ...]] = {
    ".answer_citations": ("check_citations",),
    ".citations": ("DEFAULT_DATASETS", "Citation", "Reference", "citation_issues", "citation_missing", "find_citations"),
    ".query": ("check_drift_response", "check_map_response", "check_rate_response", "check_summary", "count_words"),
    "harness.formats.report": ("report_from_text", "report_schema_issues"),
    "harness.parsing.completion": ("CompletionCheck", "CompletionMark", "check_completion", "find_marks"),
}
_EXPORTS = {name: (module, name) for module, names in _HOMES.items() for name in names}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
