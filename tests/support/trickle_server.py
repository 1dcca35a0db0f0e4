"""A raw HTTP server on 127.0.0.1 that answers with bytes on a schedule: slowloris headers, a
body a byte at a time, a chunked body that never ends, a stall, a reset.

Each connection reads one request (headers and the body its Content-Length announces) and hands
the socket to a `Play`: a function that writes whatever it likes, with pauses, until it returns
or the client goes away (a failed send ends it quietly). `stop()` ends every play, so a test whose
client never cuts the exchange still ends. `requests` counts the requests read, `bytes_sent` the
bytes the plays managed to send, `closed_by_client` the plays ended by the client leaving.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from typing import Any

Play = Callable[["Stream", dict[str, Any]], None]


class ClientGone(Exception):
    """The client closed or reset the connection while the play was sending."""


class Stream:
    """What a play writes through: sends that notice a vanished client, pauses that end on stop()."""

    def __init__(self, conn: socket.socket, server: TrickleServer) -> None:
        self.conn = conn
        self.server = server

    def send(self, data: bytes) -> None:
        try:
            self.conn.sendall(data)
        except OSError:
            raise ClientGone() from None
        with self.server.lock:
            self.server.bytes_sent += len(data)

    def pause(self, seconds: float) -> None:
        """Wait, or end the play at once when the server stops; a client that left ends it too."""
        if self.server.stopping.wait(seconds):
            raise ClientGone()
        if self._client_left():
            raise ClientGone()

    def _client_left(self) -> bool:
        try:
            self.conn.setblocking(False)
            try:
                data = self.conn.recv(1, socket.MSG_PEEK)
            finally:
                self.conn.setblocking(True)
        except BlockingIOError:
            return False
        except OSError:
            return True
        return data == b""

    def trickle(self, data: bytes, *, every: float, step: int = 1) -> None:
        """`data`, `step` bytes at a time, a pause before each."""
        for start in range(0, len(data), step):
            self.pause(every)
            self.send(data[start:start + step])

    def reset(self) -> None:
        """Close with a TCP reset (SO_LINGER 0) instead of a clean end."""
        self.conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.conn.close()


def completion_body(text: str = "ok") -> bytes:
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


def head(status: int = 200, length: int | None = None, *, chunked: bool = False, extra: str = "") -> bytes:
    lines = [f"HTTP/1.1 {status} X", "Content-Type: application/json"]
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    elif length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode()


class TrickleServer:
    """`with TrickleServer(play) as srv:` then `srv.base_url`; `play` may also be a list, one per request
    in order (the last repeats)."""

    def __init__(self, play: Play | list[Play]) -> None:
        self.plays = play if isinstance(play, list) else [play]
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.requests = 0
        self.bytes_sent = 0
        self.closed_by_client = 0
        self.bodies: list[dict[str, Any]] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []

    @property
    def base_url(self) -> str:
        host, port = self._sock.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> TrickleServer:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.stopping.set()
        try:
            self._sock.close()
        except OSError:
            pass
        with self.lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self.lock:
                self._conns.append(conn)
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            thread.start()

    def _read_request(self, conn: socket.socket) -> dict[str, Any] | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        header, _, rest = data.partition(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(fields.get("content-length", "0") or 0)
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            rest += chunk
        try:
            body = json.loads(rest[:length] or b"null")
        except ValueError:
            body = None
        return {"line": lines[0], "headers": fields, "body": body}

    def _serve(self, conn: socket.socket) -> None:
        stream = Stream(conn, self)
        try:
            while not self.stopping.is_set():
                request = self._read_request(conn)
                if request is None:
                    return
                with self.lock:
                    index = self.requests
                    self.requests += 1
                    self.bodies.append(request)
                play = self.plays[min(index, len(self.plays) - 1)]
                play(stream, request)
        except ClientGone:
            with self.lock:
                self.closed_by_client += 1
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass


# ----------------------------------------------------------------------------- plays


def answer(text: str = "ok") -> Play:
    """A prompt, whole answer (keeps the connection open for the next request)."""
    body = completion_body(text)

    def play(stream: Stream, _: dict[str, Any]) -> None:
        stream.send(head(200, len(body)) + body)
    return play


def silent(stream: Stream, _: dict[str, Any]) -> None:
    """Reads the request and never answers."""
    while True:
        stream.pause(0.05)


def slow_headers(every: float = 0.05) -> Play:
    """The status line and headers a byte at a time, then headers that never end."""
    def play(stream: Stream, _: dict[str, Any]) -> None:
        stream.trickle(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n", every=every)
        n = 0
        while True:
            stream.trickle(f"X-Pad-{n}: {'a' * 8}\r\n".encode(), every=every, step=4)
            n += 1
    return play


def slow_body(every: float = 0.05, step: int = 1, size: int = 1 << 20) -> Play:
    """Headers at once, then a body of `size` bytes, `step` bytes per pause."""
    def play(stream: Stream, _: dict[str, Any]) -> None:
        body = completion_body("x" * size)
        stream.send(head(200, len(body)))
        stream.trickle(body, every=every, step=step)
    return play


def endless_chunks(every: float = 0.05) -> Play:
    """A chunked body whose chunks keep coming and whose last chunk never does."""
    def play(stream: Stream, _: dict[str, Any]) -> None:
        stream.send(head(200, chunked=True))
        stream.send(b"1\r\n{\r\n")
        while True:
            stream.pause(every)
            stream.send(b"1\r\n \r\n")
    return play


def reset_mid_body(stream: Stream, _: dict[str, Any]) -> None:
    body = completion_body("x" * 1000)
    stream.send(head(200, len(body)) + body[:100])
    stream.pause(0.02)
    stream.reset()
    raise ClientGone()


def delayed(seconds: float, text: str = "ok") -> Play:
    """A whole answer after `seconds` (a model generating slowly)."""
    body = completion_body(text)

    def play(stream: Stream, _: dict[str, Any]) -> None:
        stream.pause(seconds)
        stream.send(head(200, len(body)) + body)
    return play
