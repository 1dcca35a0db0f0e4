"""Alignment: exact before fuzzy, one-to-one, maximum weight, deterministic ties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.scoring.align import Match, _assign, _assign_exact, align


def pairs(matches: list[Match]) -> list[tuple[int, int, str]]:
    return [(m.gold, m.pred, m.kind) for m in matches]


def test_exact_on_name_and_alias() -> None:
    gold = [["velaprotin", "vlp 12"], ["krx 7 kinase", "krx 7"]]
    assert pairs(align(gold, ["krx 7", "velaprotin"], 0.9)) == [(0, 1, "exact"), (1, 0, "exact")]


def test_name_match_beats_alias_match() -> None:
    # Torvanase has alias TrvA; the gene is named trvA. The prediction "trva" is the gene.
    gold = [["torvanase", "trva"], ["trva"]]
    assert pairs(align(gold, ["trva"], 0.9)) == [(1, 0, "exact")]


def test_alias_already_taken_leaves_prediction_unmatched() -> None:
    # Both the name and the alias were predicted: one gold entity, so one match.
    gold = [["velaprotin", "vlp 12"]]
    assert pairs(align(gold, ["velaprotin", "vlp 12"], 0.9)) == [(0, 0, "exact")]


def test_exact_tie_goes_to_earlier_gold() -> None:
    gold = [["caldera institute", "ci"], ["crane industries", "ci"]]
    assert pairs(align(gold, ["ci"], 0.9)) == [(0, 0, "exact")]


def test_fuzzy_tie_goes_to_earlier_gold() -> None:
    # ratio = 2 * 10 / 21 = 0.952 against both gold entities
    gold = [["abcdefghij1"], ["abcdefghij2"]]
    assert pairs(align(gold, ["abcdefghij"], 0.9)) == [(0, 0, "fuzzy")]


def test_all_equal_ties_pair_in_order() -> None:
    # every pair has ratio 2 * 10 / 22 = 0.909: earlier gold gets the earlier prediction
    gold = [["abcdefghijx"], ["abcdefghijy"]]
    assert pairs(align(gold, ["abcdefghijz", "abcdefghijw"], 0.9)) == [(0, 0, "fuzzy"), (1, 1, "fuzzy")]
    assert pairs(align(gold[::-1], ["abcdefghijz", "abcdefghijw"], 0.9)) == [(0, 0, "fuzzy"), (1, 1, "fuzzy")]


def test_maximum_weight_not_greedy() -> None:
    # similarities (gold x pred): [[0.96, 0.917], [0.923, 0.80]]. Greedy would take 0.96 and stop
    # at one match (0.80 is below the threshold); the assignment finds two: 0.917 + 0.923.
    gold = [["abcdefghijkl"], ["abcdefghijxlm"]]
    matches = align(gold, ["abcdefghijklm", "abcdefghijkz"], 0.9)
    assert pairs(matches) == [(0, 1, "fuzzy"), (1, 0, "fuzzy")]
    assert matches[0].similarity == pytest.approx(22 / 24)
    assert matches[1].similarity == pytest.approx(24 / 26)


def test_fuzzy_uses_best_of_name_and_aliases() -> None:
    # "harrow pulmonary fibrosi" is 0.98 from the name; "hpf x" is 2*3/8 = 0.75 from the alias
    gold = [["harrow pulmonary fibrosis", "hpf"]]
    assert pairs(align(gold, ["hpf x", "harrow pulmonary fibrosi"], 0.9)) == [(0, 1, "fuzzy")]


def test_threshold_is_inclusive_and_configurable() -> None:
    # LCS 9 over 20 characters: ratio exactly 0.90
    gold = [["abcdefghij"]]
    assert pairs(align(gold, ["abcdefghix"], 0.90)) == [(0, 0, "fuzzy")]
    assert align(gold, ["abcdefghix"], 0.91) == []
    assert pairs(align(gold, ["zzz"], 0.0)) == [(0, 0, "fuzzy")]  # threshold 0: anything goes


def test_exact_is_locked_before_fuzzy() -> None:
    # "abcdefghijk" is an exact match for gold 1, even though it is also 0.95 from gold 0.
    gold = [["abcdefghij"], ["abcdefghijk"]]
    assert pairs(align(gold, ["abcdefghijk"], 0.9)) == [(1, 0, "exact")]


def test_empty_inputs() -> None:
    assert align([], ["a"], 0.9) == []
    assert align([["a"]], [], 0.9) == []


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.data())
def test_exact_stage_without_a_matrix_assigns_as_the_matrix_does(n: int, m: int, data: st.DataObject) -> None:
    # the exact stage skips the matrix when nothing is contested: it must give _assign's pairs
    cells = data.draw(st.dictionaries(st.tuples(st.integers(0, n - 1), st.integers(0, m - 1)), st.sampled_from([1, 2])))
    weights = np.zeros((n, m), dtype=np.int64)
    for (i, j), weight in cells.items():
        weights[i, j] = weight
    assert _assign_exact(cells, n, m) == _assign(weights)
