"""A finished run as OpenTelemetry traces, in the GenAI semantic conventions (docs/export.md).

One trace per run: a root span for the run, a span per (variant, case[, sample]) row of
results.jsonl, and under it a client span per model call the row records (its rounds: the
extraction, each gleaning continuation, each loop check). Each case span carries the case's
figures as `gen_ai.evaluation.result` events, one per registered metric the case has a value
for (n/a figures are left out, never sent as 0).

OpenTelemetry's SDK makes the spans and its OTLP encoder the ExportTraceServiceRequest; a file
gets that request's OTLP/JSON encoding, one request a line, and a URL gets it as OTLP/HTTP
protobuf through the SDK's exporter. This module imports the SDK at its top: only the export
command imports it, so no other command loads OpenTelemetry.

Rows record how long each call took, not when it started: the spans are laid end to end from
the run's start (`created_at`), in suite order. Span and trace ids are drawn from a generator
seeded with the run's identity, so exporting the same run twice sends the same ids.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import logging
import os
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes, server_attributes
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, set_span_in_context

from .. import __version__
from ..artifacts import RunSummary, VariantSummary
from ..atomicfile import atomic_write
from ..errors import InputError
from ..known_keys import scrub
from ..metrics import metrics as registered_metrics
from ..model import CaseResult, Round, Usage
from ..runfolder import RESULTS, RunData, load_run, load_suite_of
from ..scoring.case_metrics import measured

EVALUATION_EVENT = "gen_ai.evaluation.result"  # the GenAI event of an evaluation's result
CHAT = "chat"  # gen_ai.operation.name of a chat-completions call (every provider of the harness)
# the harness's providers (llm/providers/registry.py) as gen_ai.provider.name names them
PROVIDER_NAMES = {"openai": "openai", "azure": "azure.ai.openai"}
SPANS_PER_REQUEST = 512  # spans in one ExportTraceServiceRequest: one line of a file, one POST
TRACES_PATH = "/v1/traces"  # OTLP/HTTP's path for traces, added to a URL that does not end in it
SCOPE = "harness.export.otel"
_NS = 1_000_000_000


@dataclass(frozen=True)
class Endpoint:
    """What the run's suite says of a variant's model calls (None where the suite is gone or no
    longer names the model the run used: then the spans leave these attributes out)."""

    provider: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class Exported:
    """What an export sent: spans, cases (rows), model calls, evaluation events and requests."""

    spans: int
    cases: int
    calls: int
    evaluations: int
    requests: int
    destination: str


# --------------------------------------------------------------------------- spans


class SeededIds(IdGenerator):
    """Span and trace ids drawn from a generator seeded by the run: the same run, the same ids."""

    def __init__(self, seed: str) -> None:
        self._random = random.Random(int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest(), "big"))

    def generate_span_id(self) -> int:
        return self._random.getrandbits(64) or 1  # 0 is the invalid span id

    def generate_trace_id(self) -> int:
        return self._random.getrandbits(128) or 1


def _start_ns(run: RunData, summary: RunSummary) -> int:
    """The run's start: summary.json's `created_at`, else (a value that is no date) the time
    results.jsonl was last written."""
    try:
        started = dt.datetime.fromisoformat(summary.created_at)
    except ValueError:
        return (run.run_dir / RESULTS).stat().st_mtime_ns
    if started.tzinfo is None:
        started = started.replace(tzinfo=dt.UTC)
    return int(started.timestamp()) * _NS + started.microsecond * 1000


def _endpoints(summary: RunSummary) -> dict[str, Endpoint]:
    """Per variant, the suite's settings for its calls, where the suite still names the run's model."""
    suite = load_suite_of(summary)
    if suite is None:
        return {}
    from ..run.plan import endpoint_settings  # lazy: planning loads the model client's modules

    found: dict[str, Endpoint] = {}
    for name, variant in summary.variants.items():
        spec = suite.spec.variants.get(name)
        if spec is None:
            continue
        settings = endpoint_settings(suite.model_settings(name), model_name=spec.model)
        if settings.model != variant.model:
            continue  # the suite has changed since the run: its settings are not the run's
        found[name] = Endpoint(provider=PROVIDER_NAMES.get(settings.provider, settings.provider),
                               temperature=settings.temperature, top_p=settings.top_p,
                               max_tokens=settings.max_tokens, seed=settings.seed,
                               # replicas (model.base_urls): the first stands for them, as in cassettes
                               base_url=settings.base_url or next(iter(settings.base_urls), None))
    return found


def _text(value: str) -> str:
    """A string attribute as it may leave the process: every known key redacted."""
    return scrub(value)


def _usage(usage: Usage) -> dict[str, Any]:
    if not usage.counted:
        return {}  # no usage known (answers another pipeline wrote): left out, never 0
    return {gen_ai.GEN_AI_USAGE_INPUT_TOKENS: usage.prompt_tokens,
            gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: usage.completion_tokens,
            "harness.usage.estimated": usage.estimated}


def _model_attributes(variant: VariantSummary | None, endpoint: Endpoint | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if variant is not None and variant.model:
        attributes[gen_ai.GEN_AI_REQUEST_MODEL] = _text(variant.model)
    if endpoint is None:
        return attributes
    if endpoint.provider:
        attributes[gen_ai.GEN_AI_PROVIDER_NAME] = endpoint.provider
        attributes[gen_ai.GEN_AI_SYSTEM] = endpoint.provider  # its older name, still read by some receivers
    for key, value in ((gen_ai.GEN_AI_REQUEST_TEMPERATURE, endpoint.temperature),
                       (gen_ai.GEN_AI_REQUEST_TOP_P, endpoint.top_p),
                       (gen_ai.GEN_AI_REQUEST_MAX_TOKENS, endpoint.max_tokens),
                       (gen_ai.GEN_AI_REQUEST_SEED, endpoint.seed)):
        if value is not None:
            attributes[key] = value
    if endpoint.base_url:
        parts = urlsplit(endpoint.base_url)
        if parts.hostname:
            attributes[server_attributes.SERVER_ADDRESS] = _text(parts.hostname)
            try:
                port = parts.port
            except ValueError:
                port = None
            port = port or {"https": 443, "http": 80}.get(parts.scheme)
            if port:
                attributes[server_attributes.SERVER_PORT] = port
    return attributes


def _round_attributes(round_: Round, model: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "parts": [{"type": "text", "content": round_.output}]}
    if round_.finish_reason:
        message["finish_reason"] = round_.finish_reason
    attributes: dict[str, Any] = {gen_ai.GEN_AI_OPERATION_NAME: CHAT, **model, **_usage(round_.usage),
                                  "harness.round.index": round_.index, "harness.round.kind": round_.kind,
                                  gen_ai.GEN_AI_OUTPUT_MESSAGES: _text(json.dumps([message], ensure_ascii=False))}
    if round_.finish_reason:
        attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] = [round_.finish_reason]
    return attributes


def evaluations(row: CaseResult) -> list[tuple[str, float]]:
    """The row's figures as evaluation results: every registered metric with a value for it (the
    values computed when the case was scored)."""
    values = measured(row)
    if values is None:
        return []
    return [(metric.name, float(value)) for metric in registered_metrics()
            if (value := values.value(metric.name)) is not None]


class _Layout:
    """Spans laid end to end from the run's start, each as long as the call it stands for."""

    def __init__(self, start_ns: int) -> None:
        self.now = start_ns

    def take(self, seconds: float) -> tuple[int, int]:
        start = self.now
        self.now += max(0, round(seconds * _NS))
        return start, self.now


def _case_span(tracer: Tracer, run_span: Span, row: CaseResult, layout: _Layout, variant: VariantSummary | None,
               endpoint: Endpoint | None) -> tuple[int, int]:
    """The row's span, its calls' spans and its evaluation events; returns (calls, events)."""
    model = _model_attributes(variant, endpoint)
    name = f"{row.variant} {row.case_id}" + (f" sample {row.sample}" if row.sample else "")
    attributes: dict[str, Any] = {"harness.suite": _text(row.suite), "harness.variant": _text(row.variant),
                                  "harness.case_id": _text(row.case_id), "harness.sample": row.sample,
                                  "harness.request_hash": row.request_hash,
                                  "harness.entities": len(row.graph.entities),
                                  "harness.relationships": len(row.graph.relationships),
                                  **model, **_usage(row.usage)}
    if variant is not None and variant.prompt:
        attributes[gen_ai.GEN_AI_PROMPT_NAME] = _text(variant.prompt)
    start = layout.now
    span = tracer.start_span(name, context=set_span_in_context(run_span), kind=SpanKind.INTERNAL,
                             attributes=attributes, start_time=start)
    context = set_span_in_context(span)
    model_name = model.get(gen_ai.GEN_AI_REQUEST_MODEL)
    for round_ in row.rounds:
        begin, end = layout.take(round_.latency_s or 0.0)  # an unknown latency: a span of no length
        call = tracer.start_span(f"{CHAT} {model_name}" if model_name else CHAT, context=context,
                                 kind=SpanKind.CLIENT, attributes=_round_attributes(round_, model), start_time=begin)
        call.end(end_time=end)
    end = max(layout.now, start + max(0, round((row.latency_s or 0.0) * _NS)))
    layout.now = end
    results = evaluations(row)
    for metric, value in results:
        span.add_event(EVALUATION_EVENT, {gen_ai.GEN_AI_EVALUATION_NAME: metric,
                                          gen_ai.GEN_AI_EVALUATION_SCORE_VALUE: value}, timestamp=end)
    if row.error:
        span.set_attribute(error_attributes.ERROR_TYPE, "harness.case_error")
        span.set_status(Status(StatusCode.ERROR, _text(row.error)))
    span.end(end_time=end)
    return len(row.rounds), len(results)


def run_spans(run: RunData) -> tuple[list[ReadableSpan], Exported]:
    """Every span of a finished run, made and ended by OpenTelemetry's SDK."""
    summary = run.finished
    endpoints = _endpoints(summary)
    sink = InMemorySpanExporter()
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win; no per-process id (Resource.create's):
    # the same run exports the same bytes
    resource = Resource({"service.name": "kg-harness", "service.version": __version__,
                         "telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry"}) \
        .merge(OTELResourceDetector().detect())
    provider = TracerProvider(sampler=ALWAYS_ON, resource=resource, shutdown_on_exit=False,
                              id_generator=SeededIds(f"{summary.suite}\0{summary.run_id}\0{summary.created_at}"),
                              span_limits=SpanLimits(max_attributes=256, max_events=1024,
                                                     max_event_attributes=16, max_links=0))
    provider.add_span_processor(SimpleSpanProcessor(sink))
    tracer = provider.get_tracer(SCOPE, __version__)
    layout = _Layout(_start_ns(run, summary))
    run_span = tracer.start_span(f"harness run {summary.suite}", kind=SpanKind.INTERNAL, start_time=layout.now,
                                 attributes={"harness.suite": _text(summary.suite),
                                             "harness.run_id": _text(summary.run_id),
                                             "harness.record_mode": summary.record_mode,
                                             "harness.baseline": _text(summary.baseline),
                                             "harness.version": summary.harness_version})
    calls = events = 0
    for row in run.rows:
        made = _case_span(tracer, run_span, row, layout, summary.variants.get(row.variant), endpoints.get(row.variant))
        calls += made[0]
        events += made[1]
    run_span.end(end_time=layout.now)
    provider.shutdown()
    spans = list(sink.get_finished_spans())
    return spans, Exported(spans=len(spans), cases=len(run.rows), calls=calls, evaluations=events,
                           requests=len(batches(spans)), destination="")


def batches(spans: Sequence[ReadableSpan]) -> list[Sequence[ReadableSpan]]:
    return [spans[i:i + SPANS_PER_REQUEST] for i in range(0, len(spans), SPANS_PER_REQUEST)]


# --------------------------------------------------------------------------- OTLP/JSON


def _hex_ids(value: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping writes base64."""
    if isinstance(value, list):
        return [_hex_ids(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {key: base64.b64decode(item).hex() if key in ("traceId", "spanId", "parentSpanId") and isinstance(item, str)
            else _hex_ids(item) for key, item in value.items()}


def otlp_json(request: ExportTraceServiceRequest) -> str:
    """One ExportTraceServiceRequest in the OTLP/JSON encoding, on one line: protobuf's JSON
    mapping with lowerCamelCase keys, enums as integers and ids as hex."""
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    return json.dumps(_hex_ids(data), ensure_ascii=False, separators=(",", ":"))


def write_file(spans: Sequence[ReadableSpan], path: Path) -> int:
    lines = [otlp_json(encode_spans(batch)) + "\n" for batch in batches(spans)]
    atomic_write(path, lines)
    return len(lines)


# --------------------------------------------------------------------------- OTLP/HTTP


def traces_url(url: str) -> str:
    """The URL spans are posted to: as given when it ends in /v1/traces, else with it added (a
    receiver's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is read)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith(TRACES_PATH):
        path += TRACES_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


@contextmanager
def _quiet_sdk() -> Iterator[None]:
    """The exporter logs its failures; the command says them in its own one line instead."""
    logger = logging.getLogger("opentelemetry")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def post(spans: Sequence[ReadableSpan], url: str) -> int:
    """Each batch as an OTLP/HTTP protobuf POST, through the SDK's exporter (its retries, its
    OTEL_EXPORTER_OTLP_[TRACES_]HEADERS and _TIMEOUT); a batch the receiver does not take is an
    InputError naming the URL and what it answered."""
    import requests
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    endpoint = traces_url(url)
    answers: list[int] = []
    session = requests.Session()
    session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response.status_code))
    exporter = OTLPSpanExporter(endpoint=endpoint, session=session)
    sent = 0
    try:
        with _quiet_sdk():
            for batch in batches(spans):
                answers.clear()
                if exporter.export(batch) is not SpanExportResult.SUCCESS:
                    answer = f"answered HTTP {answers[-1]}" if answers else "could not be reached"
                    raise InputError(f"{_text(endpoint)}: the OTLP receiver {answer}; {sent} of "
                                     f"{len(spans)} spans were sent")
                sent += len(batch)
    finally:
        exporter.shutdown()
    return len(batches(spans))


# --------------------------------------------------------------------------- the command


def is_url(destination: str) -> bool:
    return "://" in destination and destination.split("://", 1)[0].isalpha()


def export_run(run_path: Path, destination: str) -> Exported:
    """`harness export RUN --to otel DEST`: a file of OTLP/JSON lines, or an OTLP/HTTP receiver."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        raise InputError("OTEL_SDK_DISABLED is true: OpenTelemetry's SDK makes no span; unset it to export")
    if is_url(destination) and urlsplit(destination).scheme not in ("http", "https"):
        raise InputError(f"{destination}: an OTLP receiver is reached over http:// or https:// (OTLP/HTTP)")
    run = load_run(run_path)
    spans, exported = run_spans(run)
    sent = post(spans, destination) if is_url(destination) else write_file(spans, Path(destination))
    shown = traces_url(destination) if is_url(destination) else destination
    return Exported(spans=exported.spans, cases=exported.cases, calls=exported.calls,
                    evaluations=exported.evaluations, requests=sent, destination=_text(shown))


__all__ = ["EVALUATION_EVENT", "Exported", "SeededIds", "evaluations", "export_run", "otlp_json", "post",
           "run_spans", "traces_url", "write_file"]
