"""The client against a server that serves at most CAPACITY requests at once and answers the
rest 429 with a Retry-After: every call is answered, few requests are wasted, and the limit
settles at the capacity, at several latencies."""

from __future__ import annotations

import asyncio
import math

import pytest

from harness.llm.client import EndpointSettings, ModelClient
from ..support.fake_server import FakeOpenAIServer, Faults, Script

from ..conftest import SECRET

CAPACITY = 4
CONCURRENCY = 16
CALLS = 48


def rejection_bound(concurrency: int, capacity: int, calls: int) -> int:
    """Rejections the limiter may cost: the first overload (each 429 takes one slot off, so
    at most concurrency - capacity of them), then one per refused probe; probes wait twice as
    long after each refusal, so there are at most log2(calls) of them."""
    return (concurrency - capacity) + math.ceil(math.log2(calls))


def run_calls(srv: FakeOpenAIServer, calls: int) -> tuple[list[str], ModelClient]:
    client = ModelClient(
        EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url, concurrency=CONCURRENCY), replay=False
    )

    async def go() -> list[str]:
        try:
            results = await asyncio.gather(
                *(client.chat([{"role": "user", "content": f"call {i}"}]) for i in range(calls))
            )
            return [r.text for r in results]
        finally:
            await client.close()

    return asyncio.run(go()), client


@pytest.mark.slow
@pytest.mark.parametrize("latency", [0.0, 0.05, 0.2])
def test_a_capacity_limited_server_answers_every_call_with_few_rejections(latency, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    faults = Faults(capacity=CAPACITY, latency_s=latency, retry_after_s=0.5)
    with FakeOpenAIServer(Script(fallback="ok"), faults) as srv:
        texts, client = run_calls(srv, CALLS)
        rejected, answered, peak = srv.rejected, srv.answered, srv.peak_in_progress
    assert texts == ["ok"] * CALLS and answered == CALLS
    assert rejected <= rejection_bound(CONCURRENCY, CAPACITY, CALLS), (rejected, client.limiter.trace)
    assert client.throttled == rejected
    assert peak <= CAPACITY
    assert client.limiter.limit >= CAPACITY // 2, client.limiter.trace  # never collapsed
    if latency:
        # requests overlap at the server, so the limit binds: it came down to the capacity
        # and ends there, or one above it while probing
        assert client.limiter.lowest_limit <= CAPACITY
        assert client.limiter.limit <= CAPACITY + 1, client.limiter.trace
    # (with no latency a request is over before the next arrives: the server rarely sees
    # four at once, so the limit has no reason to come down to it)
