"""The JSON shape of one case's scores (`harness score --json`, `harness compare --json`)."""

from __future__ import annotations

from typing import Any

from ..model import CaseScore

ENTITY_KEYS = ("precision", "recall", "f1", "strict_f1", "type_accuracy", "tp", "gold", "pred", "exact", "fuzzy",
               "missed", "unmatched")
RELATIONSHIP_KEYS = ("precision", "recall", "f1", "directed_recall", "endpoint_recall", "tp", "gold", "pred",
                     "missed")
TYPED_KEYS = ("precision", "recall", "f1", "tp", "gold", "pred", "missed")


def score_to_json(score: CaseScore) -> dict[str, Any]:
    """Exactly the documented keys, in a fixed order (a stable public surface)."""
    entities = score.entities.model_dump()
    relationships = score.relationships.model_dump()
    doc: dict[str, Any] = {
        "entities": {key: entities[key] for key in ENTITY_KEYS},
        "relationships": {key: relationships[key] for key in RELATIONSHIP_KEYS},
        "grounding": score.grounding.model_dump(),
    }
    if score.typed is not None:  # only a case whose gold is typed (docs/scoring.md, "Typed relationships")
        typed = score.typed.model_dump()
        doc["relationships_typed"] = {key: typed[key] for key in TYPED_KEYS}
    return doc


def rate_text(value: float | None) -> str:
    """A per-case rate for plain-text output: three decimals, or "n/a" when undefined."""
    return "n/a" if value is None else f"{value:.3f}"
