"""The OpenAI SDK client of `harness record --batch`, whose errors end as the harness's own.

The Batch API is OpenAI's (and Azure's); llama.cpp, vLLM and most local servers speak chat
completions only and answer the files and batches endpoints 404 or 405. The SDK raises its own
exceptions for that (`openai.NotFoundError`), which would end the command in a traceback: every
call made through `guarded(sdk, base_url)` turns them into one line instead. No endpoint text is
quoted (it may echo a key): the status, the endpoint and what to do.

- 404 and 405: the endpoint has no Batch API: InputError (exit 2), record without --batch;
- 400, 401, 403, 409, 413, 422 (and other 4xx): the endpoint refused the batch: InputError (exit 2);
- 5xx, 429, timeouts and refused connections pass through: `batch._checked` retries them, says
  so, and ends in a ModelCallError (exit 4).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..errors import InputError, ModelCallError

NO_BATCH_API = (404, 405)


def guarded(sdk: Any, base_url: str) -> Any:
    """`sdk` (an openai.OpenAI) whose calls raise InputError or ModelCallError instead of the SDK's errors."""
    return _Guarded(sdk, base_url)


class _Guarded:
    """Attribute access passes through (`sdk.files`, `sdk.batches`); calls are wrapped; what calls
    return (batches, files, contents) is the SDK's own."""

    def __init__(self, target: Any, base_url: str) -> None:
        self._target = target
        self._base_url = base_url

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if callable(value):
            return _wrapped(value, name, self._base_url)
        return _Guarded(value, self._base_url)


def _wrapped(call: Callable[..., Any], name: str, base_url: str) -> Callable[..., Any]:
    @functools.wraps(call)
    def run(*args: Any, **kwargs: Any) -> Any:
        import openai

        try:
            return call(*args, **kwargs)
        except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError):
            raise  # a timeout, a dropped connection, a 429 or a 5xx: retried and ended by batch._checked
        except openai.APIStatusError as exc:
            raise batch_error(exc.status_code, base_url, creating=name == "create") from None
    return run


def batch_error(status: int, base_url: str, *, creating: bool = True) -> InputError | ModelCallError:
    """The harness's error for a Batch API call the endpoint answered `status` (`creating`: an upload
    or a new batch; else a look at a batch or file that should exist)."""
    if status == 404 and not creating:
        return InputError(f"{base_url}: the endpoint has no such batch or file (HTTP 404; a --batch-id of another "
                          "endpoint or key?); delete the suite's .batch-state to start a new batch")
    if status in NO_BATCH_API:
        return InputError(f"{base_url}: this endpoint has no Batch API (its files and batches endpoints answer "
                          f"{status}; llama.cpp, vLLM and most local servers have none): record without --batch")
    if 400 <= status < 500 and status != 429:
        return InputError(f"{base_url}: the endpoint refused the batch (HTTP {status}); check the key, its access to "
                          "the Batch API and the model, or record without --batch")
    return ModelCallError(f"{base_url}: the Batch API failed (HTTP {status}); run `harness record --batch` again "
                          "later to resume")
