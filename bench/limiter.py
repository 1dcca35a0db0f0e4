"""Benchmark: the adaptive limit against a server with a capacity, at several latencies.

    .venv/bin/python bench/limiter.py [--calls 72] [--concurrency 16] [--capacity 4 8] [--latency 0 0.05 0.2 0.5] [--retry-after 1]

The local server serves at most CAPACITY requests at once and answers the others 429 with
`Retry-After` (issue 12.8: capacity 4, concurrency 16, Retry-After 1). For each latency it
prints the wall time against the ideal (calls x latency / capacity), the rejections against
the bound the tests hold (concurrency - capacity + log2(calls)), the time paused for
Retry-After, and where the limit settled: its time-weighted mean over the second half of
the run and its last value. The server runs in this process (its counters are read
directly); at 0 ms the GIL makes its effective concurrency lower than the capacity.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.errors import ModelCallError  # noqa: E402
from harness.llm.client import EndpointSettings, ModelClient  # noqa: E402
from tests.support.fake_server import FakeOpenAIServer, Faults, Script  # noqa: E402


def settled(trace: list[tuple[float, int]], start: float, end: float) -> float:
    """Time-weighted mean of the limit over [start, end]."""
    total = 0.0
    for (when, limit), (after, _) in zip(trace, trace[1:] + [(end, 0)], strict=False):
        lo, hi = max(when, start), min(after, end)
        if hi > lo:
            total += limit * (hi - lo)
    return total / (end - start) if end > start else float(trace[-1][1])


def measure(calls: int, concurrency: int, capacity: int, latency: float, retry_after: float) -> dict:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-key")
    faults = Faults(capacity=capacity, latency_s=latency, retry_after_s=retry_after)
    with FakeOpenAIServer(Script(fallback="ok"), faults) as srv:
        client = ModelClient(
            EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url, concurrency=concurrency), replay=False
        )
        failed = 0

        async def one(i: int) -> None:
            nonlocal failed
            try:
                await client.chat([{"role": "user", "content": f"call {i}"}])
            except ModelCallError:
                failed += 1

        async def run() -> None:
            try:
                await asyncio.gather(*(one(i) for i in range(calls)))
            finally:
                await client.close()

        started = time.monotonic()
        asyncio.run(run())
        ended = time.monotonic()
        limiter = client.limiter
        return {
            "wall_s": ended - started,
            "ideal_s": calls * latency / capacity,
            "answered": srv.answered,
            "failed": failed,
            "rejected": srv.rejected,
            "bound": (concurrency - capacity) + math.ceil(math.log2(calls)),
            "paused_s": limiter.paused_s,
            "settled": settled(limiter.trace, started + (ended - started) / 2, ended),
            "final": limiter.limit,
            "peak_at_server": srv.peak_in_progress,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=72)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--capacity", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0, 0.05, 0.2, 0.5])
    parser.add_argument("--retry-after", type=float, default=1.0)
    args = parser.parse_args()
    print(f"{args.calls} calls, concurrency {args.concurrency}, Retry-After {args.retry_after:g} s")
    print(f"{'cap':>3} {'latency':>7} {'wall s':>7} {'ideal s':>7} {'answered':>8} {'failed':>6} "
          f"{'rejected':>8} {'bound':>5} {'paused s':>8} {'settled':>7} {'final':>5} {'peak':>4}")
    for capacity in args.capacity:
        for latency in args.latency:
            r = measure(args.calls, args.concurrency, capacity, latency, args.retry_after)
            print(f"{capacity:>3} {latency:>7.3f} {r['wall_s']:>7.2f} {r['ideal_s']:>7.2f} {r['answered']:>8} "
                  f"{r['failed']:>6} {r['rejected']:>8} {r['bound']:>5} {r['paused_s']:>8.2f} "
                  f"{r['settled']:>7.2f} {r['final']:>5} {r['peak_at_server']:>4}")


if __name__ == "__main__":
    main()
