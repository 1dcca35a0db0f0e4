"""The adaptive concurrency limit."""

from __future__ import annotations

import asyncio
import time

from harness.llm.limiter import AdaptiveLimiter


def test_throttling_shrinks_once_per_cooldown_and_grows_back():
    async def scenario() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(16, cooldown_s=10)
        for _ in range(4):
            await limiter.acquire()
        for _ in range(4):  # a burst of 429s from one overload counts once
            await limiter.release(throttled=True)
        assert limiter.limit == 12
        for _ in range(3 + 3):  # limit // 4 successes in a row grow it by one, then again
            await limiter.acquire()
            await limiter.release()
        assert limiter.limit == 14
        return limiter

    limiter = asyncio.run(scenario())
    assert limiter.lowest_limit == 12 and limiter.throttle_events == 4


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


def test_long_retry_after_pauses_every_new_call():
    async def scenario() -> float:
        limiter = AdaptiveLimiter(4, pause_threshold_s=0.1)
        await limiter.acquire()
        await limiter.release(throttled=True, retry_after_s=0.2)
        started = time.monotonic()
        await limiter.acquire()
        return time.monotonic() - started

    assert asyncio.run(scenario()) >= 0.18


def test_short_retry_after_does_not_pause_others():
    async def scenario() -> float:
        limiter = AdaptiveLimiter(4, pause_threshold_s=1.0)
        await limiter.acquire()
        await limiter.release(throttled=True, retry_after_s=0.5)
        started = time.monotonic()
        await limiter.acquire()
        return time.monotonic() - started

    assert asyncio.run(scenario()) < 0.1
