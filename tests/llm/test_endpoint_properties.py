"""Property: whatever the endpoint sends (body, status, headers, encoding), a call ends with a
chat result or a ModelCallError (exit 4), never another exception, and never a bad usage."""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import ModelCallError
from harness.llm.client import ChatResult, EndpointSettings, ModelClient, parse_retry_after
from harness.llm.providers.openai import read_completion
from ..support.fake_server import FakeOpenAIServer, RawReply, Script
from harness.model import Usage

from ..conftest import SECRET

MESSAGES = [{"role": "user", "content": "extract"}]

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
token_count = st.one_of(
    st.integers(min_value=0, max_value=5000),
    st.integers(min_value=-(10**6), max_value=-1),
    st.integers(min_value=10**9, max_value=10**500),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.none(),
)
usage = st.one_of(
    st.none(),
    json_value,
    st.fixed_dictionaries(
        {}, optional={"prompt_tokens": token_count, "completion_tokens": token_count, "total_tokens": token_count}
    ),
)
message = st.one_of(
    json_value,
    st.fixed_dictionaries({"role": st.just("assistant")}, optional={"content": st.one_of(st.text(max_size=60), json_value)}),
)
choice = st.one_of(json_value, st.fixed_dictionaries({"index": st.just(0)}, optional={"message": message}))
completion = st.fixed_dictionaries({}, optional={"choices": st.one_of(json_value, st.lists(choice, max_size=3)), "usage": usage})


def deep(depth: int) -> bytes:
    return b'{"choices": [' * depth + b"1" + b"]}" * depth


@st.composite
def bodies(draw) -> bytes:
    """A completion-shaped document, serialised, then perhaps mutated at the byte level."""
    kind = draw(st.sampled_from(["shaped", "shaped", "shaped", "bytes", "deep"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "deep":
        return deep(draw(st.integers(min_value=500, max_value=60_000)))
    data = json.dumps(draw(completion), allow_nan=True).encode()
    mutation = draw(st.sampled_from(["none", "none", "truncate", "flip", "insert"]))
    if mutation == "truncate" and data:
        data = data[: draw(st.integers(min_value=0, max_value=len(data) - 1))]
    elif mutation == "flip" and data:
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        data = data[:at] + bytes([data[at] ^ draw(st.integers(min_value=1, max_value=255))]) + data[at + 1 :]
    elif mutation == "insert":
        at = draw(st.integers(min_value=0, max_value=len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


header_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
retry_after_value = st.one_of(
    header_text,
    st.sampled_from(["0", "0.01", "-1", "inf", "-inf", "nan", "1e999", "86400", "Infinity",
                     "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", ""]),
    st.floats(min_value=0, max_value=0.05).map(str),
)


@st.composite
def replies(draw) -> RawReply:
    status = draw(st.sampled_from([200] * 6 + [201, 204, 301, 400, 401, 404, 408, 409, 422, 429, 429, 500, 502, 503, 529]))
    body = draw(bodies())
    headers = {"Content-Type": draw(st.sampled_from(["application/json", "text/plain", "text/event-stream", ""]))}
    if draw(st.booleans()):
        headers[draw(st.sampled_from(["Retry-After", "retry-after-ms"]))] = draw(retry_after_value)
    encoding = draw(st.sampled_from(["", "", "gzip", "deflate", "x-gzip", "gzip, gzip", "br", "identity", "snappy"]))
    if encoding:
        headers["Content-Encoding"] = encoding
        if draw(st.booleans()):  # honestly encoded, or a header that lies
            if encoding in ("gzip", "x-gzip"):
                body = gzip.compress(body)
            elif encoding == "gzip, gzip":
                body = gzip.compress(gzip.compress(body))
            elif encoding == "deflate":
                body = zlib.compress(body)
    if status == 204:
        body = b""
    return RawReply(status, headers, body)


def check_usage(value: Usage) -> None:
    for count in (value.prompt_tokens, value.completion_tokens, value.total_tokens):
        assert isinstance(count, int) and 0 <= count <= 10**9


@given(body=bodies())
def test_read_completion_returns_a_completion_or_raises_model_call_error(body):
    try:
        answer = read_completion(body, MESSAGES, "gpt-4o-mini")
    except ModelCallError:
        return
    assert isinstance(answer.text, str)
    check_usage(answer.usage)


@given(value=retry_after_value, name=st.sampled_from(["retry-after", "retry-after-ms"]))
def test_retry_after_is_a_wait_or_none(value, name):
    wait = parse_retry_after({name: value})
    assert wait is None or (wait >= 0 and not math.isnan(wait))


@pytest.fixture(scope="module")
def endpoint():
    holder: dict[str, RawReply] = {}
    with FakeOpenAIServer(Script(), raw=lambda _: holder["reply"]) as srv:
        yield srv, holder


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(reply=replies())
def test_any_endpoint_answer_ends_in_a_result_or_model_call_error(endpoint, reply, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    srv, holder = endpoint
    holder["reply"] = reply
    client = ModelClient(
        EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url, max_retries=1, max_wait_s=0.1, timeout_s=10),
        replay=False,
        backoff_base_s=0.001,
    )

    async def go() -> ChatResult | None:
        try:
            return await client.chat(MESSAGES)
        except ModelCallError:
            return None
        finally:
            await client.close()

    result = asyncio.run(go())
    if result is not None:
        assert isinstance(result.text, str)
        check_usage(result.usage)
        assert reply.status < 300  # an error status never becomes an answer
