"""Community reports: GraphRAG's JSON report (title, summary, rating, rating_explanation,
findings of summary and explanation), in or out of fences, repaired when broken."""

from __future__ import annotations

from typing import Any

from harness.model import CommunityReport
from harness.parsing.fields import parse_strength
from harness.parsing.issues import short
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
    from harness.checks.report_schema import report_schema_issues  # lazy: checks imports parsing

    for item in report_schema_issues(obj):
        log.note(item.code, item.excerpt, item.message)
    return build_report(obj), loaded, 1 + lost, 1
