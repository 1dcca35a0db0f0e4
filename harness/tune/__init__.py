"""Automatic prompt tuning: `harness tune` (see docs/tune.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_exports

# Bound on first use: registering `harness tune` imports `tune.commands`, which must not bring in
# the pipeline's model client and the sampler's numpy and scipy.
_EXPORTS = {
    "ExampleVerdict": (".examples", "ExampleVerdict"),
    "judge_example": (".examples", "judge_example"),
    "TuneOptions": (".pipeline", "TuneOptions"),
    "TuneResult": (".pipeline", "TuneResult"),
    "tune": (".pipeline", "tune"),
    "SELECTIONS": (".sampling", "SELECTIONS"),
    "select": (".sampling", "select"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from harness.tune.examples import ExampleVerdict, judge_example
    from harness.tune.pipeline import TuneOptions, TuneResult, tune
    from harness.tune.sampling import SELECTIONS, select

__all__ = ["SELECTIONS", "ExampleVerdict", "TuneOptions", "TuneResult", "judge_example", "select", "tune"]
