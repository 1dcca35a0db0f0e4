"""(d) Pairwise preference between two variants' answers (`judge.pairwise`, docs/judges.md).

Per case both variants answered, the judge sees the two answers in both orders (a first, then b
first), `repeat` times each; every answer is read as FIRST / SECOND / TIE or n/a, and mapped to
the variant it prefers. The figure is b's win rate over a, ties counted as half a win, with a 95%
Wilson score interval over the readable verdicts; order bias is shown as how often the preferred
variant flips when only the order changed, and the share of decided verdicts that chose whichever
answer came first. Cassettes: `fixtures/judge-cassettes/<suite>/pairwise.<a>.<b>/<case>.json`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..artifacts import PairwiseSummary, PairwiseVerdict
from ..model import CaseResult, GoldCase
from .calibration import calibrate
from .verdict import read_preference

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (successes may be fractional: ties as halves);
    None with no trials."""
    if n <= 0:
        return None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def answer_text(row: CaseResult) -> str:
    """What the judge compares: the row's answer, every round of it."""
    return "\n".join(r.output for r in row.rounds if r.kind != "loop")


def questions(case: GoldCase, a: CaseResult, b: CaseResult, repeat: int) -> list[tuple[int, str, str, str]]:
    """(repeat, order, first answer, second answer) for each question of a case, in asking order."""
    ta, tb = answer_text(a), answer_text(b)
    return [(k, order, *((ta, tb) if order == "ab" else (tb, ta))) for k in range(repeat) for order in ("ab", "ba")]


def verdict(case: str, repeat: int, order: str, text: str, a: str, b: str) -> PairwiseVerdict:
    answer = read_preference(text)
    first, second = (a, b) if order == "ab" else (b, a)
    preferred = None if answer is None else "tie" if answer == "tie" else first if answer == "first" else second
    return PairwiseVerdict(case=case, repeat=repeat, order=order, answer=answer, preferred=preferred)


def summarize(a: str, b: str, verdicts: Sequence[PairwiseVerdict], human: Mapping[str, str] | None = None, *,
              min_kappa: float | None = None) -> PairwiseSummary:
    """The figures of (d); `human` is the reviewers' preference per case (a's name, b's or `tie`):
    every verdict of a reviewed case, in either order and any repeat, is compared with it
    (an unreadable one is counted and left out), so a judge that flips with the order loses
    agreement on the flipped verdicts."""
    readable = [v for v in verdicts if v.preferred is not None]
    b_wins = sum(v.preferred == b for v in readable)
    a_wins = sum(v.preferred == a for v in readable)
    ties = sum(v.preferred == "tie" for v in readable)
    n = len(readable)
    rate = (b_wins + ties / 2) / n if n else None
    interval = wilson_interval(b_wins + ties / 2, n)
    by_pair: dict[tuple[str, int], dict[str, str]] = {}
    for v in readable:
        by_pair.setdefault((v.case, v.repeat), {})[v.order] = v.preferred or ""
    both = [p for p in by_pair.values() if len(p) == 2]
    decided = [v for v in readable if v.answer in ("first", "second")]
    return PairwiseSummary(
        a=a, b=b, cases=len({v.case for v in verdicts}), verdicts=list(verdicts), b_wins=b_wins, a_wins=a_wins,
        ties=ties, unreadable=len(verdicts) - n, b_win_rate=rate, interval=None if interval is None else list(interval),
        order_pairs=len(both), order_flips=sum(p["ab"] != p["ba"] for p in both),
        first_position_rate=sum(v.answer == "first" for v in decided) / len(decided) if decided else None,
        calibration=calibrate([(v.preferred, (human or {})[v.case]) for v in verdicts if v.case in (human or {})],
                              min_kappa=min_kappa),
    )


def question_id(a: str, b: str) -> str:
    """What a reviewer's pairwise `judgements:` entry names: its verdict is a's name, b's or `tie`."""
    return f"pairwise: {a} vs {b}"


def cassette_path(root: Path, suite: str, a: str, b: str, case_id: str) -> Path:
    return root / "fixtures" / "judge-cassettes" / suite / f"pairwise.{a}.{b}" / f"{case_id}.json"
