"""OpenAI chat completions (also vLLM, Ollama and any OpenAI-compatible endpoint): today's behaviour.

Everything the endpoint sends is untrusted: JSON that is not a chat completion is a failed call
(retried by the client), and usage that is missing or could not be true is replaced by an offline
count and marked `estimated`.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from ...errors import InputError, ModelCallError
from ...model import Usage
from ...text import scrub_surrogates
from ..tokens import count_message_tokens, count_tokens
from .base import Answer, EndpointSettings, Message, Provider

DEFAULT_BASE_URL = "https://api.openai.com/v1"
CHAT_PATH = "/chat/completions"
MAX_PLAUSIBLE_TOKENS = 100_000_000  # per call: far above any context window, far below overflow
SAMPLING_SETTINGS = ("temperature", "top_p", "max_tokens", "seed")


def _text_of(content: Any) -> str:
    """A message's content as text: a string, a list of text parts, or anything else as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, (str, dict)) for p in content):
        parts = [p if isinstance(p, str) else p.get("text") for p in content]
        if all(isinstance(p, str) for p in parts):
            return "".join(parts)
    try:
        return json.dumps(content, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        return ""


def _parse_int(digits: str) -> int | float:
    """JSON integers; a number too long to be a count becomes inf (implausible) instead of
    tripping Python's int-string limit and losing the whole answer."""
    return int(digits) if len(digits) <= 30 else math.inf


def _plausible(value: object) -> TypeGuard[int | float]:
    if isinstance(value, bool):
        return False
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return isinstance(value, int) and 0 <= value <= MAX_PLAUSIBLE_TOKENS


def read_usage(raw: Any, text: str, messages: list[Message], model: str) -> tuple[Usage, str | None]:
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
    return Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total, estimated=bool(reasons),
                 cached_tokens=_cached(fields, prompt) if not reasons else 0), note


def _cached(fields: dict[str, Any], prompt: int) -> int:
    """`prompt_tokens_details.cached_tokens` when the endpoint reports a plausible count (at most
    the prompt's tokens), else 0: cached tokens not reported are billed as input."""
    details = fields.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return int(cached) if _plausible(cached) and int(cached) <= prompt else 0


def read_completion(content: bytes, messages: list[Message] | None = None, model: str = "gpt-4o-mini") -> Answer:
    """The answer text, usage, usage note and finish reason of a chat completion body.

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
    finish = first.get("finish_reason")
    return Answer(text=text, usage=usage, usage_note=note, finish_reason=finish if isinstance(finish, str) else None)


def chat_payload(settings: EndpointSettings, messages: list[Message], **overrides: Any) -> dict[str, Any]:
    """A chat-completions body: model, messages, then the sampling settings and any overrides
    (e.g. `max_tokens=1` for the loop check, `response_format` for JSON mode), in that order."""
    # text from outside (a suite's chunk, an earlier answer) must encode as UTF-8 to be sent
    messages = [
        {**m, "content": scrub_surrogates(m["content"])} if isinstance(m.get("content"), str) else m
        for m in messages
    ]
    body: dict[str, Any] = {"model": settings.model, "messages": messages}
    for key in SAMPLING_SETTINGS:
        value = overrides.get(key, getattr(settings, key))
        if value is not None:
            body[key] = value
    for key, value in overrides.items():
        if key not in body and value is not None:
            body[key] = value
    return body


class OpenAIProvider(Provider):
    """Chat completions at `base_url` (the suite's, else OPENAI_BASE_URL, else OpenAI's)."""

    name = "openai"
    post_path = CHAT_PATH

    def base_url(self, settings: EndpointSettings) -> str:
        return self.stated_endpoint(settings) or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL

    def request_path(self, settings: EndpointSettings) -> str:
        # replaying needs no endpoint: an unset `base_url_env` is refused only when a call is sent
        try:
            base = self.base_url(settings)
        except InputError:
            base = DEFAULT_BASE_URL
        return urlsplit(base).path.rstrip("/") + CHAT_PATH

    def build_payload(self, settings: EndpointSettings, messages: list[Message], **overrides: Any) -> dict[str, Any]:
        return chat_payload(settings, messages, **overrides)

    def read_answer(self, content: bytes, messages: list[Message], model: str) -> Answer:
        return read_completion(content, messages, model)

    def missing_key_hint(self, settings: EndpointSettings) -> str:
        # Azure is the suite's choice (model.provider), not the environment's: say so to someone
        # whose environment is set up for Azure
        if os.environ.get("AZURE_OPENAI_ENDPOINT") and not settings.base_url and not settings.base_url_env:
            return "; AZURE_OPENAI_ENDPOINT is set: to call that Azure resource, set `model.provider: azure` in the suite"
        return ""

    def make_client(self, settings: EndpointSettings, api_key: str, http_client: Any) -> Any:
        import openai

        return openai.AsyncOpenAI(base_url=self.base_url(settings), api_key=api_key, timeout=settings.timeout_s,
                                  max_retries=0, http_client=http_client)
