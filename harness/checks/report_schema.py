"""Community report schema: the fields GraphRAG's report prompt asks for, their types, the rating
range and the number of findings. Works on the decoded JSON object so that type errors the
lenient parser would paper over are still reported."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from harness.model import CommunityReport, FormatIssue
from harness.parsing.issues import issue, short
from harness.text import scrub_surrogates

REQUIRED = ("title", "summary", "rating", "rating_explanation", "findings")
MIN_FINDINGS = 5
MAX_FINDINGS = 10


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    if isinstance(value, str):
        try:
            float(value.strip())
            return True
        except ValueError:
            return False
    return False


def report_schema_issues(
    obj: Any,
    *,
    min_findings: int = MIN_FINDINGS,
    max_findings: int = MAX_FINDINGS,
    rating_range: tuple[float, float] = (0.0, 10.0),
) -> list[FormatIssue]:
    """Every way `obj` departs from the report schema (empty list when it conforms)."""
    if not isinstance(obj, dict):
        return [issue("report-not-object", f"Expected a JSON object, got {type(obj).__name__}.", short(obj))]
    out: list[FormatIssue] = []
    for key in REQUIRED:
        if key not in obj:
            out.append(issue("report-missing-field", f"Missing field {key!r}.", key))
    for key in ("title", "summary", "rating_explanation"):
        if key in obj and not isinstance(obj[key], str):
            out.append(issue("report-field-type", f"{key!r} should be a string.", short(obj[key])))
    if "rating" in obj:
        rating = obj["rating"]
        if not _is_number(rating):
            out.append(issue("report-rating-invalid", f"rating {short(rating, 40)} is not a number.", short(rating)))
        else:
            value = float(rating)
            if not rating_range[0] <= value <= rating_range[1]:
                out.append(
                    issue(
                        "report-rating-range",
                        f"rating {value:g} outside {rating_range[0]:g}-{rating_range[1]:g}.",
                        short(rating),
                    )
                )
            if isinstance(rating, str):
                out.append(issue("report-field-type", "'rating' should be a number, not a string.", rating))
    if "findings" in obj:
        findings = obj["findings"]
        if not isinstance(findings, list):
            out.append(issue("report-field-type", "'findings' should be a list.", short(findings)))
        else:
            if not min_findings <= len(findings) <= max_findings:
                out.append(
                    issue(
                        "report-findings-count",
                        f"{len(findings)} findings; expected {min_findings}-{max_findings}.",
                        str(len(findings)),
                    )
                )
            for i, f in enumerate(findings):
                if not isinstance(f, dict):
                    out.append(issue("report-finding-invalid", f"Finding {i + 1} is not an object.", short(f)))
                    continue
                for key in ("summary", "explanation"):
                    if not isinstance(f.get(key), str) or not f.get(key, "").strip():
                        out.append(
                            issue("report-finding-invalid", f"Finding {i + 1} has no {key!r}.", short(f))
                        )
    extra = [k for k in obj if k not in REQUIRED]
    if extra:
        out.append(issue("report-extra-field", f"Unexpected fields: {', '.join(map(str, extra))}.", ", ".join(map(str, extra))))
    return out


def report_object_from_text(text: str) -> dict[str, Any] | None:
    """The report object inside a model answer (fences, prose and broken JSON tolerated), or
    None when the text holds no JSON object that looks like a report."""
    from harness.parsing.cleanup import clean
    from harness.parsing.issues_log import IssueLog
    from harness.parsing.json_output import load_json
    from harness.parsing.report import unwrap_report

    if "{" not in text:
        return None
    log = IssueLog()
    cleaned, _ = clean(text, log)
    loaded = load_json(cleaned, log)
    if loaded is None:
        return None
    obj = unwrap_report(loaded.value)
    if isinstance(obj, dict) and ("findings" in obj or ("title" in obj and "summary" in obj)):
        return obj
    return None


def report_from_text(text: str) -> CommunityReport | None:
    from harness.parsing.report import build_report

    obj = report_object_from_text(text)
    return build_report(obj) if obj is not None else None


def check_report(
    text: str,
    *,
    allowed_datasets: Collection[str] | None = None,
    context_ids: Any = None,
    min_findings: int = MIN_FINDINGS,
    max_findings: int = MAX_FINDINGS,
    require_citations: bool = True,
) -> list[FormatIssue]:
    """Schema and citation problems of one community-report answer."""
    from harness.checks.citations import DEFAULT_DATASETS, citation_issues, find_citations, report_parts

    text = scrub_surrogates(text)  # the text policy: see harness/text.py
    obj = report_object_from_text(text)
    if obj is None:
        return [issue("report-not-object", "No report JSON object found.", text)]
    out = report_schema_issues(obj, min_findings=min_findings, max_findings=max_findings)
    datasets = allowed_datasets if allowed_datasets is not None else DEFAULT_DATASETS
    from harness.parsing.report import build_report

    report = build_report(obj)
    for where, part in report_parts(report):
        found = find_citations(part)
        out.extend(citation_issues(part, allowed_datasets=datasets, context_ids=context_ids, citations=found))
        if require_citations and where.startswith("finding") and not found:
            out.append(issue("citation-missing", f"{where.capitalize()} has no [Data: ...] reference.", part))
    return out
