"""What both scorings read of a prediction first: its entities de-duplicated by normalised name,
and which of them the chunk names (grounding). Gold-based scoring (`case_score`) and the
reference-free figures (`reference_free`) share it, so "grounded" means one thing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..model import Entity
from .normalize import normalize_name, normalize_text, occurs_in


@dataclass
class PredictedEntities:
    """Entity records de-duplicated by normalised name: the first occurrence's name is kept, with
    the first non-empty type; records with a blank name are left out (counted in `blanks`)."""

    keys: list[str] = field(default_factory=list)  # normalised names, in order of first appearance
    names: list[str] = field(default_factory=list)  # as first predicted
    types: list[str] = field(default_factory=list)  # the first non-empty type of each
    position: dict[str, int] = field(default_factory=dict)  # normalised name -> index
    duplicates: int = 0  # records beyond the first of a name
    blanks: int = 0


def predicted_entities(entities: Iterable[Entity]) -> PredictedEntities:
    found = PredictedEntities()
    for ent in entities:
        if not ent.name.strip():
            found.blanks += 1
            continue
        key = normalize_name(ent.name)
        j = found.position.get(key)
        if j is None:
            found.position[key] = len(found.keys)
            found.keys.append(key)
            found.names.append(ent.name)
            found.types.append(ent.type)
        else:
            found.duplicates += 1
            if not found.types[j].strip():
                found.types[j] = ent.type
    return found


@lru_cache(maxsize=1024)
def _text_key(text: str) -> str:
    return normalize_text(text)


def grounded_in(keys: Sequence[str], text: str) -> list[bool]:
    """For each normalised name, whether it occurs in `text` as whole tokens (`occurs_in`)."""
    return list(_grounded(tuple(keys), text))


@lru_cache(maxsize=8)
def _grounded(keys: tuple[str, ...], text: str) -> tuple[bool, ...]:
    """`grounded_in`, kept for the last few cases: a case's gold scoring and its reference-free
    figures ask it of the same names and chunk, one after the other."""
    text_key = _text_key(text)
    return tuple(occurs_in(key, text_key) for key in keys)
