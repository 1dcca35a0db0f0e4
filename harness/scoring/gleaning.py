"""Gleaning yield of a variant: per answer position (the first answer, then each gleaning answer),
what that answer added, pooled over the variant's cases (docs/scoring.md, "Gleaning yield").

It reads the per-case `ReferenceFreeScores.rounds` (`reference_free.round_yields`); a case without
reference-free figures is left out. Answer positions come from the case's stored rounds (loop
checks left out), so an answer that added nothing is still counted as a case that had it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..artifacts import GleaningRound
from ..model import CaseResult

# A gleaning round whose new entities are grounded at most this share of round 0's rate is worth a
# console note ("far below"): half as often grounded as the first answer.
FAR_BELOW = 0.5


@dataclass
class _Pool:
    cases: int = 0
    entities: int = 0
    relationships: int = 0
    grounded: int = 0
    leaks: int = 0
    leak_entities: int = 0  # new entities of the cases that knew their examples
    leak_cases: int = 0


def gleaning_yield(rows: Iterable[CaseResult]) -> list[GleaningRound]:
    """Per answer position, pooled over the cases with reference-free figures; [] when none has them."""
    pools: dict[int, _Pool] = {}
    for row in rows:
        scores = row.score.reference_free if row.score is not None else None
        if scores is None:
            continue
        # one RoundYield per answer of the case, an answer that added nothing included (the runner
        # gives reference_free the case's answers)
        for found in scores.rounds:
            pool = pools.setdefault(found.round, _Pool())
            pool.cases += 1
            pool.entities += found.entities
            pool.relationships += found.relationships
            pool.grounded += found.grounded
            if found.example_leaks is not None:
                pool.leaks += found.example_leaks
                pool.leak_entities += found.entities
                pool.leak_cases += 1
    return [
        GleaningRound(
            round=position,
            cases=pool.cases,
            entities=pool.entities,
            relationships=pool.relationships,
            grounded=pool.grounded,
            grounding_rate=round(pool.grounded / pool.entities, 6) if pool.entities else None,
            example_leaks=pool.leaks if pool.leak_cases else None,
            leak_rate=round(pool.leaks / pool.leak_entities, 6) if pool.leak_cases and pool.leak_entities else None,
        )
        for position, pool in sorted(pools.items())
    ]


def has_gleaning(rounds: list[GleaningRound]) -> bool:
    """Whether any case had a gleaning answer (a position >= 1)."""
    return any(r.round >= 1 for r in rounds)


def grounding_drops(rounds: list[GleaningRound], far_below: float = FAR_BELOW) -> list[GleaningRound]:
    """Gleaning positions whose new entities are grounded at most `far_below` times round 0's rate
    (both rates defined, round 0's above zero)."""
    first = next((r for r in rounds if r.round == 0), None)
    if first is None or not first.grounding_rate:
        return []
    return [r for r in rounds
            if r.round >= 1 and r.grounding_rate is not None and r.grounding_rate <= far_below * first.grounding_rate]
