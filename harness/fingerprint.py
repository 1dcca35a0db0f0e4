"""Fingerprints of a run's inputs: the suite, each case's gold and input text, the ontology and
each variant's prompt, recorded in summary.json (and so in baselines) as `inputs`.

A fingerprint is the SHA-256 of a canonical JSON text of the *validated values* (keys sorted, no
spaces, UTF-8 as is), never of the file's bytes: the same suite written with other indentation,
quoting, key order or flow style has the same fingerprints on any machine and in any run, and a
changed value changes them. A case's field at its default is left out (`_given`), so a field
added to cases later changes no fingerprint taken before. The first 16 hex digits are kept (64 bits: a chance collision between
two versions of one case is not a practical concern, and 20,000 cases stay a small file).

`METHOD` names this recipe; fingerprints made by another recipe are not compared (unknown).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel

from .model import GoldCase

METHOD: Final = "sha256-16/canonical-json-1"
DIGITS: Final = 16

# what a case is given (its input: the chunk's text and each kind's other inputs) ...
INPUT_FIELDS: Final = ("text", "entity_name", "descriptions", "max_length", "entity_specs", "claim_description",
                       "question", "inputs", "example")
# ... and what its answer is scored against (its gold, with the review state that decides whether
# it counts and the reviewers' verdicts the judge is calibrated on). Left out of both: the case id
# (the key), where the text came from (`chunk`, `source_id`: a moved file with the same text is the
# same input) and who reviewed it when (`reviewer`, `reviewed`).
GOLD_FIELDS: Final = ("entities", "relationships", "annotated", "facts", "claims", "review", "judgements")
LEFT_OUT_FIELDS: Final = ("id", "chunk", "source_id", "reviewer", "reviewed")  # every GoldCase field is in one of the three


def canonical_json(value: Any) -> str:
    """One text per value: pydantic models as their JSON dump, keys sorted, no spaces, no NaN."""
    return json.dumps(_plain(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def fingerprint(value: Any) -> str:
    """The fingerprint of a value (see the module docstring)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:DIGITS]


def _given(case: GoldCase, keys: tuple[str, ...]) -> dict[str, Any]:
    """The case's values of `keys`, those at their default left out: a field added to cases later
    (an extraction case's `example:`) changes no fingerprint taken before it existed."""
    fields = GoldCase.model_fields
    return {key: value for key in keys
            if (value := getattr(case, key)) != fields[key].get_default(call_default_factory=True)}


def gold_fingerprint(case: GoldCase) -> str:
    return fingerprint(_given(case, GOLD_FIELDS))


def input_fingerprint(case: GoldCase) -> str:
    return fingerprint(_given(case, INPUT_FIELDS))


__all__ = ["DIGITS", "GOLD_FIELDS", "INPUT_FIELDS", "LEFT_OUT_FIELDS", "METHOD", "canonical_json", "fingerprint", "gold_fingerprint",
           "input_fingerprint"]
