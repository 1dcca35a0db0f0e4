"""`harness citations`: the citation checks of one answer, read the way the answer is written: a
community report (every finding must cite), a global-search map answer (every point scored above
0 must cite) or plain query text. The rules themselves are in harness.checks.citations."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from harness.checks.citations import (
    DEFAULT_DATASETS,
    MAX_IDS,
    Citation,
    ContextIds,
    citation_issues,
    find_citations,
    report_parts,
)
from harness.checks.query import issue_json, map_points
from harness.formats.report import report_from_text
from harness.model import FormatIssue
from harness.parsing.issues import issue
from harness.text import scrub_surrogates


def _citation_json(c: Citation) -> dict[str, Any]:
    return {
        "text": c.text,
        "start": c.start,
        "end": c.end,
        "references": [{"dataset": r.dataset, "ids": r.ids, "more": r.more} for r in c.references],
    }


@dataclass(frozen=True)
class CitationCheck:
    """The citations of one answer and what is wrong with them, read as `mode`: a community
    report, a global-search map answer or plain query text (`check_citations`)."""

    mode: Literal["report", "map", "text"]
    citations: list[Citation]
    issues: list[FormatIssue]

    @property
    def ok(self) -> bool:
        return not self.issues

    def to_json(self) -> dict[str, Any]:
        """{"mode", "citations", "issues", "ok"}: what `harness citations --json` prints."""
        return {"mode": self.mode, "citations": [_citation_json(c) for c in self.citations],
                "issues": [issue_json(i) for i in self.issues], "ok": self.ok}


def check_citations(
    text: str,
    allowed_datasets: Collection[str] = DEFAULT_DATASETS,
    context_ids: ContextIds = None,
    *,
    max_ids: int = MAX_IDS,
) -> CitationCheck:
    """For `harness citations FILE`. When the text is a community report (JSON with findings),
    every finding must cite something (citations in the summary and the rating explanation are
    checked too); when it is a global-search map answer ({"points": [...]}), every point scored
    above 0 must cite; otherwise the text is read as a query answer."""
    text = scrub_surrogates(text)  # the text policy: see harness/text.py
    report = report_from_text(text)
    issues: list[FormatIssue] = []
    citations: list[Citation] = []
    points = None if report is not None else map_points(text)
    mode: Literal["report", "map", "text"]
    if report is not None or points is not None:
        if report is not None:
            mode = "report"
            parts = report_parts(report)
        else:
            mode = "map"
            parts = [
                (f"point {n}" if score_needs_citation else f"point {n} (score 0)", description)
                for n, (description, score_needs_citation) in enumerate(points or [], 1)
            ]
        for where, part in parts:
            found = find_citations(part)
            citations.extend(found)
            issues.extend(
                citation_issues(
                    part, allowed_datasets=allowed_datasets, context_ids=context_ids, max_ids=max_ids,
                    citations=found,
                )
            )
            if (where.startswith("finding") or where.startswith("point")) and not where.endswith("(score 0)") and not found:
                issues.append(issue("citation-missing", f"{where.capitalize()} has no [Data: ...] reference.", part))
    else:
        mode = "text"
        citations = find_citations(text)
        issues = citation_issues(
            text, allowed_datasets=allowed_datasets, context_ids=context_ids, max_ids=max_ids, citations=citations
        )
        if not citations and text.strip():
            issues.append(issue("citation-missing", "The answer has no [Data: ...] reference.", text))
    return CitationCheck(mode, citations, issues)
