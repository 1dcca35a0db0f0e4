"""One deadline per exchange (issue 28.8): a server that trickles its answer is cut at the call's
`timeout_s`, however short each of its pauses, through the asynchronous transport of model calls
and the synchronous one of the Batch API. Each test is observed against a real socket; the only
clock is the deadline under test (0.5 s) and a hang guard far above it."""

from __future__ import annotations

import asyncio
import threading

import httpcore2
import httpx2
import pytest

from harness.llm.deadline import exchange_deadline, time_left
from harness.llm.transport import BoundedSyncTransport, BoundedTransport

from ..support.trickle_server import TrickleServer, answer, endless_chunks, slow_body, slow_headers

DEADLINE = 0.5
GUARD = 20 * DEADLINE


def test_without_a_deadline_an_operation_keeps_its_own_timeout() -> None:
    assert time_left(7.0, httpcore2.ReadTimeout) == 7.0
    assert time_left(None, httpcore2.ReadTimeout) is None


def test_an_operation_gets_at_most_the_time_left() -> None:
    with exchange_deadline(30.0):
        left = time_left(None, httpcore2.ReadTimeout)
        assert left is not None and 0 < left <= 30.0
        assert time_left(1.0, httpcore2.ReadTimeout) == 1.0


def test_an_operation_after_the_deadline_fails_at_once() -> None:
    with exchange_deadline(0.0):
        with pytest.raises(httpcore2.ReadTimeout):
            time_left(5.0, httpcore2.ReadTimeout)


def test_an_inner_deadline_never_extends_an_outer_one() -> None:
    with exchange_deadline(0.0):
        with exchange_deadline(60.0):
            with pytest.raises(httpcore2.WriteTimeout):
                time_left(None, httpcore2.WriteTimeout)
    assert time_left(None, httpcore2.ReadTimeout) is None  # gone once the exchange ends


PLAYS = {"slow-headers": slow_headers(0.05), "slow-body": slow_body(0.05, 8), "endless-chunks": endless_chunks(0.05)}


@pytest.mark.parametrize("play", list(PLAYS.values()), ids=list(PLAYS))
def test_the_async_transport_cuts_a_trickle_at_the_deadline(play) -> None:
    async def go(url: str) -> BaseException | None:
        transport = BoundedTransport(max_body_bytes=1 << 24, deadline_s=DEADLINE)
        async with httpx2.AsyncClient(transport=transport, timeout=60.0) as client:
            try:
                await asyncio.wait_for(client.post(url + "/chat/completions", json={}), GUARD)
            except httpx2.TimeoutException as exc:
                return exc
        return None

    with TrickleServer(play) as srv:
        assert isinstance(asyncio.run(go(srv.base_url)), httpx2.TimeoutException)


@pytest.mark.parametrize("play", list(PLAYS.values()), ids=list(PLAYS))
def test_the_sync_transport_cuts_a_trickle_at_the_deadline(play) -> None:
    outcome: list[BaseException | None] = []

    def go(url: str) -> None:
        transport = BoundedSyncTransport(max_body_bytes=1 << 24, deadline_s=DEADLINE)
        with httpx2.Client(transport=transport, timeout=60.0) as client:
            try:
                client.post(url + "/batches", json={})
            except httpx2.TimeoutException as exc:
                outcome.append(exc)
                return
        outcome.append(None)

    with TrickleServer(play) as srv:
        thread = threading.Thread(target=go, args=(srv.base_url,), daemon=True)
        thread.start()
        thread.join(GUARD)  # a hang guard: the deadline under test is 20 times shorter
    assert len(outcome) == 1 and isinstance(outcome[0], httpx2.TimeoutException)


def test_each_request_has_its_own_deadline() -> None:
    """Keep-alive: the second request on the connection is not charged for the first one's time."""
    async def go(url: str) -> list[int]:
        transport = BoundedTransport(max_body_bytes=1 << 20, deadline_s=DEADLINE)
        async with httpx2.AsyncClient(transport=transport) as client:
            statuses = []
            for _ in range(3):
                statuses.append((await client.post(url + "/chat/completions", json={})).status_code)
                await asyncio.sleep(DEADLINE / 2)
            return statuses

    with TrickleServer(answer("ok")) as srv:
        assert asyncio.run(go(srv.base_url)) == [200, 200, 200]
        assert srv.requests == 3
