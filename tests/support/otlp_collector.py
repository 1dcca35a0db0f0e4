"""An in-process OTLP/HTTP trace receiver, and a reader of OTLP/JSON lines, for the export tests.

The receiver is a real HTTP server on 127.0.0.1 (port 0) that decodes each POSTed body as an
ExportTraceServiceRequest protobuf, as a collector's OTLP/HTTP receiver does, and keeps it with
the path it was posted to. `status` makes it refuse every request with that HTTP status.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span


@dataclass
class Received:
    path: str
    content_type: str
    request: ExportTraceServiceRequest


@dataclass
class OTLPCollector:
    status: int = 200
    received: list[Received] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> OTLPCollector:
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if collector.status != 200:
                    self.send_response(collector.status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)  # a body that is no request raises: the test sees no span
                collector.received.append(Received(self.path, self.headers.get("Content-Type", ""), request))
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def spans(self) -> list[Span]:
        return list(spans_of(r.request for r in self.received))


def spans_of(requests: Iterator[ExportTraceServiceRequest] | list[ExportTraceServiceRequest]) -> Iterator[Span]:
    for request in requests:
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                yield from scope_spans.spans


def _base64_ids(value: Any) -> Any:
    """OTLP/JSON's hex ids back to protobuf JSON's base64, so json_format can parse the line."""
    if isinstance(value, list):
        return [_base64_ids(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {key: base64.b64encode(bytes.fromhex(item)).decode("ascii")
            if key in ("traceId", "spanId", "parentSpanId") else _base64_ids(item) for key, item in value.items()}


def read_otlp_json_lines(path: Path) -> list[ExportTraceServiceRequest]:
    """Each line of an OTLP/JSON file as the ExportTraceServiceRequest it encodes."""
    requests = []
    for line in path.read_text(encoding="utf-8").splitlines():
        request = ExportTraceServiceRequest()
        json_format.ParseDict(_base64_ids(json.loads(line)), request)
        requests.append(request)
    return requests


def attributes(span_or_event: Any) -> dict[str, Any]:
    """A span's or event's attributes as plain values (string, bool, int, float, or a list of them)."""
    found: dict[str, Any] = {}
    for item in span_or_event.attributes:
        found[item.key] = _value(item.value)
    return found


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind)
