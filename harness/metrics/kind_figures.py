"""Reading a suite kind's own per-case figures (`CaseScore.figures` under the kind's
`KindSpec.score_key`: "summary", "report", "claims", "map_points") into metric values: one set of helpers for the report, claims and map families,
each of which reads one score model. A case of another kind has None there, so every value is
None and it pools nothing (n/a outside the kind's suites)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..model import CaseScore
from .ratios import ratio_or_none
from .registry import Metric, register

Read = Callable[[Any], "int | float | None"]
_V = TypeVar("_V", bound=float)  # int or float


def figure(attr: str, read: Callable[[Any], _V | None]) -> Callable[[CaseScore], _V | None]:
    """A per-case value read from the score model under `attr` of `CaseScore.figures`; None when it is absent."""
    def value(score: CaseScore) -> _V | None:
        model = score.figures.get(attr)
        return None if model is None else read(model)

    return value


def ratio(attr: str, num: Read, den: Read) -> Callable[[CaseScore], float | None]:
    """num / den of the score model under `attr` of `CaseScore.figures`; None when it is absent,
    when either side is None, or on an empty denominator."""
    def value(score: CaseScore) -> float | None:
        model = score.figures.get(attr)
        if model is None:
            return None
        n, d = num(model), den(model)
        return None if n is None or d is None else ratio_or_none(n, d)

    return value


def valid_ids(model: Any) -> int | None:
    """Cited ids that the context lists; None when there was nothing to check them against."""
    return None if model.citations_invalid is None else model.citations - model.citations_invalid


def checked_ids(model: Any) -> int | None:
    """Cited ids checked against the context; None when there was nothing to check them against."""
    return None if model.citations_invalid is None else model.citations


def with_gold_facts(read: Callable[[Any], int]) -> Callable[[Any], int | None]:
    """A gold-fact count; None for a case without gold facts (it pools nothing)."""
    return lambda model: read(model) if model.gold_facts else None


def register_kind_rate(kind: str, key_figures: tuple[str, ...], name: str, label: str, phrase: str, num: str,
                       den: str, value: Callable[[CaseScore], float | None], rank: int, short: str) -> None:
    """A higher-is-better rate of a suite kind: Σ num / Σ den over its cases, a `>=` threshold, n/a
    (and its row left out) outside the kind's suites, a key figure when named in `key_figures`."""
    register(Metric(
        name, label, phrase, value=value,
        micro=lambda c: ratio_or_none(c[num], c[den]), pools=(num, den), gold=None,
        threshold=">=", report_rank=rank, only_where_defined=True, short_label=short,
        suite_kind=kind, key_figure=name in key_figures,
    ))
