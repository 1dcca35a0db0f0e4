"""HTTP transports that read at most a bounded number of decoded bytes per response, within a
deadline per exchange.

httpx decodes `Content-Encoding` without limit, and vcrpy's recorder decodes a response
again before it is stored, so a 500 KB gzip bomb costs gigabytes before any of our code
sees it. Here bodies are read and decoded below both, in the connection pool, in bounded
steps: a body that decodes past the limit is refused (`ResponseTooLarge`) after at most
that many bytes were produced. The response handed up carries the decoded bytes and no
`Content-Encoding`, so nothing above decodes it again.

Every request is one exchange under one deadline (`deadline_s`, the call's `timeout_s`): the
connection, the request, the headers and the whole body must be done by then, however slowly the
server trickles them (harness/llm/deadline.py). The asynchronous transport serves model calls, the
synchronous one the Batch API's files and batches.
"""

from __future__ import annotations

import zlib
from typing import Any

import httpcore2
import httpx2
from httpcore2._utils import is_socket_readable

from ..errors import find_cause
from .deadline import DeadlineBackend, SyncDeadlineBackend, exchange_deadline

DECODE_STEP = 1 << 16  # bytes of output per decompression step


class EndpointBodyError(httpx2.DecodingError):
    """The endpoint's response body cannot be read: too large or in an unknown encoding.

    An httpx decoding error, so the SDK reports it as a failed request like any other."""


class ResponseTooLarge(EndpointBodyError):
    pass


def _decoder(coding: str) -> Any | None:
    """A zlib decompressor for one content coding; None for identity; raises if unknown."""
    if coding in ("", "identity"):
        return None
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if coding == "deflate":
        return zlib.decompressobj()
    raise EndpointBodyError(f"the endpoint answered in an unsupported content-encoding '{coding}'")


def decode_bounded(data: bytes, codings: list[str], limit: int) -> bytes:
    """`data` decoded through `codings` (in the order they were applied), never producing more
    than `limit` bytes at any stage."""
    for coding in reversed(codings):
        decoder = _decoder(coding)
        if decoder is None:
            continue
        if coding == "deflate":
            data = _inflate_deflate(data, limit)
            continue
        data = _inflate(decoder, data, limit)
    if len(data) > limit:
        raise ResponseTooLarge(f"the endpoint's answer is larger than {limit} bytes")
    return data


def _inflate(decoder: Any, data: bytes, limit: int) -> bytes:
    out = bytearray()
    pending = data
    try:
        while True:
            chunk = decoder.decompress(pending, DECODE_STEP)
            out += chunk
            if len(out) > limit:
                raise ResponseTooLarge(f"the endpoint's answer is larger than {limit} bytes once decoded")
            pending = decoder.unconsumed_tail
            if decoder.eof or (not pending and len(chunk) < DECODE_STEP):
                break
    except zlib.error as exc:
        raise EndpointBodyError(f"the endpoint's answer is not validly compressed: {exc}") from None
    return bytes(out)


def _inflate_deflate(data: bytes, limit: int) -> bytes:
    """`deflate` is zlib-wrapped by the standard and raw by many servers: try both, as httpx does."""
    try:
        return _inflate(zlib.decompressobj(), data, limit)
    except ResponseTooLarge:
        raise
    except EndpointBodyError:
        return _inflate(zlib.decompressobj(-zlib.MAX_WBITS), data, limit)


def _decoded(response: httpcore2.Response, raw: bytes, limit: int) -> httpcore2.Response:
    """The response with its body decoded (bounded) and no Content-Encoding left."""
    headers = [(k, v) for k, v in response.headers if k.lower() not in (b"content-encoding", b"content-length")]
    codings = [
        c.strip().lower()
        for k, v in response.headers
        if k.lower() == b"content-encoding"
        for c in v.decode("latin-1").split(",")
        if c.strip()
    ]
    body = decode_bounded(raw, codings, limit)
    headers.append((b"Content-Length", str(len(body)).encode()))
    return httpcore2.Response(response.status, headers=headers, content=body, extensions=response.extensions)


def _grow(raw: bytearray, chunk: bytes, limit: int) -> None:
    raw += chunk
    if len(raw) > limit:
        raise ResponseTooLarge(f"the endpoint's answer is larger than {limit} bytes")


class _BoundedPool:
    """Wraps httpcore2's pool: reads each body whole, bounded, and decodes it, all by the
    exchange's deadline."""

    def __init__(self, pool: Any, limit: int, deadline_s: float | None = None) -> None:
        self._pool = pool
        self._limit = limit
        self._deadline_s = deadline_s

    async def handle_async_request(self, request: httpcore2.Request) -> httpcore2.Response:
        with exchange_deadline(self._deadline_s):
            response = await self._pool.handle_async_request(request)
            try:
                raw = bytearray()
                async for chunk in response.aiter_stream():
                    _grow(raw, chunk, self._limit)
            finally:
                await response.aclose()
        return _decoded(response, bytes(raw), self._limit)

    async def aclose(self) -> None:
        await self._pool.aclose()

    async def __aenter__(self) -> _BoundedPool:
        await self._pool.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._pool.__aexit__(*exc)


class _BoundedSyncPool:
    """`_BoundedPool` for httpcore2's synchronous pool."""

    def __init__(self, pool: Any, limit: int, deadline_s: float | None = None) -> None:
        self._pool = pool
        self._limit = limit
        self._deadline_s = deadline_s

    def handle_request(self, request: httpcore2.Request) -> httpcore2.Response:
        with exchange_deadline(self._deadline_s):
            response = self._pool.handle_request(request)
            try:
                raw = bytearray()
                for chunk in response.iter_stream():
                    _grow(raw, chunk, self._limit)
            finally:
                response.close()
        return _decoded(response, bytes(raw), self._limit)

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> _BoundedSyncPool:
        self._pool.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._pool.__exit__(*exc)


_UNKNOWN = object()


class SocketAwareStream(httpcore2.AsyncNetworkStream):
    """A network stream that answers "is the idle connection readable?" from its socket, looked up once.

    The pool asks that of every idle connection each time it assigns a request or takes a
    connection back (about 18 times per call at a concurrency of 32); anyio answers by building
    its table of socket attributes anew each time (13 us, against 1 us for the check itself).
    Everything else is the wrapped stream's."""

    def __init__(self, stream: httpcore2.AsyncNetworkStream) -> None:
        self._stream = stream
        self._socket: Any = _UNKNOWN

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._stream.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore2.AsyncNetworkStream:
        return SocketAwareStream(await self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            if self._socket is _UNKNOWN:
                self._socket = self._stream.get_extra_info("socket")
            if self._socket is not None:
                return is_socket_readable(self._socket)
        return self._stream.get_extra_info(info)


class SocketAwareBackend(httpcore2.AsyncNetworkBackend):
    """Connects through another backend and hands out its streams as `SocketAwareStream`s."""

    def __init__(self, backend: httpcore2.AsyncNetworkBackend) -> None:
        self._backend = backend

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Any = None) -> httpcore2.AsyncNetworkStream:
        return SocketAwareStream(await self._backend.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options))

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore2.AsyncNetworkStream:
        return SocketAwareStream(await self._backend.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


class BoundedTransport(httpx2.AsyncHTTPTransport):
    """httpx2's transport (so vcrpy's recorder still wraps it) over a bounded pool; each request
    is one exchange of at most `deadline_s` seconds (None: no deadline of its own)."""

    def __init__(self, *, max_body_bytes: int, deadline_s: float | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # httpx2 takes no network backend, so the pool's own is wrapped where it keeps it; a
        # pool that keeps none there goes on as it is (the same answers, the slower way, and
        # only its own timeouts)
        backend = getattr(self._pool, "_network_backend", None)
        if isinstance(backend, httpcore2.AsyncNetworkBackend):
            self._pool._network_backend = SocketAwareBackend(DeadlineBackend(backend))
        self._pool = _BoundedPool(self._pool, max_body_bytes, deadline_s)  # type: ignore[assignment]


class BoundedSyncTransport(httpx2.HTTPTransport):
    """`BoundedTransport` for synchronous clients (the Batch API's files and batches)."""

    def __init__(self, *, max_body_bytes: int, deadline_s: float | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        backend = getattr(self._pool, "_network_backend", None)
        if isinstance(backend, httpcore2.NetworkBackend):
            self._pool._network_backend = SyncDeadlineBackend(backend)
        self._pool = _BoundedSyncPool(self._pool, max_body_bytes, deadline_s)  # type: ignore[assignment]


def proxy_mounts(*, max_body_bytes: int, deadline_s: float | None = None, sync: bool = False,
                 **kwargs: Any) -> dict[str, Any]:
    """Bounded transports for the environment's HTTP_PROXY / HTTPS_PROXY / ALL_PROXY (NO_PROXY
    hosts mapped to None, i.e. direct); synchronous ones with `sync`.

    httpx ignores the environment's proxies once a client is given its own transport, so without
    these mounts a user behind a proxy could not reach the endpoint at all; with httpx's own
    proxy transports neither the body cap nor the deadline would apply.
    """
    from httpx2._utils import get_environment_proxies

    kind: Any = BoundedSyncTransport if sync else BoundedTransport
    return {
        pattern: None if url is None else kind(max_body_bytes=max_body_bytes, deadline_s=deadline_s, proxy=url, **kwargs)
        for pattern, url in get_environment_proxies().items()
    }


def is_body_error(exc: BaseException) -> EndpointBodyError | None:
    """The EndpointBodyError in an exception's cause chain (the SDK wraps it), if any."""
    return find_cause(exc, EndpointBodyError)
