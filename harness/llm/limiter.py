"""An adaptive limit on calls in flight, driven by the endpoint's 429s (AIMD).

A server that serves at most C requests at once answers the others 429. Every 429 means
one request too many was in flight, so each one takes one off the limit: a burst of 16
against a capacity of 4 gives 12 rejections and a limit of 4, in one round trip and
whatever the latency (a timed cooldown, or halving, either overshoots or undershoots).

Growth is additive: one more slot per full window of successes (`limit` of them, about
one round trip). The level that was refused is a ceiling: reaching it again is a probe, and
each probe the server refuses again doubles the run of successes needed before the next
(`probe_factor` windows, then twice that...). Against a fixed capacity the limit settles at
it, and probes (one rejection each) become rarer as the run goes on: rejections over a run
of N calls stay within (initial concurrency - capacity) + log2(N) or so. A probe that holds
lifts the ceiling, so a server that grows is followed. A refusal below the ceiling is not a
probe (the server shrank, or refuses whatever the load, as a rate limit does): it takes its
slot but neither restarts the count of successes nor lengthens the probes, so refusals that
do not depend on load settle the limit where growth and refusals balance instead of
ratcheting it down to 1.

A Retry-After is a pause shared by every call: none starts until it has passed, instead
of N callers each sleeping and retrying in lockstep. Calls already in flight go on.
"""

from __future__ import annotations

import asyncio
import time


class AdaptiveLimiter:
    def __init__(self, maximum: int, *, probe_factor: int = 4) -> None:
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self.in_flight = 0
        self.started = 0  # calls that have acquired a slot so far (who else ran during a call)
        self.probe_factor = max(1, probe_factor)
        self.ceiling: int | None = None  # the lowest level refused since the last successful probe
        self.failed_probes = 0
        self._successes = 0
        self._pause_until = 0.0
        self._cond = asyncio.Condition()
        self.throttle_events = 0
        self.lowest_limit = self.maximum
        self.paused_s = 0.0  # total pause requested (overlapping pauses count once)
        self.trace: list[tuple[float, int]] = [(time.monotonic(), self.limit)]  # (when, limit) at each change

    def _window(self) -> int:
        """Successes needed before the next slot: one round trip's worth, longer for a probe
        of a level that has already refused a probe."""
        if self.failed_probes and self.ceiling is not None and self.limit + 1 >= self.ceiling:
            return self.probe_factor * self.limit * 2 ** (self.failed_probes - 1)
        return self.limit

    def _set_limit(self, value: int) -> None:
        if value != self.limit:
            self.limit = value
            self.lowest_limit = min(self.lowest_limit, value)
            self.trace.append((time.monotonic(), value))

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
                    self.started += 1
                    return
                await self._cond.wait()

    async def release(self, *, throttled: bool = False, failed: bool = False, retry_after_s: float | None = None) -> None:
        """End a call: `throttled` (429) shrinks the limit, `failed` (an error that says nothing
        about capacity) leaves it, success grows it. `retry_after_s` pauses every new call."""
        async with self._cond:
            self.in_flight -= 1
            if throttled:
                self.throttle_events += 1
                if self.ceiling is not None and self.limit >= self.ceiling:
                    self.failed_probes += 1  # a probe refused: wait longer before the next
                    self._successes = 0
                elif self.ceiling is not None:
                    # refused at a level that had held: not a probe. The server shrank, or
                    # refuses regardless of load (a rate limit): the slot goes, but successes
                    # keep counting towards the next, so such refusals cannot ratchet the
                    # limit down to 1, and the probe penalty starts over.
                    self.failed_probes = 0
                self._set_limit(max(1, self.limit - 1))
                self.ceiling = self.limit + 1
            elif not failed:
                self._successes += 1
                if self.limit < self.maximum and self._successes >= self._window():
                    if self.ceiling is not None and self.limit >= self.ceiling:
                        self.ceiling, self.failed_probes = None, 0  # the probed level held
                    self._set_limit(self.limit + 1)
                    self._successes = 0
            if retry_after_s is not None and retry_after_s > 0:
                self._pause(retry_after_s)
            self._cond.notify_all()

    def _pause(self, seconds: float) -> None:
        now = time.monotonic()
        until = now + seconds
        if until > self._pause_until:
            self.paused_s += until - max(now, self._pause_until)
            self._pause_until = until

    async def pause(self, seconds: float) -> None:
        """Hold every new call back for `seconds` (a shared Retry-After)."""
        async with self._cond:
            self._pause(seconds)
            self._cond.notify_all()
