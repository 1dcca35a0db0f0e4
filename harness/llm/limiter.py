"""An adaptive concurrency limit: shrinks on throttling, honours long Retry-After, grows back."""

from __future__ import annotations

import asyncio
import time


class AdaptiveLimiter:
    """Additive-increase, multiplicative-decrease limit on calls in flight.

    A 429 cuts the limit by a quarter, at most once per `cooldown_s` (a burst of 429s from
    one overload counts once). A Retry-After of `pause_threshold_s` or more is a real
    rate-limit window: every new call waits it out. A shorter one only delays the retry of
    the call that got it (the client sleeps). Every `limit // 4` successes in a row raise
    the limit by one, up to `maximum`.
    """

    def __init__(self, maximum: int, *, cooldown_s: float = 1.0, pause_threshold_s: float = 1.0) -> None:
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self.in_flight = 0
        self.cooldown_s = cooldown_s
        self.pause_threshold_s = pause_threshold_s
        self._successes = 0
        self._pause_until = 0.0
        self._last_decrease = -1e9
        self._cond = asyncio.Condition()
        self.throttle_events = 0
        self.lowest_limit = self.maximum

    async def acquire(self) -> None:
        async with self._cond:
            while True:
                wait = self._pause_until - time.monotonic()
                if wait > 0:
                    try:
                        await asyncio.wait_for(self._cond.wait(), timeout=wait)
                    except TimeoutError:
                        pass
                    continue
                if self.in_flight < self.limit:
                    self.in_flight += 1
                    return
                await self._cond.wait()

    async def release(self, *, throttled: bool = False, retry_after_s: float | None = None) -> None:
        async with self._cond:
            self.in_flight -= 1
            now = time.monotonic()
            if throttled:
                self.throttle_events += 1
                self._successes = 0
                if now - self._last_decrease >= self.cooldown_s:
                    self.limit = max(1, (self.limit * 3) // 4)
                    self.lowest_limit = min(self.lowest_limit, self.limit)
                    self._last_decrease = now
                if retry_after_s is not None and retry_after_s >= self.pause_threshold_s:
                    self._pause_until = max(self._pause_until, now + retry_after_s)
            else:
                self._successes += 1
                if self._successes >= max(1, self.limit // 4) and self.limit < self.maximum:
                    self.limit += 1
                    self._successes = 0
            self._cond.notify_all()
