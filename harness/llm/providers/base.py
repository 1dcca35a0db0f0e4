"""The provider interface: one endpoint conversation, apart from retries and limits.

A provider knows where a request goes (its URL path), how a payload is built from the messages
and the model settings, how an answer is read (text, usage, finish reason), where the key, base
URL and headers come from, and how to make the SDK client. The SDK is imported only in
`make_client`, i.e. when a call is really sent: replaying from the cassette store never loads it.
ModelClient (llm/client.py) keeps retries, the adaptive limit, Retry-After and usage estimation.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from ...errors import InputError
from ...model import Usage

Message = dict[str, Any]
REPLAY_KEY = "replay-without-key"  # sent only when replaying; scrubbed like any key


def check_base_url(url: str) -> str:
    """An OpenAI-compatible endpoint URL, or ValueError saying what is wrong with it.

    Checked where the URL is given (suite, --base-url): httpx would otherwise fail only at the
    first call, with InvalidURL or an ExceptionGroup from deep inside the client.
    """
    if any(ord(c) < 33 for c in url):
        raise ValueError("not a URL (it holds spaces or control characters)")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError when out of range or not a number
        host = parts.hostname
    except ValueError as exc:
        if "port" in str(exc).lower():
            raise ValueError("the port must be a number from 1 to 65535") from None
        raise ValueError(f"not a URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"'{url[:80]}' must start with http:// or https://")
    if not host:
        raise ValueError(f"'{url[:80]}' names no host")
    if port == 0:
        raise ValueError("port 0 is not a port (1 to 65535)")
    return url


@dataclass
class EndpointSettings:
    """How to call one model: the suite's `model:` settings after command-line overrides."""

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
    provider: str = "openai"  # a name registered in providers/registry.py
    base_url_env: str | None = None  # the variable the base URL is read from when base_url is unset
    api_version: str | None = None  # Azure's api-version
    # replicas of one model (`model.base_urls`, llm/replicas.py): each call goes to one of them;
    # the first stands for them all where one URL is asked for (the request path, cassettes)
    base_urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """What a provider reads from one successful response."""

    text: str
    usage: Usage
    usage_note: str | None = None  # why the usage is estimated, when it is
    finish_reason: str | None = None


class Provider(ABC):
    """One kind of endpoint. Subclasses are registered by name in providers/registry.py."""

    name: ClassVar[str]
    method: ClassVar[str] = "POST"
    post_path: ClassVar[str]  # what the SDK client posts to, relative to its own base URL
    key_envs: ClassVar[tuple[str, ...]] = ()  # keys tried after the suite's `api_key_env`

    @abstractmethod
    def request_path(self, settings: EndpointSettings) -> str:
        """The URL path the request is sent to (cassettes match on it)."""

    @abstractmethod
    def build_payload(self, settings: EndpointSettings, messages: list[Message], **overrides: Any) -> dict[str, Any]:
        """The request body; its hash (llm/request_digest.py) identifies the call in cassettes."""

    @abstractmethod
    def read_answer(self, content: bytes, messages: list[Message], model: str) -> Answer:
        """The answer in a response body; raises ModelCallError for one that is not an answer."""

    @abstractmethod
    def make_client(self, settings: EndpointSettings, api_key: str, http_client: Any) -> Any:
        """The SDK client that sends requests (imports the SDK)."""

    def stated_endpoint(self, settings: EndpointSettings) -> str | None:
        """The URL the suite gives, itself or through `base_url_env`; None when it gives none. A
        suite that names a variable which is unset (or not a URL) is refused before anything is
        sent: falling back to the provider's default endpoint would send the chunks elsewhere."""
        if settings.base_url or not settings.base_url_env:
            return settings.base_url or (settings.base_urls[0] if settings.base_urls else None)
        value = os.environ.get(settings.base_url_env, "").strip()
        if not value:
            raise InputError(f"model.base_url_env: set {settings.base_url_env} to the endpoint's URL "
                             "(the suite reads its endpoint from there; nothing was sent)")
        try:
            return check_base_url(value)
        except ValueError as exc:
            raise InputError(f"model.base_url_env: {settings.base_url_env}: {exc}") from None

    def find_key(self, settings: EndpointSettings) -> str | None:
        """The first key set among the suite's `api_key_env` and this provider's `key_envs`."""
        for env in (settings.api_key_env, *self.key_envs):
            key = os.environ.get(env)
            if key:
                return key
        return None

    def api_key(self, settings: EndpointSettings, *, replay: bool) -> str:
        """The key to send (`find_key`); none is needed to replay."""
        key = self.find_key(settings)
        if key:
            return key
        if not replay:
            raise InputError(f"no API key: set {settings.api_key_env} to record (replaying needs none)"
                             + self.missing_key_hint(settings))
        return REPLAY_KEY

    def missing_key_hint(self, settings: EndpointSettings) -> str:
        """More to say when no key is found (a provider may know the user meant another one)."""
        return ""
