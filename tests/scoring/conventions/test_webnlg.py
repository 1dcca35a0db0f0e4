"""The WebNLG+ 2020 text-to-RDF scoring (harness.scoring.conventions.webnlg), against figures
counted by hand from the challenge's rules (the module docstring) and nervaluate 0.1.7's."""

from __future__ import annotations

from fractions import Fraction

import pytest

from harness.scoring.conventions import webnlg as wn


def _exact(figures: dict) -> dict:
    return {mode: tuple(Fraction(v).limit_denominator(1000) for v in values) for mode, values in figures.items()}


def _pair(reference: str, candidate: str) -> dict:
    return _exact(wn.score_pair(wn.normalise(reference), wn.normalise(candidate)).figures)


def test_normalise_splits_camel_case_underscores_and_drops_a_trailing_note_of_the_object_only():
    assert wn.normalise("Turn_Me_On_(album) | runtime | 35.1_(minutes)") == "turn me on (album) | runtime | 35.1"
    assert wn.normalise("Alan_B._Miller_Hall | currentTenants |  Mason  School") == \
        "alan b. miller hall | current tenants | mason school"


def test_an_identical_triple_scores_one_under_every_scheme():
    assert _pair("Trane | foundingDate | 1913-01-01", "Trane | foundingDate | 1913-01-01") == \
        {mode: (1, 1, 1) for mode in wn.MODES}


def test_every_element_in_the_wrong_place_is_one_third_typed_and_two_thirds_untyped():
    # WebNLG-Text-to-triples issue #10: A|B|C against C|A|B. The crossed try links candidate
    # subject C to reference object C (exact, wrong type), the predicate is re-read from that
    # crossed pair (a hit), the candidate object is spurious and the reference subject missed:
    # strict/ent_type 1 of 3, exact/partial 2 of 3, on both sides.
    third, two_thirds = Fraction(1, 3), Fraction(2, 3)
    assert _pair("A | B | C", "C | A | B") == {
        "strict": (third,) * 3, "exact": (two_thirds,) * 3, "partial": (two_thirds,) * 3, "ent_type": (third,) * 3}


def test_an_object_missing_its_last_word_is_a_partial_match():
    # object: reference span 0-2 ("new hampshire state"), candidate 0-1: overlap, same type.
    # strict and exact: 2 correct, 1 incorrect; partial: 2 + 0.5 of 3; ent_type: 3 correct
    assert _pair("X | p | New_Hampshire_State", "X | p | New_Hampshire") == {
        "strict": (Fraction(2, 3),) * 3, "exact": (Fraction(2, 3),) * 3,
        "partial": (Fraction(5, 6),) * 3, "ent_type": (Fraction(1),) * 3}


def test_one_word_spans_never_overlap_as_nervaluate_0_1_7_compares_ranges_without_their_end():
    # object "new hampshire" against "hampshire": the candidate's span is one token, whose
    # range(start, end) is empty, so it is spurious and the reference object missed
    assert _pair("X | p | New_Hampshire", "X | p | Hampshire")["partial"] == (Fraction(2, 3),) * 3


def test_an_empty_candidate_element_misses_and_a_padding_triple_scores_zero():
    assert _pair("Trane | location | Ireland", "") == {mode: (0, 0, 0) for mode in wn.MODES}


def test_the_pairing_keeps_the_first_permutation_with_the_highest_sum():
    assert wn.best_pairing([[1.0, 0.5], [1.0, 0.0]]) == [1, 0]  # 0.5 + 1.0 beats 1.0 + 0.0
    assert wn.best_pairing([[0.5, 0.5], [0.5, 0.5]]) == [0, 1]  # ties: itertools' first
    assert wn.best_pairing([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]) == [2, 1, 0]


def test_file_figures_are_the_mean_over_every_kept_pair_padding_included():
    figures = wn.file_figures([
        (["A | B | C"], ["C | A | B"]),
        (["X | p | New_Hampshire_State"], ["X | p | New_Hampshire"]),
        # two references, one candidate: the candidate pairs with the first, a padding triple
        # with the second (all zero): this entry weighs two pairs
        (["Trane | location | Ireland", "Trane | foundingDate | 1913-01-01"], ["Trane | location | Ireland"]),
    ])
    expected = {"strict": Fraction(1, 2), "exact": Fraction(7, 12), "partial": Fraction(5, 8), "ent_type": Fraction(7, 12)}
    for mode, value in expected.items():
        for figure in ("precision", "recall", "f1"):
            assert Fraction(figures[f"{mode}_{figure}"]).limit_denominator(1000) == value, (mode, figure)


def test_no_pair_is_not_applicable_not_zero():
    assert wn.file_figures([]) == {name: None for name in wn.METRICS}


def test_too_many_triples_for_the_exact_pairing_search_is_refused():
    many = [f"S | p | O{i}" for i in range(wn.MAX_PAIRING + 1)]
    with pytest.raises(ValueError, match="more than"):
        wn.entry_pairs(many[:1], many)


@pytest.mark.parametrize(("text", "expected"), [
    ('[["Trane", "location", "Ireland"], ["a", "b", "c", "d"]]', ["Trane | location | Ireland", "a | b | c | d"]),
    ("Trane | location | Ireland\n\nTrane | foundingDate | 1913-01-01\n",
     ["Trane | location | Ireland", "Trane | foundingDate | 1913-01-01"]),
    ("location(Trane, Ireland)", None),
    ('[{"subject": "Trane"}]', None),
])
def test_answer_triples_reads_json_lists_and_pipe_lines_as_the_challenge_writes_them(text, expected):
    assert wn.answer_triples(text) == expected
