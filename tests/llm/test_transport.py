"""The bounded transport's socket-aware streams answer as the backend's own streams do."""

from __future__ import annotations

import asyncio

import httpcore2
import httpx2
from httpcore2._backends.auto import AutoBackend

from harness.llm.transport import BoundedTransport, SocketAwareBackend, SocketAwareStream


async def _connected_pair() -> tuple[asyncio.AbstractServer, list[asyncio.StreamWriter], int]:
    peers: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peers.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    return server, peers, server.sockets[0].getsockname()[1]


def test_is_readable_is_the_backends_answer_while_idle_and_once_the_peer_closes():
    async def go() -> list[tuple[bool, bool]]:
        server, peers, port = await _connected_pair()
        plain = await AutoBackend().connect_tcp("127.0.0.1", port)
        aware = await SocketAwareBackend(AutoBackend()).connect_tcp("127.0.0.1", port)
        assert isinstance(aware, SocketAwareStream)
        while len(peers) < 2:
            await asyncio.sleep(0.01)
        answers = [(plain.get_extra_info("is_readable"), aware.get_extra_info("is_readable"))]
        for peer in peers:  # the server drops both idle connections
            peer.close()
        await asyncio.sleep(0.05)
        answers.append((plain.get_extra_info("is_readable"), aware.get_extra_info("is_readable")))
        assert aware.get_extra_info("server_addr") == ("127.0.0.1", port)  # the rest is the stream's
        await plain.aclose()
        await aware.aclose()
        answers.append((plain.get_extra_info("is_readable"), aware.get_extra_info("is_readable")))
        server.close()
        return answers

    assert asyncio.run(go()) == [(False, False), (True, True), (True, True)]


class _NoSocketStream(httpcore2.AsyncNetworkStream):
    def get_extra_info(self, info: str) -> object:
        return "its own answer" if info == "is_readable" else None


def test_a_stream_without_a_socket_answers_for_itself():
    assert SocketAwareStream(_NoSocketStream()).get_extra_info("is_readable") == "its own answer"


def test_the_transport_connects_through_the_socket_aware_backend_and_reuses_connections():
    async def go() -> tuple[list[int], int]:
        served: list[int] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            served.append(1)
            while await reader.readuntil(b"\r\n\r\n"):
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await writer.drain()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        transport = BoundedTransport(max_body_bytes=100)
        assert isinstance(transport._pool._pool._network_backend, SocketAwareBackend)
        async with httpx2.AsyncClient(transport=transport) as client:
            statuses = [(await client.get(f"http://127.0.0.1:{port}/")).status_code for _ in range(3)]
        server.close()
        return statuses, len(served)

    assert asyncio.run(go()) == ([200, 200, 200], 1)


def test_a_connection_the_server_dropped_while_idle_is_not_reused():
    async def go() -> tuple[list[int], int]:
        served: list[int] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            served.append(1)
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await writer.drain()
            writer.close()  # keep-alive in the headers, closed in fact

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        statuses = []
        async with httpx2.AsyncClient(transport=BoundedTransport(max_body_bytes=100)) as client:
            for _ in range(3):
                statuses.append((await client.get(f"http://127.0.0.1:{port}/")).status_code)
                await asyncio.sleep(0.05)  # the close reaches the idle connection
        server.close()
        return statuses, len(served)

    assert asyncio.run(go()) == ([200, 200, 200], 3)
