"""A well-formed GraphRAG community report, for tests to break one field at a time."""

from __future__ import annotations

import json


def report_object(**over: object) -> dict[str, object]:
    """Five findings, each citing an entity; `over` replaces or adds top-level fields."""
    base: dict[str, object] = {
        "title": "Harbour Council",
        "summary": "The council runs the harbour [Data: Entities (1)].",
        "rating": 6.5,
        "rating_explanation": "Moderate impact [Data: Entities (1)].",
        "findings": [{"summary": f"Finding {i}", "explanation": f"Why {i} [Data: Entities ({i})]."} for i in range(5)],
    }
    base.update(over)
    return base


def report_text(**over: object) -> str:
    """`report_object` as the JSON text a model answers with."""
    return json.dumps(report_object(**over))
