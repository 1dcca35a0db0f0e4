"""The one rule for "this difference is not noise", shared by compare, the gate and the reports.

Pure Python (no numpy): the run artifacts (`harness.artifacts`) use it to say whether a stored
delta is significant, and light commands import those.
"""

from __future__ import annotations

_TOL = 1e-12


def min_paired_cases(confidence: float = 0.95) -> int:
    """The fewest paired cases with which the exact sign-flip test can reach p < 1 - confidence.

    Its smallest two-sided p-value is 2 / 2^n (all differences of one sign), so below this many
    cases no difference can be told from chance, however large (6 at 95%).
    """
    alpha = 1.0 - confidence
    n = 1
    while 2.0 ** (1 - n) >= alpha:
        n += 1
    return n


def is_real_difference(
    n: int, ci_low: float | None, ci_high: float | None, p_value: float | None, confidence: float = 0.95
) -> bool:
    """At least `min_paired_cases` cases, an interval that excludes zero and p < 1 - confidence."""
    if ci_low is None or ci_high is None or p_value is None or n < min_paired_cases(confidence):
        return False
    excludes_zero = ci_high < -_TOL or ci_low > _TOL
    return excludes_zero and p_value < 1.0 - confidence
