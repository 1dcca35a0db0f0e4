"""Aggregating bare scores in tests: each measured once (as the runner does), then pooled."""

from __future__ import annotations

from collections.abc import Iterable

from harness.model import CaseScore, SuiteMetrics
from harness.scoring import aggregate, measure


def pooled(scores: Iterable[CaseScore]) -> SuiteMetrics:
    """`aggregate` of the scores' metric values (`scoring.case_metrics.measure` of each)."""
    return aggregate([measure(score) for score in scores])
