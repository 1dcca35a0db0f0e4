"""JSON-able views of parse results for the CLI (`harness parse --json`)."""

from __future__ import annotations

from typing import Any

from harness.model import ParseResult


def parse_result_to_json(result: ParseResult) -> dict[str, Any]:
    """Exactly the shape `harness parse --json` prints."""
    g = result.graph
    fr = result.format_report
    return {
        "format": result.format,
        "entities": [{"name": e.name, "type": e.type, "description": e.description} for e in g.entities],
        "relationships": [
            {
                "source": r.source,
                "target": r.target,
                "description": r.description,
                "strength": r.strength,
                "keywords": r.keywords,
                **({"type": r.type} if r.type else {}),  # a triple's predicate (left out when empty)
            }
            for r in g.relationships
        ],
        "claims": [
            {
                "subject": c.subject,
                "object": c.object,
                "type": c.type,
                "status": c.status,
                "start_date": c.start_date,
                "end_date": c.end_date,
                "description": c.description,
                "source_text": c.source_text,
            }
            for c in g.claims
        ],
        "report": g.report.model_dump() if g.report is not None else None,
        "format_report": {
            "records_seen": fr.records_seen,
            "records_parsed": fr.records_parsed,
            "records_dropped": fr.records_dropped,
            "completion": fr.completion,
            "issues": [{"code": i.code, "message": i.message, "excerpt": i.excerpt} for i in fr.issues],
        },
    }


# Codes that say why an answer gave no records (the first one found is named).
_EMPTY_REASONS = ("empty-output", "refusal", "no-records", "json-invalid", "empty-extraction", "no-triples", "internal-error")


def parse_summary(result: ParseResult) -> dict[str, Any]:
    """How the prediction parsed, as `harness score --json` prints it under `parse`."""
    fr = result.format_report
    return {
        "format": result.format,
        "records_parsed": fr.records_parsed,
        "records_dropped": fr.records_dropped,
        "completion": fr.completion,
        "issues": [{"code": i.code, "message": i.message, "excerpt": i.excerpt, "dropped": i.dropped} for i in fr.issues],
    }


def parse_problem_line(result: ParseResult) -> str | None:
    """One line saying the prediction gave no records, or lost some; None when it parsed clean.
    (A score of 0 then means "nothing was read", not "the model was wrong".)"""
    fr = result.format_report
    if fr.records_parsed > 0 and fr.records_dropped == 0:
        return None
    codes = [i.code for i in fr.issues]
    if fr.records_parsed == 0 and not result.graph.entities and result.graph.report is None:
        reason = next((c for c in _EMPTY_REASONS if c in codes), None)
        if reason is None:
            reason = next((i.code for i in fr.issues if i.dropped), "no-records")
        issue = next((i for i in fr.issues if i.code == reason), None)
        detail = f": {issue.excerpt or issue.message}" if issue is not None else ""
        return f"prediction: 0 records parsed ({reason}, format {result.format}){detail}"
    if fr.records_dropped == 0:
        return None
    dropped: dict[str, int] = {}
    for issue in fr.issues:
        if issue.dropped:
            dropped[issue.code] = dropped.get(issue.code, 0) + 1
    first = next(i for i in fr.issues if i.dropped)
    counts = ", ".join(f"{code} x{n}" if n > 1 else code for code, n in dropped.items())
    return (f"prediction: {fr.records_parsed} records parsed, {fr.records_dropped} dropped ({counts}, "
            f"format {result.format}): first {first.excerpt!r}")
