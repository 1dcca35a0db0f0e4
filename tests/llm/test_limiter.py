"""The adaptive concurrency limit: the arithmetic (here) and against a server with a
capacity (test_capacity.py)."""

from __future__ import annotations

import asyncio

import pytest

from harness.llm import limiter as limiter_module
from harness.llm.limiter import AdaptiveLimiter


async def calls(limiter: AdaptiveLimiter, outcomes: str) -> None:
    """Run calls one after another: `o` succeeds, `t` is throttled (429), `e` fails otherwise."""
    for outcome in outcomes:
        await limiter.acquire()
        await limiter.release(throttled=outcome == "t", failed=outcome == "e")


def test_each_rejection_takes_one_slot_off():
    async def scenario() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(16)
        for _ in range(16):
            await limiter.acquire()
        for _ in range(12):  # a capacity of 4: twelve of sixteen refused
            await limiter.release(throttled=True)
        assert limiter.limit == 4 and limiter.ceiling == 5
        for _ in range(4):
            await limiter.release()
        return limiter

    limiter = asyncio.run(scenario())
    assert limiter.lowest_limit == 4 and limiter.throttle_events == 12


def test_growing_back_to_a_refused_level_is_a_probe_that_waits_longer_each_time_it_fails():
    async def scenario() -> list[int]:
        limiter = AdaptiveLimiter(8, probe_factor=4)
        seen = []
        await calls(limiter, "tttt")  # 8 -> 4, ceiling 5
        seen.append(limiter.limit)
        await calls(limiter, "oooo")  # the first probe comes after one window
        seen.append(limiter.limit)
        await calls(limiter, "t")  # refused at the ceiling
        seen.append(limiter.limit)
        await calls(limiter, "o" * 15)  # the next needs 4 windows of 4
        seen.append(limiter.limit)
        await calls(limiter, "o")
        seen.append(limiter.limit)
        await calls(limiter, "t")  # refused again
        await calls(limiter, "o" * 31)  # now 8 windows of 4
        seen.append(limiter.limit)
        await calls(limiter, "o")
        seen.append(limiter.limit)
        return seen

    assert asyncio.run(scenario()) == [4, 5, 4, 4, 5, 4, 5]


def test_refusals_that_do_not_depend_on_load_do_not_ratchet_the_limit_down():
    # one call in ten refused whatever the load (a rate limit, not a capacity): each refusal
    # takes a slot and every window of successes gives one back, so the limit balances near
    # ten instead of sinking to 1
    async def scenario() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(32)
        await calls(limiter, ("o" * 9 + "t") * 100)
        return limiter

    limiter = asyncio.run(scenario())
    assert 5 <= limiter.limit <= 15 and limiter.lowest_limit >= 5


def test_a_probe_that_holds_lifts_the_ceiling_and_growth_is_one_slot_per_window():
    async def scenario() -> list[int]:
        limiter = AdaptiveLimiter(10, probe_factor=1)
        seen = []
        await calls(limiter, "t" * 6)  # 10 -> 4, ceiling 5
        await calls(limiter, "o" * 4)  # probe to 5 after one window
        seen.append(limiter.limit)
        await calls(limiter, "o" * 5)  # 5 held for a window: ceiling gone, 6
        seen.append(limiter.limit)
        assert limiter.ceiling is None
        await calls(limiter, "o" * 6)  # one slot per window of `limit` successes
        seen.append(limiter.limit)
        return seen

    assert asyncio.run(scenario()) == [5, 6, 7]


def test_errors_that_say_nothing_about_capacity_neither_shrink_nor_grow_the_limit():
    async def scenario() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(8)
        await calls(limiter, "tt")
        await calls(limiter, "e" * 50)
        return limiter

    limiter = asyncio.run(scenario())
    assert limiter.limit == 6


def test_in_flight_never_exceeds_the_limit():
    async def scenario() -> int:
        limiter = AdaptiveLimiter(3)
        peak = 0

        async def call() -> None:
            nonlocal peak
            await limiter.acquire()
            peak = max(peak, limiter.in_flight)
            await asyncio.sleep(0.001)
            await limiter.release()

        await asyncio.gather(*(call() for _ in range(50)))
        return peak

    assert asyncio.run(scenario()) == 3


class FakeClock:
    """The limiter's clock, moved by the test: pauses end when the test says, not after real seconds."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def fake_clock(monkeypatch) -> FakeClock:
    clock = FakeClock()
    monkeypatch.setattr(limiter_module, "time", clock)
    return clock


def test_a_retry_after_pauses_every_new_call_however_short(monkeypatch):
    clock = fake_clock(monkeypatch)

    async def scenario() -> None:
        limiter = AdaptiveLimiter(4)
        await limiter.acquire()
        await limiter.release(throttled=True, retry_after_s=0.2)
        waiting = asyncio.gather(limiter.acquire(), limiter.acquire())
        await asyncio.sleep(0.05)  # let both try (and time out waiting once, or more: a busy loop)
        clock.now += 0.19
        await limiter.pause(0)  # wakes the waiters to look at the clock again
        await asyncio.sleep(0.05)
        assert not waiting.done() and limiter.in_flight == 0  # still paused, though slots are free
        clock.now += 0.02  # past the end (0.2 s), whatever the rounding
        await limiter.pause(0)
        await asyncio.wait_for(waiting, timeout=60)  # a hang guard: the pause is over
        assert limiter.in_flight == 2

    asyncio.run(scenario())


def test_pauses_overlap_rather_than_add_up(monkeypatch):
    clock = fake_clock(monkeypatch)

    async def scenario() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(4)
        for _ in range(5):
            await limiter.pause(0.1)
            clock.now += 0.01
        clock.now += 0.11  # 0.11 s after the last pause started (at +0.04): all over
        await limiter.acquire()
        return limiter

    limiter = asyncio.run(scenario())
    # five pauses of 0.1 s, each starting 0.01 s after the last: 0.14 s in all, not 0.5
    assert limiter.paused_s == pytest.approx(0.14)
