"""Community reports: GraphRAG's JSON report (title, summary, rating, rating_explanation,
findings of summary and explanation), in or out of fences, repaired when broken.

The report format owns its reader and its schema: the schema checks work on the decoded JSON
object so that type errors the lenient reader papers over are still reported.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from harness.formats.base import DetectionContext, DetectionRule, Delimiters, ExampleRecords, OutputFormat, ReadOutcome
from harness.formats.reading import read_json_answer
from harness.model import CommunityReport, FormatIssue
from harness.parsing.cleanup import clean
from harness.parsing.codes import COMPLETION_CODES, JSON_CODES, REPORT_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.delimited import ParsedRecords
from harness.parsing.detect import REPORT_KEYS
from harness.parsing.fields import parse_strength
from harness.parsing.issues import issue, short
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import Loaded, load_json

_WRAPPERS = ("report", "community_report", "community", "result", "output", "response")


def unwrap_report(value: Any) -> Any:
    """{"report": {...}} or [{...}] around the report object."""
    for _ in range(3):
        if isinstance(value, list) and len(value) >= 1 and isinstance(value[0], dict):
            value = value[0]
            continue
        if isinstance(value, dict) and "title" not in value and "findings" not in value:
            for key in _WRAPPERS:
                if isinstance(value.get(key), dict):
                    value = value[key]
                    break
            else:
                break
            continue
        break
    return value


def _str(value: Any) -> str:
    if value is None:
        return ""
    return value.strip() if isinstance(value, str) else short(value, 2000)


def coerce_rating(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    rating, status = parse_strength(str(value))
    return rating if status in ("ok", "repaired") else None


def build_report(obj: dict[str, Any]) -> CommunityReport:
    """A CommunityReport from a decoded report object, leniently: findings given as strings or as
    a dict keyed by number are accepted; wrong types become text."""
    findings: list[dict[str, str]] = []
    raw_findings = obj.get("findings")
    if isinstance(raw_findings, dict):
        raw_findings = list(raw_findings.values())
    if isinstance(raw_findings, list):
        for f in raw_findings:
            if isinstance(f, dict):
                findings.append(
                    {
                        "summary": _str(f.get("summary", f.get("title", ""))),
                        "explanation": _str(f.get("explanation", f.get("description", ""))),
                    }
                )
            elif isinstance(f, str):
                findings.append({"summary": "", "explanation": f.strip()})
    return CommunityReport.model_validate(
        {
            "title": _str(obj.get("title")),
            "summary": _str(obj.get("summary")),
            "rating": coerce_rating(obj.get("rating")),
            "rating_explanation": _str(obj.get("rating_explanation")),
            "findings": findings,
        }
    )


def parse_report(text: str, log: IssueLog) -> tuple[CommunityReport | None, Loaded | None, int, int]:
    """Returns (report, loaded JSON, records seen, records parsed); one report is one record."""
    dropped_before = log.dropped_count
    loaded = load_json(text, log)
    lost = log.dropped_count - dropped_before  # further values load_json could not read
    if loaded is None:
        log.drop("json-invalid", text)
        return None, None, 1 + lost, 0
    if loaded.before:
        log.note("preamble", loaded.before)
    if loaded.after:
        log.note("closing-note", loaded.after)
    obj = unwrap_report(loaded.value)
    if not isinstance(obj, dict):
        log.drop("report-not-object", short(obj))
        return None, loaded, 1 + lost, 0
    for item in report_schema_issues(obj):
        log.note(item.code, item.excerpt, item.message)
    return build_report(obj), loaded, 1 + lost, 1


# --------------------------------------------------------------------------- schema

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
    obj = report_object_from_text(text)
    return build_report(obj) if obj is not None else None


# --------------------------------------------------------------------------- the format


def _report_object_first(ctx: DetectionContext) -> bool:
    """The common case: an answer that opens with a JSON object holding report keys."""
    text = ctx.text
    return ctx.head == "{" and not ctx.has_td and ('"findings"' in text or '"rating_explanation"' in text)


def _report_keys(ctx: DetectionContext) -> bool:
    return "{" in ctx.text and REPORT_KEYS.search(ctx.text) is not None


class ReportFormat(OutputFormat):
    name: ClassVar[str] = "report"
    delimited: ClassVar[bool] = False
    variables: ClassVar[tuple[str, ...]] = ("input_text", "language")
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | JSON_CODES | REPORT_CODES
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (
        DetectionRule(20, _report_object_first),
        DetectionRule(80, _report_keys),
    )
    requires_completion_delimiter: ClassVar[bool] = False
    single_object: ClassVar[bool] = True
    example_template: ClassVar[str] = "Example {n}:\nText:\n{text}\n\nOutput:\n{output}"

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        def read_value(body: str) -> tuple[ParsedRecords, CommunityReport | None, Loaded | None]:
            report, loaded, seen, parsed = parse_report(body, log)
            records = ParsedRecords()
            records.seen, records.parsed = seen, parsed
            return records, report, loaded

        return read_json_answer(self.name, text, delimiters, log, read_value)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        return json.dumps(example.report or {}, ensure_ascii=False, indent=2)
