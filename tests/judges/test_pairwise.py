"""Pairwise preference: both orders mapped to variants, ties as halves, Wilson intervals by hand."""

from __future__ import annotations

import pytest

from harness.judges.pairwise import summarize, verdict, wilson_interval
from harness.judges.verdict import read_preference


def test_wilson_interval_computed_by_hand() -> None:
    # p = 8/10, z = 1.96: centre (0.8 + 0.19208) / 1.38415 = 0.71677, half 1.96 * sqrt(0.016 + 0.009604) / 1.38415 = 0.22658
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=5e-4) and high == pytest.approx(0.9433, abs=5e-4)


def test_wilson_interval_at_the_edges_stays_inside_zero_one() -> None:
    low, high = wilson_interval(0, 5)
    assert low == 0.0 and 0 < high < 0.5
    assert wilson_interval(0, 0) is None


@pytest.mark.parametrize(("text", "answer"), [("FIRST", "first"), ("Second.", "second"), ("tie", "tie"),
                                              ("**B**", "second"), ("Both are fine", None), ("", None)])
def test_read_preference(text: str, answer: str | None) -> None:
    assert read_preference(text) == answer


def test_the_order_decides_which_variant_first_and_second_name() -> None:
    assert verdict("c", 0, "ab", "FIRST", "base", "new").preferred == "base"
    assert verdict("c", 0, "ba", "FIRST", "base", "new").preferred == "new"
    assert verdict("c", 0, "ba", "SECOND", "base", "new").preferred == "base"
    assert verdict("c", 0, "ab", "TIE", "base", "new").preferred == "tie"
    assert verdict("c", 0, "ab", "maybe", "base", "new").preferred is None


def test_summary_counts_ties_as_halves_and_shows_order_bias() -> None:
    verdicts = [verdict("x", 0, "ab", "SECOND", "a", "b"), verdict("x", 0, "ba", "FIRST", "a", "b"),  # b, b: stable
                verdict("y", 0, "ab", "FIRST", "a", "b"), verdict("y", 0, "ba", "FIRST", "a", "b"),   # a, b: a flip
                verdict("z", 0, "ab", "TIE", "a", "b"), verdict("z", 0, "ba", "??", "a", "b")]        # tie, n/a
    s = summarize("a", "b", verdicts)
    assert (s.b_wins, s.a_wins, s.ties, s.unreadable, s.cases) == (3, 1, 1, 1, 3)
    assert s.b_win_rate == pytest.approx(3.5 / 5)
    assert (s.order_pairs, s.order_flips) == (2, 1)
    assert s.first_position_rate == pytest.approx(3 / 4)  # of 4 decided verdicts, 3 chose the first shown
    assert s.interval is not None and s.interval[0] < 0.7 < s.interval[1]


def test_no_readable_verdict_is_na_not_zero() -> None:
    s = summarize("a", "b", [verdict("x", 0, "ab", "?", "a", "b")])
    assert s.b_win_rate is None and s.interval is None and s.first_position_rate is None
