"""One deadline per exchange with an endpoint: connect, request, headers and body, together.

httpx's timeouts bound each network operation on its own: a read that waits longer than the
read timeout fails, but a server that sends one byte every second never makes a read wait that
long, so a trickled status line, endless headers or a chunked body that never ends held a call
(and the run) forever. Here every network operation of an exchange is given at most the time
left until the exchange's deadline, so the exchange ends at the deadline whatever the server
sends: the operation that is waiting when it passes fails with httpcore's own timeout error
(which httpx and the SDK report as a timeout), and one that starts after it fails at once.

The deadline lives in a context variable, set by `exchange_deadline` around one exchange (the
bounded transports set it for every request: harness/llm/transport.py); streams and backends
wrapped by the classes below read it. Work outside the exchange (waiting for a concurrency slot,
backing off between attempts) is not inside it, so it never counts against a call's time.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import httpcore2

_DEADLINE: ContextVar[float | None] = ContextVar("harness_exchange_deadline", default=None)


@contextlib.contextmanager
def exchange_deadline(seconds: float | None) -> Iterator[None]:
    """Bound the exchange run inside to `seconds` from now (None: no bound of its own). An outer
    deadline that is earlier stays in force."""
    outer = _DEADLINE.get()
    mine = None if seconds is None or math.isnan(seconds) else time.monotonic() + max(0.0, seconds)
    token = _DEADLINE.set(mine if outer is None else outer if mine is None else min(outer, mine))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left(timeout: float | None, expired: type[Exception]) -> float | None:
    """The timeout one network operation may take: its own, cut to the time left before the
    exchange's deadline; raises `expired` when none is left."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the exchange's deadline has passed")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore2.AsyncNetworkStream):
    """An async network stream whose every operation ends by the exchange's deadline."""

    def __init__(self, stream: httpcore2.AsyncNetworkStream) -> None:
        self._stream = stream

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._stream.read(max_bytes, time_left(timeout, httpcore2.ReadTimeout))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, time_left(timeout, httpcore2.WriteTimeout))

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore2.AsyncNetworkStream:
        return DeadlineStream(await self._stream.start_tls(ssl_context, server_hostname,
                                                           time_left(timeout, httpcore2.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class DeadlineBackend(httpcore2.AsyncNetworkBackend):
    """Connects within the exchange's deadline and hands out `DeadlineStream`s."""

    def __init__(self, backend: httpcore2.AsyncNetworkBackend) -> None:
        self._backend = backend

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Any = None) -> httpcore2.AsyncNetworkStream:
        return DeadlineStream(await self._backend.connect_tcp(
            host, port, timeout=time_left(timeout, httpcore2.ConnectTimeout), local_address=local_address,
            socket_options=socket_options))

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore2.AsyncNetworkStream:
        return DeadlineStream(await self._backend.connect_unix_socket(
            path, timeout=time_left(timeout, httpcore2.ConnectTimeout), socket_options=socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


class SyncDeadlineStream(httpcore2.NetworkStream):
    """`DeadlineStream` for httpcore's synchronous connections (the Batch API's SDK client)."""

    def __init__(self, stream: httpcore2.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, time_left(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, time_left(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        return SyncDeadlineStream(self._stream.start_tls(ssl_context, server_hostname,
                                                         time_left(timeout, httpcore2.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class SyncDeadlineBackend(httpcore2.NetworkBackend):
    """`DeadlineBackend` for httpcore's synchronous pool."""

    def __init__(self, backend: httpcore2.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore2.NetworkStream:
        return SyncDeadlineStream(self._backend.connect_tcp(
            host, port, timeout=time_left(timeout, httpcore2.ConnectTimeout), local_address=local_address,
            socket_options=socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore2.NetworkStream:
        return SyncDeadlineStream(self._backend.connect_unix_socket(
            path, timeout=time_left(timeout, httpcore2.ConnectTimeout), socket_options=socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)
