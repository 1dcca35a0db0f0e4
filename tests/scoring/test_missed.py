"""newly(): what one scoring missed that the other did not, in the first one's order."""

from __future__ import annotations

from harness.scoring.missed import newly
from harness.significance import is_real_difference, min_paired_cases


def test_names_and_edges_keep_the_first_sides_order() -> None:
    assert newly(["C", "A", "B"], ["B"]) == ["C", "A"]
    assert newly([["A", "B"], ["B", "C"]], [["B", "C"]]) == [["A", "B"]]
    assert newly([["A", "B"]], [["B", "A"]]) == [["A", "B"]]  # an edge is [source, target] as written
    assert newly([], ["A"]) == [] and newly(["A"], []) == ["A"]


def test_the_noise_rule_needs_enough_cases_an_interval_without_zero_and_a_small_p() -> None:
    n = min_paired_cases()
    assert n == 6
    assert is_real_difference(n, -0.3, -0.1, 0.01)
    assert not is_real_difference(n - 1, -0.3, -0.1, 0.01)
    assert not is_real_difference(n, -0.3, 0.1, 0.01)
    assert not is_real_difference(n, -0.3, -0.1, 0.2)
    assert not is_real_difference(n, None, -0.1, 0.01)
