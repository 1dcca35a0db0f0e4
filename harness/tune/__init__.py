"""Automatic prompt tuning: `harness tune` (see docs/tune.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_facade

# Bound on first use: importing one submodule (`tune.pipeline`, when `harness tune` runs) must not
# bring in the others' model client and the sampler's numpy and scipy. `lazy_facade` reads this block.
if TYPE_CHECKING:
    from harness.tune.examples import ExampleVerdict, judge_example
    from harness.tune.pipeline import TuneOptions, TuneResult, tune
    from harness.tune.sampling import SELECTIONS, select

__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)
