"""Precision, recall and F1 with the empty-set conventions of docs/scoring.md.

- recall with no gold items is 1.0: nothing could be missed;
- precision with no predictions is 1.0 if there was no gold either, else 0.0: an empty answer
  is only right when there was nothing to find (so a silent model never earns precision);
- F1 is ``2 tp / (gold + pred)``, and 1.0 when both are empty. This equals the harmonic mean
  of the two conventions above in every case.

The same functions serve per-case scores and micro averages (applied to summed counts).
"""

from __future__ import annotations


def precision(tp: int, pred: int, gold: int) -> float:
    if pred == 0:
        return 1.0 if gold == 0 else 0.0
    return tp / pred


def recall(tp: int, gold: int) -> float:
    return 1.0 if gold == 0 else tp / gold


def f1(tp: int, pred: int, gold: int) -> float:
    total = pred + gold
    return 1.0 if total == 0 else 2.0 * tp / total


def ratio_or_none(num: int, den: int) -> float | None:
    """A rate that has no defensible value on an empty denominator (type accuracy, endpoint recall)."""
    return None if den == 0 else num / den
