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
