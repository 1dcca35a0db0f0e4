"""The model client: the openai SDK against any OpenAI-compatible endpoint.

Retries (429, 5xx, timeouts, dropped connections) and the adaptive concurrency limit live
here rather than in the SDK, so throttling shrinks the whole run's concurrency instead of
every call backing off on its own. A cassette miss is never retried: it ends the case.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from vcr.errors import CannotOverwriteExistingCassetteException

from ..errors import CassetteMissingError, InputError, ModelCallError
from ..model import Usage
from .cassettes import is_cassette_miss
from .limiter import AdaptiveLimiter

DEFAULT_BASE_URL = "https://api.openai.com/v1"
REPLAY_KEY = "replay-without-key"  # sent only when replaying; scrubbed like any key


@dataclass
class ChatResult:
    text: str
    usage: Usage
    latency_s: float
    attempts: int = 1


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
        body: dict[str, Any] = {"model": s.model, "messages": messages}
        for key in ("temperature", "top_p", "max_tokens", "seed"):
            value = overrides.get(key, getattr(s, key))
            if value is not None:
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
                # the SDK's documented low-level post: sends our body as built, skipping the
                # per-call TypedDict transform that `create` runs (a third of replay time)
                response = await self._client.post("/chat/completions", body=body, cast_to=ChatCompletion)
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
                text = response.choices[0].message.content if response.choices else ""
                usage = response.usage
                return ChatResult(
                    text=text or "",
                    usage=Usage(
                        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                        total_tokens=getattr(usage, "total_tokens", 0) or 0,
                    ),
                    latency_s=time.perf_counter() - started,
                    attempts=attempt,
                )
            await self.limiter.release(throttled=throttled, retry_after_s=retry_after)
            if attempt > self.settings.max_retries:
                raise ModelCallError(f"model call failed after {attempt} attempts: {type(error).__name__}: {error}")
            self.retries += 1
            if throttled and retry_after is not None:
                continue  # the limiter holds every call back until Retry-After has passed
            if retry_after is None:
                retry_after = min(30.0, self.backoff_base_s * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            await asyncio.sleep(retry_after)

    async def close(self) -> None:
        await self._client.close()
