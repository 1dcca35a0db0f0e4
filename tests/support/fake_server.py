"""A local server that speaks the OpenAI chat completions API, with faults on demand.

It answers from a script instead of a model, for tests, benchmarks and building the
example cassettes: the answer is chosen by the conversation so far, so concurrent
cases and gleaning rounds each get their own. Faults (latency, 429 with Retry-After,
500, dropped connections) are injected by rate or for the first N calls. A capacity
(`Faults.capacity`) makes it serve at most N requests at once and answer the rest 429,
as vLLM or a provider's concurrency quota does. `raw` replaces the answer with any
status, headers and bytes, to test what the client does with a broken endpoint.
"""

from __future__ import annotations

import gzip
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.llm.tokens import count_message_tokens, count_tokens

Responder = Callable[[dict[str, Any]], str]


class Stopped(str):
    """An answer text with the finish reason to send with it (`Stopped("(...", "length")`: an
    answer cut off at max_tokens); a plain str is sent with "stop"."""

    finish_reason: str

    def __new__(cls, text: str, finish_reason: str = "stop") -> Stopped:
        value = super().__new__(cls, text)
        value.finish_reason = finish_reason
        return value


def finish_reason_of(text: str) -> str:
    return getattr(text, "finish_reason", "stop")


@dataclass
class RawReply:
    """An answer sent exactly as given (status, headers, body bytes); Content-Length is added."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


RawResponder = Callable[[dict[str, Any]], "RawReply | None"]


@dataclass
class Faults:
    latency_s: float = 0.0
    rate_429: float = 0.0
    retry_after_s: float = 0.05
    rate_500: float = 0.0
    rate_drop: float = 0.0
    first_429: int = 0  # the first N calls answer 429, whatever the rates
    first_500: int = 0
    first_drop: int = 0
    gzip: bool = False
    seed: int = 7
    capacity: int = 0  # serve at most N requests at once, answer the others 429 (0: no limit)
    report_usage: bool = True  # False: answers carry no `usage`, as some local servers send


@dataclass
class Script:
    """Answers by conversation: the first user message names the case, and the number of
    gleaning prompts sent so far picks the round. Loop checks answer from `loop`.

    `samples` answers a prompt differently each time a conversation starts with it, as a model
    sampled at a temperature above 0 does (repeated runs): the k-th conversation gets the rounds
    `samples[prompt][k]` (the last ones again once they run out); its gleaning follow-ups are told
    apart by the first answer they carry, so the first rounds of a prompt's samples must differ."""

    rounds: dict[str, list[str]] = field(default_factory=dict)
    loop: dict[str, list[str]] = field(default_factory=dict)
    fallback: str | None = None
    samples: dict[str, list[list[str]]] = field(default_factory=dict)
    started: dict[str, int] = field(default_factory=dict)  # conversations begun per prompt of `samples`
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def _sampled(self, key: str, messages: list[dict[str, Any]], first_call: bool) -> list[str]:
        sequences = self.samples[key]
        if first_call:
            with self._lock:
                index = self.started.get(key, 0)
                self.started[key] = index + 1
            return sequences[min(index, len(sequences) - 1)]
        first_answer = next(m.get("content", "") for m in messages if m.get("role") == "assistant")
        return next(seq for seq in sequences if seq and seq[0] == first_answer)

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        if not users:
            return self.fallback or ""
        key = users[0]
        if key in self.samples:
            answers: list[str] | None = self._sampled(key, messages, len(users) == 1)
        else:
            answers = self.rounds.get(key)
        if answers is None:
            if self.fallback is not None:
                return self.fallback
            raise KeyError("no scripted answer for this prompt")
        asked = len(users) - 1  # follow-ups alternate: continue, loop check, continue, ...
        if asked == 0 or asked % 2 == 1:
            index = (asked + 1) // 2
            return answers[index] if index < len(answers) else ""
        check = asked // 2 - 1
        loops = self.loop.get(key, [])
        if check < len(loops):
            return loops[check]
        return "Y" if check + 2 < len(answers) else "N"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default of 5 refuses connections when a run opens 32 at once


class FakeOpenAIServer:
    """`with FakeOpenAIServer(responder) as server:` then use `server.base_url`."""

    def __init__(
        self,
        responder: Responder,
        faults: Faults | None = None,
        *,
        host: str = "127.0.0.1",
        raw: RawResponder | None = None,
    ) -> None:
        self.responder = responder
        self.faults = faults or Faults()
        self.raw = raw  # when it returns a RawReply, that is sent instead of the scripted answer
        self.requests: list[dict[str, Any]] = []  # every request: headers and body, for assertions
        self.calls = 0
        self.in_progress = 0  # requests being served now (capacity mode)
        self.peak_in_progress = 0
        self.rejected = 0  # requests refused for capacity
        self.answered = 0  # 200 answers sent
        # the Batch API (files and batches endpoints): uploaded files, batches, and lines to fail
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_creates = 0  # batches created (a resumed run creates none)
        self.batch_answered = 0  # batch lines answered 200
        self.fail_lines: Callable[[str], bool] = lambda custom_id: False  # these lines go to the error file
        self.drop_lines: Callable[[str], bool] = lambda custom_id: False  # these lines get no answer at all
        # (status, body) every files and batches request gets instead, as from an endpoint without
        # the Batch API (llama.cpp, vLLM: 404) or one refusing it
        self.batch_error: tuple[int, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self._rng = random.Random(self.faults.seed)
        self._server = _Server((host, 0), self._handler())
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _admit(self) -> bool:
        """Take a serving slot, or count a rejection when the capacity is reached."""
        with self._lock:
            if self.faults.capacity and self.in_progress >= self.faults.capacity:
                self.rejected += 1
                return False
            self.in_progress += 1
            self.peak_in_progress = max(self.peak_in_progress, self.in_progress)
            return True

    def _leave(self) -> None:
        with self._lock:
            self.in_progress -= 1

    def _decide(self) -> str:
        with self._lock:
            self.calls += 1
            n = self.calls
            f = self.faults
            if n <= f.first_429:
                return "429"
            if n <= f.first_429 + f.first_500:
                return "500"
            if n <= f.first_429 + f.first_500 + f.first_drop:
                return "drop"
            roll = self._rng.random()
        if roll < f.rate_429:
            return "429"
        if roll < f.rate_429 + f.rate_500:
            return "500"
        if roll < f.rate_429 + f.rate_500 + f.rate_drop:
            return "drop"
        return "ok"

    def completion(self, body: dict[str, Any], text: str, number: int) -> dict[str, Any]:
        """The chat completion answering `body` with `text` (id chatcmpl-<number>)."""
        model = body.get("model", "fake")
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": finish_reason_of(text)}],
        }
        if self.faults.report_usage:
            prompt_tokens = count_message_tokens(body.get("messages", []), model)
            completion_tokens = count_tokens(text, model)
            payload["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                "total_tokens": prompt_tokens + completion_tokens}
        return payload

    # ----------------------------------------------------------------- the Batch API

    def _new_file(self, data: bytes, purpose: str, filename: str) -> dict[str, Any]:
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(data), "created_at": 1700000000,
                                   "filename": filename, "purpose": purpose, "status": "processed", "data": data}
        return {k: v for k, v in self.files[file_id].items() if k != "data"}

    def create_batch(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        source = self.files.get(str(request.get("input_file_id")))
        if source is None or request.get("endpoint") != "/v1/chat/completions" or request.get("completion_window") != "24h":
            return 400, {"error": {"message": "bad batch request", "type": "invalid_request_error"}}
        lines = [json.loads(line) for line in source["data"].decode("utf-8").splitlines() if line.strip()]
        with self._lock:
            self.batch_creates += 1
            batch_id = f"batch_{self.batch_creates}"
            self.batches[batch_id] = {
                "id": batch_id, "object": "batch", "endpoint": request["endpoint"], "errors": None,
                "input_file_id": source["id"], "completion_window": "24h", "status": "validating",
                "output_file_id": None, "error_file_id": None, "created_at": 1700000000,
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "metadata": request.get("metadata"), "_lines": lines,
            }
        return 200, self.batch_view(batch_id)

    def batch_view(self, batch_id: str) -> dict[str, Any]:
        return {k: v for k, v in self.batches[batch_id].items() if not k.startswith("_")}

    def advance_batch(self, batch_id: str) -> dict[str, Any]:
        """Each retrieval moves a batch on: validating -> in_progress -> completed (answered then)."""
        batch = self.batches[batch_id]
        if batch["status"] == "validating":
            batch["status"] = "in_progress"
        elif batch["status"] == "in_progress":
            self._answer_batch(batch)
            batch["status"] = "completed"
        return self.batch_view(batch_id)

    def _answer_batch(self, batch: dict[str, Any]) -> None:
        """Answer every line with the responder, as the chat endpoint would; chosen lines fail or vanish."""
        out, errors = [], []
        for n, line in enumerate(batch["_lines"], 1):
            custom_id = line.get("custom_id")
            if self.drop_lines(custom_id):
                continue
            request_id = f"req_{batch['id']}_{n}"
            if self.fail_lines(custom_id):
                errors.append({"id": f"batch_req_{n}", "custom_id": custom_id, "error": None,
                               "response": {"status_code": 500, "request_id": request_id,
                                            "body": {"error": {"message": "server error", "type": "server_error"}}}})
                continue
            body = line.get("body") or {}
            try:
                text = self.responder(body)
            except KeyError as exc:
                errors.append({"id": f"batch_req_{n}", "custom_id": custom_id, "response": None,
                               "error": {"code": "invalid_request", "message": str(exc)}})
                continue
            with self._lock:
                self.batch_answered += 1
                number = self.batch_answered
            out.append({"id": f"batch_req_{n}", "custom_id": custom_id, "error": None,
                        "response": {"status_code": 200, "request_id": request_id,
                                     "body": self.completion(body, text, number)}})
        dump = lambda items: "".join(json.dumps(i) + "\n" for i in items).encode()  # noqa: E731
        batch["output_file_id"] = self._new_file(dump(out), "batch_output", "output.jsonl")["id"] if out else None
        batch["error_file_id"] = self._new_file(dump(errors), "batch_output", "errors.jsonl")["id"] if errors else None
        batch["request_counts"] = {"total": len(batch["_lines"]), "completed": len(out), "failed": len(errors)}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                extra = dict(headers or {})
                if server.faults.gzip and status == 200:
                    data = gzip.compress(data)
                    extra["Content-Encoding"] = "gzip"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("x-request-id", f"req_{server.calls}")
                self.send_header("openai-organization", "org-fake-should-not-be-recorded")
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                path = self.path.split("?", 1)[0].rstrip("/")
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": None})
                parts = path.split("/")
                if len(parts) >= 2 and parts[-2] == "batches" and parts[-1] in server.batches:
                    self._send(200, server.advance_batch(parts[-1]))
                elif len(parts) >= 3 and parts[-1] == "content" and parts[-3] == "files" and parts[-2] in server.files:
                    data = server.files[parts[-2]]["data"]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def _upload(self, raw: bytes) -> None:
                """files.create: a multipart form with `purpose` and `file`."""
                from email.parser import BytesParser
                from email.policy import default

                head = f"Content-Type: {self.headers.get('Content-Type', '')}\r\n\r\n".encode()
                form = BytesParser(policy=default).parsebytes(head + raw)
                fields: dict[str, tuple[bytes, str]] = {}
                for part in form.iter_parts():
                    name = part.get_param("name", header="content-disposition")
                    fields[str(name)] = (part.get_payload(decode=True) or b"", part.get_filename() or "")
                if "file" not in fields or "purpose" not in fields:
                    self._send(400, {"error": {"message": "need file and purpose", "type": "invalid_request_error"}})
                    return
                data, filename = fields["file"]
                self._send(200, server._new_file(data, fields["purpose"][0].decode(), filename))

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                route = self.path.split("?", 1)[0].rstrip("/")
                if server.batch_error is not None and route.endswith(("/files", "/batches")):
                    self._send(*server.batch_error)
                    return
                if route.endswith("/files"):
                    with server._lock:
                        server.requests.append({"path": self.path, "headers": dict(self.headers), "body": None})
                    self._upload(raw)
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                    return
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if route.endswith("/batches"):
                    self._send(*server.create_batch(body))
                    return
                if not self.path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                if not server._admit():
                    self._send(
                        429,
                        {"error": {"message": "server at capacity", "type": "rate_limit_error"}},
                        {"Retry-After": f"{server.faults.retry_after_s}"},
                    )
                    return
                try:
                    reply = self._serve(body)
                finally:
                    # the slot frees when the answer is ready, before it is sent (as a model
                    # server frees it when generation ends), so a client that sends its next
                    # request on receipt never finds its own previous one still counted
                    server._leave()
                if reply is not None:
                    self._send(*reply)

            def _send_raw(self, reply: RawReply) -> None:
                self.send_response(reply.status)
                names = {k.lower() for k in reply.headers}
                if "content-length" not in names:
                    self.send_header("Content-Length", str(len(reply.body)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(reply.body)

            def _serve(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str] | None] | None:
                """The answer to send (status, payload, headers), or None when already sent."""
                if server.faults.latency_s:
                    time.sleep(server.faults.latency_s)
                if server.raw is not None:
                    raw_reply = server.raw(body)
                    if raw_reply is not None:
                        with server._lock:
                            server.calls += 1
                        self._send_raw(raw_reply)
                        return None
                decision = server._decide()
                if decision == "429":
                    return (
                        429,
                        {"error": {"message": "rate limited", "type": "rate_limit_error"}},
                        {"Retry-After": f"{server.faults.retry_after_s}"},
                    )
                if decision == "500":
                    return 500, {"error": {"message": "server error", "type": "server_error"}}, None
                if decision == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return None
                try:
                    text = server.responder(body)
                except KeyError as exc:
                    return 400, {"error": {"message": str(exc), "type": "invalid_request_error"}}, None
                model = body.get("model", "fake")
                prompt_tokens = count_message_tokens(body.get("messages", []), model)
                completion_tokens = count_tokens(text, model)
                with server._lock:
                    server.answered += 1
                payload: dict[str, Any] = {
                    "id": f"chatcmpl-{server.calls}",
                    "object": "chat.completion",
                    "created": 1700000000,
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": str(text)},
                         "finish_reason": finish_reason_of(text)}
                    ],
                }
                if server.faults.report_usage:
                    payload["usage"] = {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    }
                return 200, payload, None

        return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve a script from a JSON file in its own process (benchmarks keep it off our GIL).

    The script file holds {"rounds": {first_user_message: [answers]}, "loop": {...}}.
    Prints the base URL on the first line of stdout, then serves until killed.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--script", required=True)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=0.05)
    parser.add_argument("--rate-500", type=float, default=0.0)
    parser.add_argument("--rate-drop", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--capacity", type=int, default=0, help="serve at most N requests at once, 429 the rest")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as handle:
        data = json.load(handle)
    script = Script(rounds=data.get("rounds", {}), loop=data.get("loop", {}), fallback=data.get("fallback"))
    faults = Faults(latency_s=args.latency, rate_429=args.rate_429, retry_after_s=args.retry_after,
                    rate_500=args.rate_500, rate_drop=args.rate_drop, seed=args.seed, capacity=args.capacity)
    server = FakeOpenAIServer(script, faults)
    sys.stdout.write(server.base_url + "\n")
    sys.stdout.flush()
    server._server.serve_forever()


if __name__ == "__main__":
    main()


class EchoCredentials:
    """A responder that appends the credential header each request carried to the answer,
    as a misbehaving proxy or debug endpoint does (tests of key scrubbing).

    `encode` turns the header's value into what the answer shows (base64, URL-encoded...).
    Attach it to its server: `echo.server = FakeOpenAIServer(echo)`."""

    def __init__(self, inner: Responder, encode: Callable[[str], str] = str) -> None:
        self.inner = inner
        self.encode = encode
        self.server: FakeOpenAIServer | None = None

    def __call__(self, body: dict[str, Any]) -> str:
        assert self.server is not None, "attach the responder to its server first"
        with self.server._lock:
            headers = next(r["headers"] for r in reversed(self.server.requests) if r["body"] is body)
        sent = {k.lower(): v for k, v in headers.items()}
        credential = sent.get("authorization") or sent.get("api-key") or ""
        return f"{self.inner(body)}\nDebug: you sent {self.encode(credential)}"
