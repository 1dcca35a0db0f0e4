"""Bounded-time checks measured as growth, not as absolute seconds.

A pathological input is built at size N and at size 2N; the best of a few timings of each is
compared. A linear algorithm gives a ratio near 2, a quadratic one near 4. Absolute times vary
from machine to machine (and under load), the ratio much less.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[Any], object], arg: Any, repeats: int = 3) -> float:
    """The fastest of `repeats` runs of fn(arg), in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - start)
    return best


def growth_ratio(fn: Callable[[Any], object], make_input: Callable[[int], Any], n: int, repeats: int = 3) -> float:
    """time(fn(make_input(2n))) / time(fn(make_input(n))), best of `repeats` each.

    n should be large enough that one run takes at least a few milliseconds; otherwise timer noise
    dominates. The small floor keeps a near-zero denominator from inflating the ratio.
    """
    small, large = make_input(n), make_input(2 * n)
    fn(small)  # warm caches (regex compilation, imports) before timing
    t_small = best_time(fn, small, repeats)
    t_large = best_time(fn, large, repeats)
    return t_large / max(t_small, 1e-4)


def assert_linear(fn: Callable[[Any], object], make_input: Callable[[int], Any], n: int,
                  *, limit: float = 3.0, repeats: int = 3) -> None:
    """Fail when doubling the input more than `limit`-folds the time (quadratic gives about 4)."""
    ratio = growth_ratio(fn, make_input, n, repeats)
    if ratio > limit:
        # One retry at the same size: a busy machine can spike one measurement.
        ratio = min(ratio, growth_ratio(fn, make_input, n, repeats))
    assert ratio <= limit, f"time grew {ratio:.1f}x when the input doubled (n={n}); expected at most {limit}x"
