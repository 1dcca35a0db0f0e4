"""Precision, recall and F1 with the conventions of docs/scoring.md: undefined is None, never 1.0.

- recall with no gold items is None: there was nothing to find, so nothing was shown;
- precision with no predictions is None: an empty answer makes no claim to be right or wrong
  (it still costs recall when there was gold);
- F1 is ``2 tp / (gold + pred)``, 0.0 when one side is empty and None when both are.

A case that is not annotated for a kind gets None for every gold-based rate of that kind;
that is decided in `harness/scoring/case_score.py`. The same functions serve per-case scores and micro averages
(applied to counts summed over annotated cases).
"""

from __future__ import annotations


def precision(tp: int, pred: int, gold: int = 0) -> float | None:
    return None if pred == 0 else tp / pred


def recall(tp: int, gold: int) -> float | None:
    return None if gold == 0 else tp / gold


def f1(tp: int, pred: int, gold: int) -> float | None:
    total = pred + gold
    return None if total == 0 else 2.0 * tp / total


def ratio_or_none(num: float, den: float) -> float | None:
    """A rate that has no defensible value on an empty denominator (type accuracy, endpoint recall)."""
    return None if den == 0 else num / den
