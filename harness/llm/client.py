"""The model client: the openai SDK against any OpenAI-compatible endpoint.

Retries (429, 5xx, timeouts, dropped connections) and the adaptive concurrency limit live
here rather than in the SDK, so throttling shrinks the whole run's concurrency instead of
every call backing off on its own. A cassette miss is never retried: it ends the case.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
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
from .redaction import Redactor, configured_secrets

DEFAULT_BASE_URL = "https://api.openai.com/v1"
REPLAY_KEY = "replay-without-key"  # sent only when replaying; scrubbed like any key


@dataclass
class ChatResult:
    text: str
    usage: Usage
    latency_s: float
    attempts: int = 1

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


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers if exc.response is not None else {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                return None
    return None


def read_completion(response: httpx2.Response) -> tuple[str, Usage]:
    """The answer text and usage of a chat completion; a malformed body is a failed call."""
    try:
        data = json.loads(response.content)
        choices = data.get("choices") or []
        message = choices[0].get("message") or {} if choices else {}
        text = message.get("content") or ""
        raw = data.get("usage") or {}
        usage = Usage(
            prompt_tokens=int(raw.get("prompt_tokens") or 0),
            completion_tokens=int(raw.get("completion_tokens") or 0),
            total_tokens=int(raw.get("total_tokens") or 0),
        )
    except (ValueError, TypeError, AttributeError, IndexError) as exc:
        raise ModelCallError(f"the endpoint's answer is not a chat completion: {exc}") from None
    return (text if isinstance(text, str) else json.dumps(text)), usage


class ModelClient:
    """Sends chat completions with retries under an adaptive concurrency limit."""

    def __init__(self, settings: EndpointSettings, *, replay: bool, backoff_base_s: float = 0.5) -> None:
        self.settings = settings
        self.replay = replay
        self.backoff_base_s = backoff_base_s
        self.limiter = AdaptiveLimiter(settings.concurrency)
        self.calls = 0
        self.retries = 0
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
        common: dict[str, Any] = {"api_key": key, "timeout": s.timeout_s, "max_retries": 0}
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

    async def chat(self, messages: list[dict[str, str]], **overrides: Any) -> ChatResult:
        body = self.payload(messages, **overrides)
        attempt = 0
        while True:
            attempt += 1
            await self.limiter.acquire()
            started = time.perf_counter()
            throttled, retry_after = False, None
            try:
                # The SDK's documented low-level post, returning the raw response: it sends our
                # body as built (no per-call TypedDict transform) and we read the JSON ourselves
                # (no model construction), which halves the cost of a replayed call. It also
                # tolerates the looser answers of vLLM or Ollama.
                response = await self._client.post("/chat/completions", body=body, cast_to=httpx2.Response)
            except CannotOverwriteExistingCassetteException:
                await self.limiter.release()
                raise CassetteMissingError("no recorded answer for this request") from None
            except openai.RateLimitError as exc:
                throttled, retry_after, error = True, _retry_after(exc), exc
            except openai.APIStatusError as exc:
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    await self.limiter.release()
                    raise ModelCallError(f"model call failed: HTTP {exc.status_code}: {exc.message}") from None
                retry_after, error = _retry_after(exc), exc
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                if is_cassette_miss(exc):
                    await self.limiter.release()
                    raise CassetteMissingError("no recorded answer for this request") from None
                error = exc
            else:
                await self.limiter.release()
                self.calls += 1
                text, usage = read_completion(response)
                return ChatResult(
                    text=self.redactor.redact(text),
                    usage=usage,
                    latency_s=time.perf_counter() - started,
                    attempts=attempt,
                )
            await self.limiter.release(throttled=throttled, retry_after_s=retry_after)
            if attempt > self.settings.max_retries:
                raise ModelCallError(f"model call failed after {attempt} attempts: {type(error).__name__}: {error}")
            self.retries += 1
            if throttled and retry_after is not None and retry_after >= self.limiter.pause_threshold_s:
                continue  # a real rate-limit window: the limiter holds every call back
            if retry_after is None:
                retry_after = min(30.0, self.backoff_base_s * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            await asyncio.sleep(retry_after)

    async def close(self) -> None:
        await self._client.close()
