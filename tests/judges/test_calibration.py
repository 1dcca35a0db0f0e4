"""Cohen's kappa and the calibration block against values computed by hand."""

from __future__ import annotations

import pytest

from harness.judges.calibration import calibrate, cohen_kappa

S, D = "same", "different"


def test_kappa_of_a_two_by_two_table_computed_by_hand() -> None:
    # judge/human: (S,S) 20, (S,D) 5, (D,S) 10, (D,D) 15; n = 50
    # po = 35/50 = 0.7; judge S 25 D 25, human S 30 D 20; pe = (25*30 + 25*20)/2500 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    pairs = [(S, S)] * 20 + [(S, D)] * 5 + [(D, S)] * 10 + [(D, D)] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_kappa_of_the_shipped_example_computed_by_hand() -> None:
    # 11 questions, 10 agreed: po = 10/11; judge S 7 D 4, human S 6 D 5; pe = (42 + 20)/121 = 62/121
    # kappa = (110/121 - 62/121) / (59/121) = 48/59
    pairs = [(S, S)] * 6 + [(S, D)] + [(D, D)] * 4
    assert cohen_kappa(pairs) == pytest.approx(48 / 59)


def test_kappa_of_the_shipped_faithfulness_verdicts_computed_by_hand() -> None:
    # (b) 8 reviewed, 7 agreed: po = 7/8; judge supported 6 unsupported 2, reviewers 7 and 1;
    # pe = (6*7 + 2*1)/64 = 44/64; kappa = (56/64 - 44/64) / (20/64) = 12/20 = 3/5
    U, P = "unsupported", "supported"
    pairs = [(U, U)] + [(P, P)] * 6 + [(U, P)]
    assert cohen_kappa(pairs) == pytest.approx(3 / 5)


def test_kappa_of_the_shipped_pairwise_verdicts_computed_by_hand() -> None:
    # (d) 7 readable verdicts against the case's reviewer preference: mail-outage (strong) 4 x strong;
    # rust-migration (tie) strong, default, tie. po = 5/7; judge strong 5 default 1 tie 1,
    # reviewers strong 4 tie 3; pe = (5*4 + 1*3)/49 = 23/49; kappa = (35/49 - 23/49)/(26/49) = 6/13
    pairs = [("strong", "strong")] * 4 + [("strong", "tie"), ("default", "tie"), ("tie", "tie")]
    assert cohen_kappa(pairs) == pytest.approx(6 / 13)
    assert calibrate([*pairs, (None, "tie")]).unreadable == 1


def test_perfect_agreement_on_two_classes_is_one() -> None:
    assert cohen_kappa([(S, S), (D, D), (S, S)]) == pytest.approx(1.0)


def test_one_class_only_on_both_sides_is_undefined_not_one() -> None:
    assert cohen_kappa([(S, S)] * 5) is None
    assert cohen_kappa([(D, D)]) is None


def test_no_pairs_is_undefined() -> None:
    assert cohen_kappa([]) is None


def test_a_judge_saying_one_class_against_mixed_reviewers_is_chance() -> None:
    # judge always S; human S 3, D 1: po = 3/4, pe = (4*3)/16 = 3/4 -> kappa 0
    assert cohen_kappa([(S, S), (S, S), (S, S), (S, D)]) == pytest.approx(0.0)


def test_systematic_disagreement_is_negative() -> None:
    # po = 0; judge S 1 D 1, human S 1 D 1: pe = (1 + 1)/4 = 0.5 -> kappa -1
    assert cohen_kappa([(S, D), (D, S)]) == pytest.approx(-1.0)


def test_calibration_counts_classes_accuracy_and_unreadable_answers() -> None:
    c = calibrate([(S, S), (S, D), (D, D), (None, S)], min_kappa=0.5)
    assert c.status == "calibrated"
    assert (c.questions, c.unreadable) == (3, 1)
    assert c.accuracy == pytest.approx(2 / 3)
    # po = 2/3; judge S 2 D 1, human S 1 D 2: pe = (2*1 + 1*2)/9 = 4/9 -> kappa (6/9 - 4/9)/(5/9) = 0.4
    assert c.kappa == pytest.approx(0.4)
    assert c.per_class[S].model_dump() == {"judge": 2, "human": 1, "both": 1}
    assert c.per_class[D].model_dump() == {"judge": 1, "human": 2, "both": 1}
    assert c.min_kappa == 0.5


def test_no_reviewer_verdict_is_uncalibrated_with_every_figure_na() -> None:
    c = calibrate([])
    assert c.status == "uncalibrated"
    assert (c.questions, c.accuracy, c.kappa, c.per_class) == (0, None, None, {})


def test_only_unreadable_judge_answers_are_uncalibrated() -> None:
    c = calibrate([(None, S), (None, D)])
    assert c.status == "uncalibrated" and c.unreadable == 2 and c.kappa is None
