"""How far the judge agrees with reviewers: Cohen's kappa, accuracy and per verdict class.

Pairs are (judge, human) verdicts on the same question; a question the judge answered n/a is
left out and counted. Kappa is (po - pe) / (1 - pe); it is undefined (None, n/a) when pe = 1:
both sides gave one and the same class only, where agreement says nothing about the judge, so it
is never reported as 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..artifacts import Calibration, ClassAgreement


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (judge, human) pairs; None with no pairs or when chance agreement is 1."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    judge, human = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(judge[c] * human[c] for c in set(judge) | set(human)) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def calibrate(pairs: Sequence[tuple[str | None, str]], *, min_kappa: float | None = None) -> Calibration:
    """The calibration of a judged figure from (judge, human) verdicts of the questions reviewers
    answered; `judge` None is an unreadable verdict (counted, left out of the agreement)."""
    readable = [(a, b) for a, b in pairs if a is not None]
    classes = sorted({c for pair in readable for c in pair})
    per_class = {
        c: ClassAgreement(judge=sum(1 for a, _ in readable if a == c), human=sum(1 for _, b in readable if b == c),
                          both=sum(1 for a, b in readable if a == b == c))
        for c in classes
    }
    n = len(readable)
    return Calibration(
        status="calibrated" if n else "uncalibrated",
        questions=n,
        unreadable=len(pairs) - n,
        accuracy=sum(1 for a, b in readable if a == b) / n if n else None,
        kappa=cohen_kappa(readable),
        per_class=per_class,
        min_kappa=min_kappa,
    )
