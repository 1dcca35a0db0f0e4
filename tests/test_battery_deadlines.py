"""Battery (issue 28, items 8 and 9): endpoints that trickle, stall or never finish, and the Batch
API poller, each variant against a real socket on 127.0.0.1 or a scripted batch.

Surfaces and what "held" means for each variant:
- exchange: one call against a server that trickles or stalls ends with our own deadline error,
  which names `timeout_s` and how to get a slow model's answer in time, before a hang guard (a
  guard, never a speed check: 20 times the 0.5 s deadline).
- announce: every retry writes a line naming the call, the attempt and why; a timeout's line names
  `model.max_tokens`, `timeout_s` and the concurrency.
- queue: waiting for a concurrency slot is not counted against a call's deadline; a timeout while
  other calls were in flight shrinks the shared limit; a call that timed out alone is not sent
  again unchanged.
- batch: the poller ends on an unknown status and on a flapping one within a few checks, never
  waits less than its minimum or more than its maximum between checks, and gives up at its overall
  deadline (a fake clock: no real waiting).
- tune: `harness tune` takes the model's answer limit and the call deadline.

Counts, held/broken, on main before the fix (950810c) and after it:

    surface    variants  before   after
    exchange         22    5/17    22/0   (13 of the 17 hung until the guard, 4 ended without a hint)
    announce         10    0/10    10/0
    queue             4     1/3     4/0
    batch            30   10/20    30/0
    tune              8     0/8     8/0
    total            74   16/58    74/0
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.cli import main
from harness.errors import HarnessError, ModelCallError
from harness.run import batch as batch_module
from harness.llm.client import EndpointSettings, ModelClient

from .conftest import SECRET
from .support.fake_server import FakeOpenAIServer, Faults, RawReply, Script
from .support.trickle_server import (
    Stream, TrickleServer, answer, completion_body, delayed, endless_chunks, head, reset_mid_body,
    silent, slow_body, slow_headers,
)

pytestmark = pytest.mark.slow

DEADLINE = 0.5
GUARD = 20 * DEADLINE
MESSAGES = [{"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def client_for(base_url: str, **settings: Any) -> ModelClient:
    values = {"timeout_s": DEADLINE, "max_retries": 0, **settings}
    return ModelClient(EndpointSettings(model="m", base_url=base_url, **values), replay=False, backoff_base_s=0.01)


class Guarded(Exception):
    """The hang guard fired: the call did not end by itself."""


def call(client: ModelClient, n: int = 1) -> list[Any]:
    """n concurrent calls; each one's result or exception. Guarded: a hang raises Guarded."""
    async def go() -> list[Any]:
        try:
            return await asyncio.wait_for(
                asyncio.gather(*(client.chat([{"role": "user", "content": f"q{i}"}]) for i in range(n)),
                               return_exceptions=True), GUARD)
        except TimeoutError:
            raise Guarded() from None
        finally:
            await client.close()

    return asyncio.run(go())


def names_the_deadline(message: str) -> bool:
    return "timeout_s" in message and "max_tokens" in message


# --------------------------------------------------------------------------- exchange


def _trickled_status(stream: Stream, _: dict[str, Any]) -> None:
    stream.trickle(b"HTTP/1.1 200 OK\r\n", every=0.1)
    while True:
        stream.pause(0.1)


def _informational_storm(stream: Stream, _: dict[str, Any]) -> None:
    while True:
        stream.send(b"HTTP/1.1 102 Processing\r\n\r\n")
        stream.pause(0.05)


def _chunk_size_trickle(stream: Stream, _: dict[str, Any]) -> None:
    stream.send(head(200, chunked=True))
    while True:
        stream.trickle(b"1", every=0.05)


def _half_body_then_stall(stream: Stream, _: dict[str, Any]) -> None:
    body = completion_body("stalled")
    stream.send(head(200, len(body)) + body[: len(body) // 2])
    while True:
        stream.pause(0.05)


def _gzip_trickle(stream: Stream, _: dict[str, Any]) -> None:
    import gzip
    import random

    noise = "".join(random.Random(1).choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(200_000))
    body = gzip.compress(completion_body(noise))
    stream.send(head(200, len(body), extra="Content-Encoding: gzip\r\n"))
    stream.trickle(body, every=0.05, step=64)


def _error_trickle(stream: Stream, _: dict[str, Any]) -> None:
    body = b'{"error": {"message": "' + b"x" * 100_000 + b'"}}'
    stream.send(head(500, len(body)))
    stream.trickle(body, every=0.05, step=16)


def _header_value_forever(stream: Stream, _: dict[str, Any]) -> None:
    stream.send(b"HTTP/1.1 200 OK\r\nX-Long: ")
    while True:
        stream.trickle(b"a", every=0.05)


EXCHANGE = {
    "silent": silent,
    "status-line-trickled-then-stall": _trickled_status,
    "headers-a-byte-at-a-time-forever": slow_headers(0.05),
    "one-header-value-forever": _header_value_forever,
    "informational-102-storm": _informational_storm,
    "body-1-byte-per-50ms": slow_body(0.05, 1),
    "body-64-bytes-per-50ms": slow_body(0.05, 64),
    "body-1-kb-per-100ms": slow_body(0.1, 1024),
    "body-4-kb-per-200ms": slow_body(0.2, 4096),
    "body-1-byte-per-400ms": slow_body(0.4, 1),
    "chunked-never-ending": endless_chunks(0.05),
    "chunked-never-ending-slow": endless_chunks(0.3),
    "chunk-size-line-forever": _chunk_size_trickle,
    "half-body-then-stall": _half_body_then_stall,
    "gzip-body-trickled": _gzip_trickle,
    "error-body-trickled": _error_trickle,
    "late-answer": delayed(3.0),
}


@pytest.mark.parametrize("play", list(EXCHANGE.values()), ids=list(EXCHANGE))
def test_exchange_ends_at_the_deadline_naming_it(play) -> None:
    with TrickleServer(play) as srv:
        [outcome] = call(client_for(srv.base_url))
    assert isinstance(outcome, ModelCallError), outcome
    assert names_the_deadline(outcome.message), outcome.message


@pytest.mark.parametrize("retries", [0, 2])
def test_exchange_a_reset_mid_body_is_a_failed_call(retries: int) -> None:
    with TrickleServer(reset_mid_body) as srv:
        [outcome] = call(client_for(srv.base_url, max_retries=retries))
    assert isinstance(outcome, ModelCallError), outcome
    assert srv.requests == retries + 1


def test_exchange_a_huge_retry_after_is_refused_at_once() -> None:
    reply = RawReply(429, {"Content-Type": "application/json", "Retry-After": "1e12"}, b'{"error": {}}')
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        [outcome] = call(client_for(srv.base_url, max_retries=3))
        assert srv.calls == 1
    assert isinstance(outcome, ModelCallError) and "Retry-After" in outcome.message


def test_exchange_a_prompt_answer_is_unaffected() -> None:
    with TrickleServer(answer("fine")) as srv:
        [outcome] = call(client_for(srv.base_url))
    assert outcome.text == "fine"


def test_exchange_a_slow_but_timely_answer_is_read() -> None:
    with TrickleServer(slow_body(0.02, 4096, size=20_000)) as srv:
        [outcome] = call(client_for(srv.base_url, timeout_s=10.0))
    assert not isinstance(outcome, BaseException), outcome


# --------------------------------------------------------------------------- announce


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "harness.llm" and r.levelno >= logging.WARNING]


ANNOUNCED = {
    "500-once": Faults(first_500=1),
    "429-once-short-retry-after": Faults(first_429=1, retry_after_s=0.01),
    "dropped-once": Faults(first_drop=1),
    "500-twice": Faults(first_500=2),
    "429-then-500": Faults(first_429=1, first_500=1, retry_after_s=0.01),
}


@pytest.mark.parametrize("faults", list(ANNOUNCED.values()), ids=list(ANNOUNCED))
def test_announce_every_retry(faults: Faults, caplog: pytest.LogCaptureFixture) -> None:
    with FakeOpenAIServer(Script(fallback="ok"), faults) as srv:
        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            [outcome] = call(client_for(srv.base_url, max_retries=3, timeout_s=10.0))
        retries = srv.calls - 1
    assert outcome.text == "ok"
    lines = [line for line in warnings_of(caplog) if "attempt" in line]
    assert len(lines) == retries, warnings_of(caplog)


def _not_json_once() -> Any:
    state = {"n": 0}

    def raw(_: dict[str, Any]) -> RawReply | None:
        state["n"] += 1
        return RawReply(200, {"Content-Type": "application/json"}, b"not json") if state["n"] == 1 else None
    return raw


def test_announce_a_broken_answer_retried(caplog: pytest.LogCaptureFixture) -> None:
    with FakeOpenAIServer(Script(fallback="ok"), raw=_not_json_once()) as srv:
        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            [outcome] = call(client_for(srv.base_url, max_retries=3, timeout_s=10.0))
    assert outcome.text == "ok"
    assert any("attempt 2" in line for line in warnings_of(caplog)), warnings_of(caplog)


@pytest.mark.parametrize("first", [silent, slow_body(0.05, 1), endless_chunks(0.05)], ids=["silent", "trickle", "chunks"])
def test_announce_a_timeout_with_its_hint(first, caplog: pytest.LogCaptureFixture) -> None:
    with TrickleServer([first, answer("late")]) as srv:
        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            outcomes = call(client_for(srv.base_url, max_retries=2, concurrency=2), n=2)
    lines = [line for line in warnings_of(caplog) if names_the_deadline(line)]
    assert lines and "concurrency" in lines[0], warnings_of(caplog)
    assert all(not isinstance(o, BaseException) for o in outcomes), outcomes


def test_announce_the_final_failure_with_its_hint() -> None:
    with TrickleServer(silent) as srv:
        [outcome] = call(client_for(srv.base_url, max_retries=3))
    assert isinstance(outcome, ModelCallError) and names_the_deadline(outcome.message)
    assert "concurrency" in outcome.message


# --------------------------------------------------------------------------- queue


def one_at_a_time(seconds: float) -> Any:
    """A server with one slot that queues the other requests, as llama.cpp with `-np 1` does; a
    request whose client left gives its place up."""
    slot = threading.Lock()
    body = completion_body("served")

    def play(stream: Stream, _: dict[str, Any]) -> None:
        while not slot.acquire(timeout=0.01):
            stream.pause(0.0)
        try:
            for _ in range(10):
                stream.pause(seconds / 10)
            stream.send(head(200, len(body)) + body)
        finally:
            slot.release()
    return play


def test_queue_waiting_for_a_slot_is_not_counted() -> None:
    with TrickleServer(delayed(0.3)) as srv:
        outcomes = call(client_for(srv.base_url, concurrency=1), n=3)
    assert all(not isinstance(o, BaseException) for o in outcomes), outcomes


def test_queue_timeouts_shrink_the_shared_limit() -> None:
    with TrickleServer(one_at_a_time(0.3)) as srv:
        client = client_for(srv.base_url, concurrency=4, max_retries=4)
        outcomes = call(client, n=4)
    assert client.limiter.lowest_limit < 4
    assert all(not isinstance(o, BaseException) for o in outcomes), outcomes


@pytest.mark.parametrize("temperature", [0.0, None])
def test_queue_a_call_that_timed_out_alone_is_not_repeated_unchanged(temperature: float | None) -> None:
    with TrickleServer(delayed(5.0)) as srv:
        [outcome] = call(client_for(srv.base_url, concurrency=1, max_retries=5, temperature=temperature))
        sent = srv.requests
    assert isinstance(outcome, ModelCallError)
    assert sent == 1


# --------------------------------------------------------------------------- batch


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.wait(seconds)

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        if len(self.waits) > 2000:
            raise Guarded()
        if isinstance(seconds, (int, float)) and not math.isnan(seconds):
            self.now += seconds


def fake_sdk(statuses: Any) -> Any:
    """An SDK whose batches.retrieve answers the next status of `statuses` (an iterator)."""
    seen: list[Any] = []

    def retrieve(batch_id: str) -> Any:
        status = next(statuses)
        seen.append(status)
        return SimpleNamespace(id=batch_id, status=status, request_counts=SimpleNamespace(total=2, completed=0, failed=0),
                               output_file_id=None, error_file_id=None)

    return SimpleNamespace(batches=SimpleNamespace(retrieve=retrieve), seen=seen)


def forever(*statuses: Any) -> Any:
    while True:
        yield from statuses


def then(first: list[Any], rest: Any) -> Any:
    yield from first
    yield from rest


def poll(statuses: Any, monkeypatch: pytest.MonkeyPatch, first_wait: float = 10.0) -> tuple[Any, Any, FakeClock]:
    clock = FakeClock()
    monkeypatch.setattr(batch_module, "time", clock)
    monkeypatch.setattr(batch_module, "_wait", clock.wait)
    sdk = fake_sdk(statuses)
    try:
        outcome: Any = batch_module._poll(sdk, "batch_1", "suite phase 1", first_wait)
    except (HarnessError, Guarded) as exc:
        outcome = exc
    return outcome, sdk, clock


UNKNOWN = {"weird": "weird", "empty": "", "none": None, "number": 7, "upper-case": "COMPLETED",
           "after-progress": None}


@pytest.mark.parametrize("status", list(UNKNOWN.values()), ids=list(UNKNOWN))
def test_batch_an_unknown_status_is_an_error_line(status: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    statuses = then(["validating", "in_progress"], forever(status)) if status is None else forever(status)
    outcome, sdk, _ = poll(statuses, monkeypatch)
    assert isinstance(outcome, ModelCallError), outcome
    assert len(sdk.seen) <= 3
    assert "status" in outcome.message


FLAPPING = {
    "in_progress-validating": ("in_progress", "validating"),
    "finalizing-in_progress": ("finalizing", "in_progress"),
    "validating-in_progress-validating": ("validating", "in_progress", "validating", "in_progress"),
    "cancelling-in_progress": ("cancelling", "in_progress"),
}


@pytest.mark.parametrize("cycle", list(FLAPPING.values()), ids=list(FLAPPING))
def test_batch_a_flapping_status_ends(cycle: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    outcome, sdk, _ = poll(forever(*cycle), monkeypatch)
    assert isinstance(outcome, ModelCallError), outcome
    assert len(sdk.seen) <= 20


STUCK = ["validating", "in_progress", "finalizing", "cancelling"]


@pytest.mark.parametrize("status", STUCK)
def test_batch_a_batch_that_never_finishes_is_given_up(status: str, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome, sdk, clock = poll(forever(status), monkeypatch)
    assert isinstance(outcome, ModelCallError), outcome
    assert "again" in outcome.message  # how to resume
    assert clock.now - 1000.0 <= batch_module.MAX_BATCH_S + batch_module.MAX_POLL_S


FIRST_WAITS = {"zero": 0.0, "tiny": 1e-9, "negative": -5.0, "nan": math.nan, "inf": math.inf, "huge": 1e308}


@pytest.mark.parametrize("first", list(FIRST_WAITS.values()), ids=list(FIRST_WAITS))
def test_batch_waits_stay_between_the_minimum_and_the_maximum(first: float, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome, _, clock = poll(then(["validating"] * 30, forever("completed")), monkeypatch, first_wait=first)
    assert not isinstance(outcome, BaseException), outcome
    assert clock.waits and all(isinstance(w, float) and 1.0 <= w <= batch_module.MAX_POLL_S for w in clock.waits), clock.waits


@pytest.mark.parametrize("status", ["completed", "failed", "expired", "cancelled"])
def test_batch_a_finished_status_returns(status: str, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome, sdk, _ = poll(then(["validating", "in_progress"], forever(status)), monkeypatch)
    assert getattr(outcome, "status", None) == status


@pytest.mark.parametrize("value", ["0", "0.001", "nan", "inf", "1e400", "-1"])
def test_batch_poll_option_refuses_what_is_no_interval(value: str, project: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(batch_module, "_wait", lambda seconds: None)
    with FakeOpenAIServer(Script(fallback="<|COMPLETE|>")) as srv:
        code = main(["record", str(project), "--batch", "--batch-poll", value, "--base-url", srv.base_url])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--batch-poll" in err and len(err.strip().splitlines()) == 1
    assert "No such option" not in err


# --------------------------------------------------------------------------- tune


def tune(project: Path, srv_url: str, *options: str) -> int:
    return main(["tune", "--suite", str(project), "--out", str(project.parent.parent / "prompts" / "mine.yaml"),
                 "--domain", "towns", "--language", "English", "--persona", "You are a clerk.",
                 "--entity-types", "person,geo", "--record-mode", "rewrite", "--base-url", srv_url, *options])


def test_tune_takes_the_answer_limit(project: Path) -> None:
    with FakeOpenAIServer(Script(fallback="<|COMPLETE|>")) as srv:
        tune(project, srv.base_url, "--model-max-tokens", "256")
        sent = [r["body"] for r in srv.requests if r["body"] is not None]
    assert sent and all(body.get("max_tokens") == 256 for body in sent), sent[:1]


def test_tune_takes_the_deadline(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with TrickleServer(silent) as srv:
        result: list[int] = []
        thread = threading.Thread(target=lambda: result.append(tune(project, srv.base_url, "--timeout", "0.5")),
                                  daemon=True)
        thread.start()
        thread.join(GUARD * 3)
    assert result == [4], capsys.readouterr().err


@pytest.mark.parametrize("option, value", [("--model-max-tokens", "0"), ("--model-max-tokens", "-3"),
                                           ("--timeout", "0"), ("--timeout", "nan"), ("--timeout", "inf"),
                                           ("--timeout", "-1")])
def test_tune_refuses_impossible_settings(option: str, value: str, project: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert tune(project, "http://127.0.0.1:9/v1", option, value) == 2
    err = capsys.readouterr().err
    assert option in err and "No such option" not in err and len(err.strip().splitlines()) == 1

