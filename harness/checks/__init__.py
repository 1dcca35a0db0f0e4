"""Format checks on model output that are not a format's own: citations, and query-phase answers.
Pure functions: text in, issues (FormatIssue) or JSON-able dicts out. (The completion check is
the parser's: harness.parsing.completion; the community-report schema is the report format's:
harness.formats.report. Both are re-exported here.)

A lazy facade (harness.lazy_exports), so that importing one check does not import them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_facade

# The public names, bound on first use. `lazy_facade` reads this block: it is the only list of the names.
if TYPE_CHECKING:
    from .answer_citations import check_citations
    from .citations import DEFAULT_DATASETS, Citation, Reference, citation_issues, find_citations
    from .query import check_drift_response, check_map_response, check_rate_response, check_summary, count_words
    from harness.formats.report import report_from_text, report_schema_issues
    from harness.parsing.completion import CompletionCheck, CompletionMark, check_completion, find_marks

__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)
