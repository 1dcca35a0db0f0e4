"""Automatic prompt tuning: `harness tune` (see docs/tune.md)."""

from harness.tune.examples import ExampleVerdict, judge_example
from harness.tune.pipeline import TuneOptions, TuneResult, tune
from harness.tune.sampling import SELECTIONS, select

__all__ = ["SELECTIONS", "ExampleVerdict", "TuneOptions", "TuneResult", "judge_example", "select", "tune"]
