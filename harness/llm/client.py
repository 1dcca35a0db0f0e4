"""The model client: one provider's endpoint (providers/), with retries and a shared limit.

Retries (429, 5xx, timeouts, dropped connections, answers that are not chat completions)
and the adaptive concurrency limit live here rather than in the SDK, so throttling shrinks
the whole run's concurrency instead of every call backing off on its own. A cassette miss
is never retried: it ends the case.

Each call's payload is built and hashed once. Inside a case that replays (cassette_store.replaying)
the recorded answer is read from the cassette store and the SDK is never loaded; otherwise the
provider's SDK client sends it (and vcrpy, when recording, stores it). Everything the endpoint
sends is untrusted: bodies are size-capped before decoding (transport.py), an answer the provider
cannot read is a failed call, and a Retry-After longer than `max_wait_s` ends the call at once
instead of hanging the run.

Each attempt is one exchange under one deadline, `timeout_s` from the moment it has a concurrency
slot (deadline.py): a server that trickles its answer is cut there; waiting for a slot is not
counted. A timeout while other calls shared the endpoint shrinks the shared limit (the server was
queueing what it could not serve) and is retried under it; a call that timed out alone is not sent
again, since the same request to the same idle server would take as long again. Every retry is
announced on stderr, naming the call, why, and the attempt; a timeout's line and failure name the
settings that help a slow model (`SettingNames`: the suite's keys, or `harness tune`'s options).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import datetime as dt
import email.utils
import math
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import CassetteMissingError, ModelCallError, find_cause
from ..known_keys import learn_key_envs
from ..model import Usage
from ..scrubbed_output import scrubbed_logger
from ..text import scrub_surrogates
from .cassette_store import CaseReplay, CallNote, begin_call, current_replay
from .limiter import AdaptiveLimiter
from .replicas import Replica, learn_replicas, pick
from .providers.base import REPLAY_KEY, EndpointSettings, Message
from .providers.registry import get_provider
from ..redaction import Redactor, configured_secrets
from .request_digest import request_hash

MAX_BODY_BYTES = 16 << 20  # a chat completion of 100k tokens is under 1 MB; a bomb is refused here
THROTTLE_BUDGET = 4  # a call may be refused for capacity (429) this many times its retry budget

log = scrubbed_logger("harness.llm")  # an endpoint's error text in a warning may hold the key

_CALL_LABEL: contextvars.ContextVar[str | None] = contextvars.ContextVar("harness_call_label", default=None)


@contextlib.contextmanager
def call_label(label: str) -> Iterator[None]:
    """Name the calls made inside (e.g. "case 'x' of variant 'y'") in waits and failures."""
    token = _CALL_LABEL.set(label)
    try:
        yield
    finally:
        _CALL_LABEL.reset(token)


@dataclass(frozen=True)
class SettingNames:
    """How the user sets what a timeout's hint names: a suite's `model:` keys by default."""

    max_tokens: str = "model.max_tokens"
    timeout_s: str = "model.timeout_s"
    concurrency: str = "model.concurrency"


@dataclass
class ChatResult:
    text: str
    usage: Usage
    # the endpoint's time for the call: measured as it was sent, or read from the cassette that
    # answers it (`latency_from`); None where nothing was measured (a cassette recorded before
    # latencies were kept, answers from a batch or a cache): n/a, never 0
    latency_s: float | None
    attempts: int = 1
    usage_note: str | None = None  # why the usage is estimated, when it is
    # why the model stopped ("stop", "length": cut off at max_tokens, ...); None when not said
    finish_reason: str | None = None
    latency_from: Literal["measured", "recorded"] | None = None  # None with no latency
    batch: bool = False  # answered by the Batch API when recorded (`harness record --batch`)

    def __post_init__(self) -> None:
        # Model text enters the harness here. A lone surrogate (a JSON escape such as "\ud800")
        # could not be sent back in a gleaning round, stored in a cassette or written to results.
        self.text = scrub_surrogates(self.text)


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date).

    inf for a value that means "never" (inf, 1e999); None when absent or unreadable."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        if not value:
            continue
        value = value.strip()
        seconds: float | None
        try:
            seconds = float(value) * scale
        except ValueError:
            seconds = _seconds_until(value) if name == "retry-after" else None
        if seconds is None or math.isnan(seconds) or seconds < 0:
            return None
        return seconds
    return None


def _seconds_until(date: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, (when - dt.datetime.now(dt.timezone.utc)).total_seconds())


def no_recording() -> CassetteMissingError:
    """The one error for a request that no cassette answers (the store's or vcrpy's): never retried."""
    return CassetteMissingError("no recorded answer for this request")


def is_cassette_miss(exc: BaseException) -> bool:
    """True when an exception (or its cause chain) is vcrpy refusing an unrecorded request."""
    from vcr.errors import CannotOverwriteExistingCassetteException

    return find_cause(exc, CannotOverwriteExistingCassetteException) is not None


class ModelClient:
    """Sends chat completions with retries under an adaptive concurrency limit."""

    def __init__(self, settings: EndpointSettings, *, replay: bool, backoff_base_s: float = 0.5,
                 setting_names: SettingNames | None = None) -> None:
        self.settings = settings
        self.setting_names = setting_names or SettingNames()
        self.replay = replay
        self.backoff_base_s = backoff_base_s
        self.provider = get_provider(settings.provider)
        # one endpoint, or the replicas of `model.base_urls`, each with its own adaptive limit
        # (replicas.py); `limiter` is the first's (the only one's)
        urls: tuple[str | None, ...] = settings.base_urls if len(settings.base_urls) > 1 else (None,)
        self.replicas = [Replica(url, AdaptiveLimiter(settings.concurrency)) for url in urls]
        self.limiter = self.replicas[0].limiter
        if len(self.replicas) > 1:
            learn_replicas(settings.base_urls)
        self.calls = 0
        self.retries = 0
        self.throttled = 0  # 429 answers, retried under the limiter
        self._noted: set[str] = set()
        self._api_key = self.provider.api_key(settings, replay=replay)  # checked now: a missing key fails early
        # an endpoint may echo the key in its answer: it must not reach results or reports
        # (every variable this provider may take its key from, and the key it will send); the
        # process learns the variables too, so every writer and the screen redact the key
        learn_key_envs([settings.api_key_env, *self.provider.key_envs])
        secrets = configured_secrets([settings.api_key_env, *self.provider.key_envs])
        self.redactor = Redactor([*secrets, *([] if self._api_key == REPLAY_KEY else [self._api_key])])

    @property
    def capacity(self) -> int:
        """The most calls it may have in flight: every replica's `concurrency` together."""
        return sum(r.limiter.maximum for r in self.replicas)

    def _sdk_client(self, replica: Replica | None = None) -> Any:
        replica = replica or self.replicas[0]
        if replica.sdk is None:
            import openai

            from .transport import BoundedTransport, proxy_mounts

            deadline_s, limits = self.settings.timeout_s, openai.DEFAULT_CONNECTION_LIMITS
            http_client = openai.DefaultAsyncHttpxClient(
                transport=BoundedTransport(max_body_bytes=MAX_BODY_BYTES, deadline_s=deadline_s, limits=limits),
                mounts=proxy_mounts(max_body_bytes=MAX_BODY_BYTES, deadline_s=deadline_s, limits=limits))
            settings = self.settings if replica.base_url is None else dataclasses.replace(
                self.settings, base_url=replica.base_url, base_urls=())
            replica.sdk = self.provider.make_client(settings, self._api_key, http_client)
        return replica.sdk

    def payload(self, messages: list[Message], **overrides: Any) -> dict[str, Any]:
        """The request body a call with these messages sends."""
        return self.provider.build_payload(self.settings, messages, **overrides)

    def _label(self) -> str:
        return _CALL_LABEL.get() or f"call to {self.settings.model}"

    def _backoff(self, failures: int) -> float:
        return min(30.0, self.backoff_base_s * 2 ** (failures - 1)) * (0.5 + random.random() / 2)

    def _bounded_wait(self, wait: float | None, failures: int, why: str, attempt: int, *, last: int | None,
                      hint: str = "") -> float:
        """The wait before the next attempt, announced; a Retry-After beyond `max_wait_s` ends the call.
        `last` is the last attempt the call may make (None: bounded by a budget of its own)."""
        limit = self.settings.max_wait_s
        if wait is not None and wait > limit:
            shown = "forever" if math.isinf(wait) else f"{wait:g} s"
            raise ModelCallError(self.redactor.redact(
                f"{why}: the endpoint asks to wait {shown} (Retry-After) before a retry, more than the "
                f"{limit:g} s the harness waits; gave up after {attempt} attempt{'s' if attempt > 1 else ''}"
            ))
        if wait is None:
            wait = self._backoff(failures)
        of = f" of {last}" if last is not None else ""
        log.warning("harness: %s", self.redactor.redact(
            f"{self._label()}: {why}; attempt {attempt + 1}{of} in {wait:.2g} s{hint}"))
        return wait

    def _timeout_hint(self, in_flight: int) -> str:
        """What a timed-out call says: the deadline, and the settings that get a slow model's answer in time."""
        s, names = self.settings, self.setting_names
        cap = "not set: the model writes until it stops" if s.max_tokens is None else f"now {s.max_tokens}"
        return (f"no complete answer within {names.timeout_s.rsplit('.', 1)[-1]}={s.timeout_s:g} s "
                f"({in_flight} call{'s' if in_flight != 1 else ''} in flight); for a slow model, lower "
                f"{names.max_tokens} ({cap}), raise {names.timeout_s} or lower {names.concurrency} (now {s.concurrency})")

    def _note_usage(self, note: str) -> None:
        """Say once per client and reason why tokens are estimated (not once per call)."""
        kind = note.split(" (", 1)[0]
        if kind not in self._noted:
            self._noted.add(kind)
            log.warning("harness: %s: %s", self._label(), note)

    async def chat(self, messages: list[Message], *, payload: dict[str, Any] | None = None,
                   digest: str | None = None, **overrides: Any) -> ChatResult:
        """One call. `payload`, when the caller already built it (run.requests.case_request), is sent as
        is; `digest`, when given, is its `request_hash`, so replay does not hash it again."""
        body = payload if payload is not None else self.payload(messages, **overrides)
        replay = current_replay()
        if replay is not None:
            return self._replayed(replay, body, messages, digest if payload is not None else None)
        return await self._sent(body, messages)

    def _replayed(self, replay: CaseReplay, body: dict[str, Any], messages: list[Message],
                  digest: str | None = None) -> ChatResult:
        """The recorded answer, read as a sent one would be. A recorded body that is not an answer
        was retried when it was recorded, so the retry's recording answers next, as it did then."""
        where = (self.provider.method, self.provider.request_path(self.settings),
                 digest if digest is not None else request_hash(body))
        attempt = 0
        while True:
            attempt += 1
            recording = replay.play(*where)
            if recording is None:
                raise no_recording()
            try:
                answer = self.provider.read_answer(recording.answer, messages, self.settings.model)
            except ModelCallError as exc:
                if attempt > self.settings.max_retries:
                    raise ModelCallError(self.redactor.redact(f"model call failed after {attempt} attempts: {exc.message}")) from None
                self.retries += 1
                continue
            # the latency the cassette kept when it was recorded, not the time to read it back
            return self._result(answer, attempt, recording.latency_s, "recorded", batch=recording.batch)

    def _result(self, answer: Any, attempt: int, latency_s: float | None,
                latency_from: Literal["measured", "recorded"], *, batch: bool = False) -> ChatResult:
        self.calls += 1
        if answer.usage_note:
            self._note_usage(answer.usage_note)
        return ChatResult(text=self.redactor.redact(answer.text), usage=answer.usage,
                          latency_s=None if latency_s is None else round(latency_s, 6), attempts=attempt,
                          usage_note=answer.usage_note, finish_reason=answer.finish_reason,
                          latency_from=None if latency_s is None else latency_from, batch=batch)

    def _sent_result(self, answer: Any, attempt: int, note: CallNote) -> ChatResult:
        """A sent call's result: its measured latency, or the recorded one when vcrpy played a
        recording instead of sending it (record mode `once` replays what exists)."""
        if note.played:
            return self._result(answer, attempt, note.recorded_latency_s, "recorded", batch=note.batch)
        measured = note.recorded_latency_s if note.recorded_latency_s is not None else time.perf_counter() - note.started
        return self._result(answer, attempt, measured, "measured")

    async def _sent(self, body: dict[str, Any], messages: list[Message]) -> ChatResult:
        """Errors (5xx, dropped connections, broken answers) are retried up to `max_retries` times
        with backoff; 429s shrink the shared limit and pause every call for their Retry-After, and
        are retried up to THROTTLE_BUDGET times as often; timeouts are retried only while other
        calls shared the endpoint, under a limit shrunk by one (module docstring)."""
        import httpx2
        import openai

        s = self.settings
        attempt = failures = throttles = 0
        last = s.max_retries + 1
        while True:
            attempt += 1
            replica = pick(self.replicas)  # each attempt: the replica with the most room
            limiter = replica.limiter
            client = self._sdk_client(replica)
            await limiter.acquire()
            note = begin_call(time.perf_counter())  # the recorder keeps the latency from here
            # the calls in flight as it starts (itself included), and how many had started before it
            sharing, before = limiter.in_flight, limiter.started
            try:
                # The SDK's documented low-level post, returning the raw response: it sends our
                # body as built (no per-call TypedDict transform) and we read the JSON ourselves
                # (no model construction), which halves the cost of a replayed call. It also
                # tolerates the looser answers of vLLM or Ollama.
                response = await client.post(self.provider.post_path, body=body, cast_to=httpx2.Response)
            except Exception as exc:
                if is_cassette_miss(exc):  # vcrpy refused a request it has no recording for
                    await limiter.release(failed=True)
                    raise no_recording() from None
                if isinstance(exc, openai.RateLimitError):
                    throttles += 1
                    self.throttled += 1
                    retry_after = parse_retry_after(exc.response.headers if exc.response is not None else None)
                    if throttles > THROTTLE_BUDGET * s.max_retries:
                        await limiter.release(throttled=True)
                        raise ModelCallError(f"model call still refused (HTTP 429) after {attempt} attempts") from None
                    try:
                        wait = self._bounded_wait(
                            retry_after, throttles, f"HTTP 429 ({throttles} so far)", attempt, last=None,
                            hint=(f"; calls in flight now at most {max(1, limiter.limit - 1)} "
                                  f"({self.setting_names.concurrency} {s.concurrency})"))
                    finally:
                        await limiter.release(throttled=True, retry_after_s=None)
                    await limiter.pause(wait)  # shared: no call starts before it has passed
                    self.retries += 1
                    continue
                hint = ""
                if isinstance(exc, openai.APIStatusError):
                    await limiter.release(failed=True)
                    if exc.status_code < 500 and exc.status_code not in (408, 409):
                        raise ModelCallError(self.redactor.redact(f"model call failed: HTTP {exc.status_code}: {exc.message}")) from None
                    error, retry_after = f"HTTP {exc.status_code}: {exc.message}", parse_retry_after(exc.response.headers)
                elif isinstance(exc, openai.APITimeoutError):
                    # itself, the calls in flight as it started, and those that started during it
                    in_flight = sharing + limiter.started - before
                    error, retry_after = self._timeout_hint(in_flight), None
                    if in_flight <= 1:  # alone: the same request would take as long again
                        await limiter.release(failed=True)
                        raise ModelCallError(self.redactor.redact(
                            f"model call failed after {attempt} attempt{'s' if attempt > 1 else ''}: {error}; not sent "
                            "again, since it ran alone and the same request would take as long again")) from None
                    await limiter.release(throttled=True)  # the server queued what it could not serve
                    hint = f"; calls in flight now at most {limiter.limit}"
                elif isinstance(exc, openai.APIConnectionError):
                    await limiter.release(failed=True)
                    from .transport import is_body_error

                    body_error = is_body_error(exc)
                    error = str(body_error) if body_error else f"{type(exc).__name__}: {exc}"
                    retry_after = None
                else:
                    raise
            else:
                try:
                    answer = self.provider.read_answer(response.content, messages, s.model)
                except ModelCallError as exc:
                    await limiter.release(failed=True)
                    error, retry_after, hint = exc.message, None, ""
                else:
                    await limiter.release()
                    return self._sent_result(answer, attempt, note)
            failures += 1
            if failures > s.max_retries:
                raise ModelCallError(self.redactor.redact(f"model call failed after {attempt} attempts: {error}"))
            wait = self._bounded_wait(retry_after, failures, error, attempt, last=last + throttles, hint=hint)
            self.retries += 1
            await asyncio.sleep(wait)

    async def close(self) -> None:
        for replica in self.replicas:
            if replica.sdk is not None:
                await replica.sdk.close()
                replica.sdk = None
