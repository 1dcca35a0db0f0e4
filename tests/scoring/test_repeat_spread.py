"""The spread across repeated runs and the exceeds-spread rule, with numbers worked by hand."""

from __future__ import annotations

import math

import pytest

from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, GoldEntity
from harness.scoring import score_case
from harness.scoring.repeat_spread import exceeds_spread, metric_spread, repeat_spread, spread_verdicts


def test_spread_of_four_values():
    # 0.2, 0.4, 0.4, 1.0: median (0.4 + 0.4) / 2 = 0.4; mean 0.5; squared deviations
    # 0.09 + 0.01 + 0.01 + 0.25 = 0.36, / (4 - 1) = 0.12, std = sqrt(0.12) = 0.346410
    spread = metric_spread([0.4, 1.0, 0.2, 0.4])
    assert spread.values == [0.4, 1.0, 0.2, 0.4]  # in sample order
    assert (spread.min, spread.median, spread.max) == (0.2, 0.4, 1.0)
    assert spread.std == pytest.approx(math.sqrt(0.12), abs=1e-6)


def test_undefined_samples_are_left_out_and_one_value_has_no_std():
    spread = metric_spread([None, 0.5, None])
    assert (spread.min, spread.median, spread.max, spread.std) == (0.5, 0.5, 0.5, None)
    empty = metric_spread([None, None])
    assert (empty.min, empty.median, empty.max, empty.std) == (None, None, None, None)


def test_exceeds_when_the_ranges_do_not_overlap_either_way():
    low, high = metric_spread([0.1, 0.3]), metric_spread([0.4, 0.6])
    assert exceeds_spread(low, high) is True
    assert exceeds_spread(high, low) is True
    touching = metric_spread([0.3, 0.5])  # shares 0.3 with `low`: overlap, within the spread
    assert exceeds_spread(low, touching) is False


def test_no_verdict_with_one_sample_or_an_undefined_sample():
    assert exceeds_spread(metric_spread([0.1]), metric_spread([0.9, 0.95])) is None
    assert exceeds_spread(metric_spread([0.1, None]), metric_spread([0.9, 0.95])) is None


GOLD = GoldCase(id="c", text="Ana met Bo in Rome.", entities=[GoldEntity(name="Ana"), GoldEntity(name="Bo")])


def row(sample: int, names: list[str]) -> CaseResult:
    graph = ExtractedGraph(entities=[Entity(name=n) for n in names])
    return CaseResult(suite="s", variant="v", case_id="c", graph=graph, score=score_case(GOLD, graph), sample=sample)


def test_repeat_spread_is_per_sample_micro_and_none_without_repeats():
    rows = [row(0, ["Ana"]), row(1, ["Ana", "Bo"])]
    spread = repeat_spread(rows)
    assert spread is not None and spread.samples == 2
    # entity recall: sample 0 finds 1 of 2 gold entities, sample 1 both: 0.5, 1.0; std of two values
    # = |1.0 - 0.5| / sqrt(2) = 0.353553
    recall = spread.metrics["entity_recall"]
    assert recall.values == [0.5, 1.0]
    assert recall.std == pytest.approx(0.353553)
    assert repeat_spread(rows[:1]) is None
    assert spread_verdicts(rows, rows[:1]) is None  # one side not repeated: no verdict at all
    verdicts = spread_verdicts(rows, [row(0, ["Ana", "Bo"]), row(1, ["Ana", "Bo"])])
    assert verdicts is not None
    assert verdicts.metrics["entity_recall"].exceeds is False  # [0.5, 1.0] and [1.0, 1.0] share 1.0
    assert isinstance(verdicts.metrics["entity_recall"].a.values, list)
