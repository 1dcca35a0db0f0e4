"""The model client: the openai SDK against any OpenAI-compatible endpoint.

Retries (429, 5xx, timeouts, dropped connections, answers that are not chat completions)
and the adaptive concurrency limit live here rather than in the SDK, so throttling shrinks
the whole run's concurrency instead of every call backing off on its own. A cassette miss
is never retried: it ends the case.

Everything the endpoint sends is untrusted: bodies are size-capped before decoding
(transport.py), JSON that is not a chat completion is a failed call, usage that is
missing or could not be true is replaced by an offline count and marked `estimated`, and
a Retry-After longer than `max_wait_s` ends the call at once instead of hanging the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import datetime as dt
import email.utils
import json
import logging
import math
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import openai
from vcr.errors import CannotOverwriteExistingCassetteException

from ..errors import CassetteMissingError, InputError, ModelCallError
from ..model import Usage
from ..text import scrub_surrogates
from .cassettes import is_cassette_miss
from .limiter import AdaptiveLimiter
from .tokens import count_message_tokens, count_tokens
from .transport import BoundedTransport, is_body_error, proxy_mounts
from .redaction import Redactor, configured_secrets

DEFAULT_BASE_URL = "https://api.openai.com/v1"
REPLAY_KEY = "replay-without-key"  # sent only when replaying; scrubbed like any key
MAX_BODY_BYTES = 16 << 20  # a chat completion of 100k tokens is under 1 MB; a bomb is refused here
MAX_PLAUSIBLE_TOKENS = 100_000_000  # per call: far above any context window, far below overflow
NOTICE_WAIT_S = 5.0  # waits this long or longer are announced on stderr
THROTTLE_BUDGET = 4  # a call may be refused for capacity (429) this many times its retry budget

log = logging.getLogger("harness.llm")

_CALL_LABEL: contextvars.ContextVar[str | None] = contextvars.ContextVar("harness_call_label", default=None)


@contextlib.contextmanager
def call_label(label: str) -> Iterator[None]:
    """Name the calls made inside (e.g. "case 'x' of variant 'y'") in waits and failures."""
    token = _CALL_LABEL.set(label)
    try:
        yield
    finally:
        _CALL_LABEL.reset(token)


@dataclass
class ChatResult:
    text: str
    usage: Usage
    latency_s: float
    attempts: int = 1
    usage_note: str | None = None  # why the usage is estimated, when it is

    def __post_init__(self) -> None:
        # Model text enters the harness here. A lone surrogate (a JSON escape such as "\ud800")
        # could not be sent back in a gleaning round, stored in a cassette or written to results.
        self.text = scrub_surrogates(self.text)


@dataclass
class EndpointSettings:
    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 120.0
    concurrency: int = 8
    max_retries: int = 6
    temperature: float | None = 0.0
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    max_wait_s: float = 120.0  # a longer Retry-After gives the call up (exit 4) instead of waiting


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date).

    inf for a value that means "never" (inf, 1e999); None when absent or unreadable."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        if not value:
            continue
        value = value.strip()
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


def _text_of(content: Any) -> str:
    """A message's content as text: a string, a list of text parts, or anything else as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, (str, dict)) for p in content):
        parts = [p if isinstance(p, str) else p.get("text") for p in content]
        if all(isinstance(p, str) for p in parts):
            return "".join(parts)  # type: ignore[arg-type]
    try:
        return json.dumps(content, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        return ""


def _parse_int(digits: str) -> int | float:
    """JSON integers; a number too long to be a count becomes inf (implausible) instead of
    tripping Python's int-string limit and losing the whole answer."""
    return int(digits) if len(digits) <= 30 else math.inf


def _plausible(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return isinstance(value, int) and 0 <= value <= MAX_PLAUSIBLE_TOKENS


def read_usage(raw: Any, text: str, messages: list[dict[str, str]], model: str) -> tuple[Usage, str | None]:
    """The call's usage as reported, or counted offline where the report is missing or
    implausible (then `estimated`, with the reason)."""
    fields = raw if isinstance(raw, dict) else {}
    prompt, completion = fields.get("prompt_tokens"), fields.get("completion_tokens")
    reasons: list[str] = []
    if raw is None:
        reasons.append("the endpoint reported no usage")
    elif not isinstance(raw, dict):
        reasons.append(f"usage is not an object ({type(raw).__name__})")
    else:
        for name in ("prompt_tokens", "completion_tokens"):
            if name not in fields:
                reasons.append(f"usage.{name} is missing")
            elif not _plausible(fields[name]):
                reasons.append(f"usage.{name} is implausible ({str(fields[name])[:40]})")
    if not _plausible(prompt):
        prompt = count_message_tokens(messages, model)
    if not _plausible(completion):
        completion = count_tokens(text, model)
    prompt, completion = int(prompt), int(completion)
    total = fields.get("total_tokens")
    total = int(total) if not reasons and _plausible(total) else prompt + completion
    note = "; ".join(reasons) + "; estimated with the offline tokenizer" if reasons else None
    return Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total, estimated=bool(reasons)), note


def read_completion(
    content: bytes, messages: list[dict[str, str]] | None = None, model: str = "gpt-4o-mini"
) -> tuple[str, Usage, str | None]:
    """The answer text, usage and usage note of a chat completion body.

    Raises ModelCallError (an endpoint error, retried like a server error) when the body is
    not JSON, is nested too deeply to read, or holds no choice with a message."""
    try:
        data = json.loads(content, parse_int=_parse_int)
    except RecursionError:
        raise ModelCallError("the endpoint's answer is nested too deeply to read") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ModelCallError(f"the endpoint's answer is not JSON: {str(exc)[:80]}") from None
    if not isinstance(data, dict):
        raise ModelCallError(f"the endpoint's answer is not a chat completion (a JSON {type(data).__name__})")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ModelCallError("the endpoint's answer has no choices (an endpoint error, not an empty answer)")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise ModelCallError("the endpoint's answer is not a chat completion (its first choice has no message)")
    text = _text_of(message.get("content"))
    usage, note = read_usage(data.get("usage"), text, messages or [], model)
    return text, usage, note


class ModelClient:
    """Sends chat completions with retries under an adaptive concurrency limit."""

    def __init__(self, settings: EndpointSettings, *, replay: bool, backoff_base_s: float = 0.5) -> None:
        self.settings = settings
        self.replay = replay
        self.backoff_base_s = backoff_base_s
        self.limiter = AdaptiveLimiter(settings.concurrency)
        self.calls = 0
        self.retries = 0
        self.throttled = 0  # 429 answers, retried under the limiter
        self._noted: set[str] = set()
        self._client = self._make_client()
        # an endpoint may echo the key in its answer: it must not reach results or reports
        self.redactor = Redactor(configured_secrets([settings.api_key_env]))

    def _make_client(self) -> openai.AsyncOpenAI:
        s = self.settings
        key = os.environ.get(s.api_key_env) or os.environ.get("AZURE_OPENAI_API_KEY")
        if not key:
            if not self.replay:
                raise InputError(
                    f"no API key: set {s.api_key_env} to record (replaying needs none)"
                )
            key = REPLAY_KEY
        bounded = {"max_body_bytes": MAX_BODY_BYTES, "limits": openai.DEFAULT_CONNECTION_LIMITS}
        http_client = openai.DefaultAsyncHttpxClient(transport=BoundedTransport(**bounded),
                                                     mounts=proxy_mounts(**bounded))
        common: dict[str, Any] = {"api_key": key, "timeout": s.timeout_s, "max_retries": 0, "http_client": http_client}
        azure_endpoint = os.environ.get("AZURE_OPENAI_ENDPOINT")
        if azure_endpoint and not s.base_url:
            return openai.AsyncAzureOpenAI(
                azure_endpoint=azure_endpoint,
                api_version=os.environ.get("OPENAI_API_VERSION", "2024-10-21"),
                **common,
            )
        base_url = s.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        return openai.AsyncOpenAI(base_url=base_url, **common)

    def payload(self, messages: list[dict[str, str]], **overrides: Any) -> dict[str, Any]:
        s = self.settings
        # text from outside (a suite's chunk, an earlier answer) must encode as UTF-8 to be sent
        messages = [
            {**m, "content": scrub_surrogates(m["content"])} if isinstance(m.get("content"), str) else m
            for m in messages
        ]
        body: dict[str, Any] = {"model": s.model, "messages": messages}
        for key in ("temperature", "top_p", "max_tokens", "seed"):
            value = overrides.get(key, getattr(s, key))
            if value is not None:
                body[key] = value
        for key, value in overrides.items():  # e.g. response_format for JSON mode
            if key not in body and value is not None:
                body[key] = value
        return body

    def _label(self) -> str:
        return _CALL_LABEL.get() or f"call to {self.settings.model}"

    def _backoff(self, failures: int) -> float:
        return min(30.0, self.backoff_base_s * 2 ** (failures - 1)) * (0.5 + random.random() / 2)

    def _bounded_wait(self, wait: float | None, failures: int, why: str, attempt: int) -> float:
        """The wait before the next attempt; a Retry-After beyond `max_wait_s` ends the call."""
        limit = self.settings.max_wait_s
        if wait is not None and wait > limit:
            shown = "forever" if math.isinf(wait) else f"{wait:g} s"
            raise ModelCallError(
                f"{why}: the endpoint asks to wait {shown} (Retry-After) before a retry, more than the "
                f"{limit:g} s the harness waits; gave up after {attempt} attempt{'s' if attempt > 1 else ''}"
            )
        if wait is None:
            wait = self._backoff(failures)
        if wait >= NOTICE_WAIT_S:
            log.warning("harness: %s: %s; waiting %.3g s before attempt %d", self._label(), why, wait, attempt + 1)
        return wait

    def _note_usage(self, note: str) -> None:
        """Say once per client and reason why tokens are estimated (not once per call)."""
        kind = note.split(" (", 1)[0]
        if kind not in self._noted:
            self._noted.add(kind)
            log.warning("harness: %s: %s", self._label(), note)

    async def chat(self, messages: list[dict[str, str]], **overrides: Any) -> ChatResult:
        """One chat completion. Errors (5xx, timeouts, broken answers) are retried up to
        `max_retries` times with backoff; 429s shrink the shared limit and pause every call
        for their Retry-After, and are retried up to THROTTLE_BUDGET times as often."""
        body = self.payload(messages, **overrides)
        s = self.settings
        attempt = failures = throttles = 0
        while True:
            attempt += 1
            await self.limiter.acquire()
            started = time.perf_counter()
            try:
                # The SDK's documented low-level post, returning the raw response: it sends our
                # body as built (no per-call TypedDict transform) and we read the JSON ourselves
                # (no model construction), which halves the cost of a replayed call. It also
                # tolerates the looser answers of vLLM or Ollama.
                response = await self._client.post("/chat/completions", body=body, cast_to=httpx2.Response)
            except CannotOverwriteExistingCassetteException:
                await self.limiter.release(failed=True)
                raise CassetteMissingError("no recorded answer for this request") from None
            except openai.RateLimitError as exc:
                throttles += 1
                self.throttled += 1
                retry_after = parse_retry_after(exc.response.headers if exc.response is not None else None)
                why = f"HTTP 429 ({throttles} so far)"
                if throttles > THROTTLE_BUDGET * s.max_retries:
                    await self.limiter.release(throttled=True)
                    raise ModelCallError(f"model call still refused (HTTP 429) after {attempt} attempts") from None
                try:
                    wait = self._bounded_wait(retry_after, throttles, why, attempt)
                finally:
                    await self.limiter.release(throttled=True, retry_after_s=None)
                await self.limiter.pause(wait)  # shared: no call starts before it has passed
                self.retries += 1
                continue
            except openai.APIStatusError as exc:
                await self.limiter.release(failed=True)
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    raise ModelCallError(self.redactor.redact(f"model call failed: HTTP {exc.status_code}: {exc.message}")) from None
                error, retry_after = f"HTTP {exc.status_code}: {exc.message}", parse_retry_after(exc.response.headers)
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                await self.limiter.release(failed=True)
                if is_cassette_miss(exc):
                    raise CassetteMissingError("no recorded answer for this request") from None
                body_error = is_body_error(exc)
                error = str(body_error) if body_error else f"{type(exc).__name__}: {exc}"
                retry_after = None
            else:
                try:
                    text, usage, note = read_completion(response.content, messages, s.model)
                except ModelCallError as exc:
                    await self.limiter.release(failed=True)
                    error, retry_after = exc.message, None
                else:
                    await self.limiter.release()
                    self.calls += 1
                    if note:
                        self._note_usage(note)
                    return ChatResult(
                        text=self.redactor.redact(text),
                        usage=usage,
                        latency_s=time.perf_counter() - started,
                        attempts=attempt,
                        usage_note=note,
                    )
            failures += 1
            if failures > s.max_retries:
                raise ModelCallError(self.redactor.redact(f"model call failed after {attempt} attempts: {error}"))
            wait = self._bounded_wait(retry_after, failures, error, attempt)
            self.retries += 1
            await asyncio.sleep(wait)

    async def close(self) -> None:
        await self._client.close()
