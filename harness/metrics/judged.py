"""Judged matching (`CaseScore.judged`, harness/judges/): entity and relationship precision, recall
and F1 with the suite judge's matches added to exact/alias/fuzzy ones (docs/scoring.md, "Judged
matching"). Beside the string figures, never in their place; n/a (and left out of report tables)
in a suite without `judge:`. Every judged figure is shown with the judge's calibration
(RunSummary.judges)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..model import CaseScore, JudgedMatch
from .ratios import f1, precision, recall
from .registry import Count, register_count, register_prf

DECISION = "match"  # the judge decision these figures stand on (JudgesSummary.figures)


@dataclass(frozen=True)
class _Rates:
    precision: float | None
    recall: float | None
    f1: float | None


def _rates(prefix: str) -> Callable[[CaseScore], _Rates | None]:
    def read(score: CaseScore) -> _Rates | None:
        judged = score.judged
        tp = None if judged is None else getattr(judged, f"{prefix}_tp")
        if judged is None or tp is None:
            return None
        pred, gold = getattr(judged, f"{prefix}_pred"), getattr(judged, f"{prefix}_gold")
        return _Rates(precision(tp, pred, gold), recall(tp, gold), f1(tp, pred, gold))
    return read


def _count(attr: str) -> Callable[[CaseScore], int | None]:
    def read(score: CaseScore) -> int | None:
        judged: JudgedMatch | None = score.judged
        return None if judged is None else getattr(judged, attr)
    return read


for _prefix, _gold in (("entity", "entities"), ("relationship", "relationships")):
    for _part in ("tp", "pred", "gold"):
        register_count(Count(f"judged_{_prefix}_{_part}", _count(f"{_prefix}_{_part}"), _gold))  # type: ignore[arg-type]
    _flags = dict(only_where_defined=True, threshold=">=")
    register_prf(f"judged_{_prefix}", f"Judged {_prefix} {{}}", f"judged {_prefix} {{}}", scores=_rates(_prefix),
                 tp=f"judged_{_prefix}_tp", pred=f"judged_{_prefix}_pred", gold_count=f"judged_{_prefix}_gold",
                 gold=_gold, precision=_flags, recall=_flags, f1=_flags)  # type: ignore[arg-type]

FIGURES: tuple[str, ...] = tuple(f"judged_{p}_{a}" for p in ("entity", "relationship") for a in ("precision", "recall", "f1"))
