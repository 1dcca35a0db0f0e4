"""What a broken or hostile endpoint sends: every such answer ends as a failed call (exit 4)
naming the call, or as an estimate with its reason, never as another exception or a hang."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import tracemalloc
import zlib

import pytest

from harness.errors import ModelCallError
from harness.llm import client as client_module
from harness.llm.client import EndpointSettings, ModelClient
from ..support.fake_server import FakeOpenAIServer, Faults, RawReply, Script
from harness.llm.pricing import DEFAULT_PRICES, estimate_cost
from harness.llm.tokens import count_message_tokens
from harness.model import Usage

from ..conftest import SECRET

MESSAGES = [{"role": "user", "content": "hello"}]


def make_client(srv: FakeOpenAIServer, **settings) -> ModelClient:
    return ModelClient(
        EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url, **settings), replay=False, backoff_base_s=0.01
    )


def chat(client: ModelClient):
    async def go():
        try:
            return await client.chat(MESSAGES)
        finally:
            await client.close()

    return asyncio.run(go())


def json_reply(text: str | bytes, status: int = 200, **headers: str) -> RawReply:
    body = text.encode() if isinstance(text, str) else text
    return RawReply(status, {"Content-Type": "application/json", **headers}, body)


def completion(usage: str | None = None, content: str = "answer") -> str:
    usage_part = f', "usage": {usage}' if usage is not None else ""
    return '{"choices": [{"index": 0, "message": {"role": "assistant", "content": %s}}]%s}' % (
        json.dumps(content),
        usage_part,
    )


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


# --------------------------------------------------------------------------- usage fields


def test_an_infinite_token_count_is_replaced_by_an_estimate(caplog):
    body = completion('{"prompt_tokens": 1e999, "completion_tokens": 3, "total_tokens": 1e999}')
    with FakeOpenAIServer(Script(), raw=lambda _: json_reply(body)) as srv:
        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            result = chat(make_client(srv))
    assert result.text == "answer"
    assert result.usage.estimated
    assert result.usage.prompt_tokens == count_message_tokens(MESSAGES, "gpt-4o-mini")
    assert result.usage.completion_tokens == 3  # plausible, so kept as reported
    assert result.usage.total_tokens == result.usage.prompt_tokens + 3
    assert "prompt_tokens" in caplog.text and "estimated" in caplog.text


@pytest.mark.parametrize(
    "usage",
    [
        '{"prompt_tokens": %s, "completion_tokens": 1, "total_tokens": 1}' % ("9" * 400),
        '{"prompt_tokens": -5, "completion_tokens": 1, "total_tokens": 1}',
        '{"prompt_tokens": "12", "completion_tokens": 1, "total_tokens": 1}',
        '{"prompt_tokens": 1.5, "completion_tokens": 1, "total_tokens": 1}',
        '{"prompt_tokens": NaN, "completion_tokens": 1, "total_tokens": 1}',
        '"lots"',
    ],
)
@pytest.mark.slow
def test_implausible_usage_is_estimated(usage):
    with FakeOpenAIServer(Script(), raw=lambda _: json_reply(completion(usage))) as srv:
        result = chat(make_client(srv))
    assert result.usage.estimated
    assert result.usage.prompt_tokens == count_message_tokens(MESSAGES, "gpt-4o-mini")


def test_a_400_digit_token_count_has_no_cost_rather_than_an_overflow():
    usage = Usage(prompt_tokens=10**400, completion_tokens=1, total_tokens=10**400)
    assert estimate_cost(usage, "gpt-4o-mini", DEFAULT_PRICES) is None


# --------------------------------------------------------------------------- bodies


@pytest.mark.parametrize(
    "body, reason",
    [
        ('{"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}}', "no choices"),
        ("{}", "no choices"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"choices": [{"message": ' * 50_000 + "{}" + "}]" * 50_000 + "}", "nested"),
        ('{"choices": [7]}', "not a chat completion"),
        ("not json at all", "not JSON"),
        (b"\xff\xfe{}", "not JSON"),
    ],
)
@pytest.mark.slow
def test_an_answer_that_is_not_a_completion_fails_the_call_after_retries(body, reason):
    with FakeOpenAIServer(Script(), raw=lambda _: json_reply(body)) as srv:
        with pytest.raises(ModelCallError, match=reason) as caught:
            chat(make_client(srv, max_retries=2))
        assert srv.calls == 3  # endpoint errors are retried like server errors, then given up
    assert "after 3 attempts" in caught.value.message


@functools.cache
def gzip_bomb(megabytes: int) -> bytes:
    """`{}` followed by `megabytes` MiB of spaces, gzip-compressed: valid JSON, tiny on the wire."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b"{}")]
    chunk = b" " * (1 << 20)
    parts.extend(packer.compress(chunk) for _ in range(megabytes))
    parts.append(packer.flush())
    return b"".join(parts)


@pytest.mark.slow
def test_a_gzip_bomb_is_refused_without_decoding_it():
    bomb = gzip_bomb(256)
    assert len(bomb) < 1 << 20
    reply = RawReply(200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, bomb)
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        client = make_client(srv, max_retries=0)
        tracemalloc.start()
        try:
            with pytest.raises(ModelCallError, match="larger than"):
                chat(client)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 4 * client_module.MAX_BODY_BYTES  # far below the 256 MiB the body decodes to


def test_a_gzipped_answer_within_the_cap_is_read():
    with FakeOpenAIServer(Script(fallback="zipped"), Faults(gzip=True)) as srv:
        assert chat(make_client(srv)).text == "zipped"


def test_an_unknown_content_encoding_is_an_endpoint_error():
    reply = RawReply(200, {"Content-Type": "application/json", "Content-Encoding": "snappy"}, b"\x00\x01")
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        with pytest.raises(ModelCallError, match="snappy"):
            chat(make_client(srv, max_retries=0))


# --------------------------------------------------------------------------- Retry-After


def waits_requested(monkeypatch) -> list[float]:
    """Every wait the client asks for: shared pauses (the limiter) and its own backoff sleeps.
    "Gives up at once" is then "asked for no wait", whatever the machine's speed."""
    from harness.llm.limiter import AdaptiveLimiter

    waits: list[float] = []
    pause, sleep = AdaptiveLimiter._pause, asyncio.sleep

    def recorded_pause(self, seconds: float) -> None:
        waits.append(seconds)
        pause(self, seconds)

    async def recorded_sleep(seconds: float, *args, **kwargs):
        waits.append(seconds)
        return await sleep(seconds, *args, **kwargs)

    monkeypatch.setattr(AdaptiveLimiter, "_pause", recorded_pause)
    monkeypatch.setattr(client_module.asyncio, "sleep", recorded_sleep)
    return waits


@pytest.mark.slow
@pytest.mark.parametrize("value", ["86400", "inf", "1e999", "Infinity"])
def test_a_retry_after_beyond_the_cap_gives_up_at_once(value, monkeypatch):
    reply = json_reply('{"error": {"message": "slow down"}}', 429, **{"Retry-After": value})
    waits = waits_requested(monkeypatch)
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        with pytest.raises(ModelCallError, match="Retry-After") as caught:
            chat(make_client(srv, max_wait_s=30))
        assert srv.calls == 1
    assert waits == []
    assert "30" in caught.value.message


def test_a_retry_after_in_milliseconds_is_capped_too():
    reply = json_reply('{"error": {"message": "slow down"}}', 429, **{"retry-after-ms": "99999999"})
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        with pytest.raises(ModelCallError, match="Retry-After"):
            chat(make_client(srv, max_wait_s=30))


def test_a_short_wait_is_announced_naming_the_call(caplog):
    """Every retry is announced, however short its wait (issue 28.9: waits under 5 s were silent)."""
    with FakeOpenAIServer(Script(fallback="ok"), Faults(first_429=1, retry_after_s=0.3)) as srv:
        client = make_client(srv)

        async def go():
            try:
                with client_module.call_label("case 'mayor' of variant 'tuned'"):
                    return await client.chat(MESSAGES)
            finally:
                await client.close()

        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            assert asyncio.run(go()).text == "ok"
    assert "case 'mayor' of variant 'tuned'" in caplog.text
    assert "0.3 s" in caplog.text and "429" in caplog.text


def test_throttled_calls_keep_their_retry_budget_for_errors():
    # three 429s then two 500s: with max_retries=2 the 500s alone stay within budget,
    # and the 429s (capacity, not failure) are counted against a separate, larger bound
    with FakeOpenAIServer(Script(fallback="ok"), Faults(first_429=3, first_500=2, retry_after_s=0.01)) as srv:
        assert chat(make_client(srv, max_retries=2)).text == "ok"
        assert srv.calls == 6


def test_throttling_is_still_bounded():
    with FakeOpenAIServer(Script(fallback="ok"), Faults(first_429=1000, retry_after_s=0.01)) as srv:
        with pytest.raises(ModelCallError, match="429"):
            chat(make_client(srv, max_retries=2))
        assert srv.calls == 4 * 2 + 1


# --------------------------------------------------------------------------- through `harness record`


def record(project, capsys, srv) -> tuple[int, str]:
    from harness.cli import main

    code = main(["record", str(project), "--base-url", srv.base_url, "--variant", "default", "--case", "mayor"])
    return code, capsys.readouterr().err


def test_record_gives_up_on_a_day_long_retry_after_with_exit_4_naming_the_case(project, capsys, monkeypatch):
    reply = json_reply('{"error": {"message": "quota"}}', 429, **{"Retry-After": "86400"})
    waits = waits_requested(monkeypatch)
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        code, err = record(project, capsys, srv)
    assert waits == [] and srv.calls == 1
    assert code == 4
    assert "case 'mayor' of variant 'default'" in err and "86400 s (Retry-After)" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "reply",
    [
        json_reply('{"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}}'),
        RawReply(200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, gzip_bomb(64)),
    ],
    ids=["no-choices", "gzip-bomb"],
)
@pytest.mark.slow
def test_record_fails_persistent_endpoint_errors_with_exit_4_naming_the_case(project, capsys, monkeypatch, reply):
    monkeypatch.setattr(client_module, "MAX_BODY_BYTES", 1 << 20)
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        code, err = record(project, capsys, srv)
    assert code == 4, err
    assert "case 'mayor' of variant 'default'" in err and "after 4 attempts" in err  # the suite's max_retries: 3
    assert not (project.parent.parent / "fixtures" / "cassettes" / "towns" / "default" / "mayor.json").exists()


@pytest.mark.slow
def test_a_broken_answer_then_a_good_one_records_and_replays_the_same_result(suite, api_key, tmp_path):
    from harness.run.schedule import RunOptions, run_suite

    from ..conftest import script_for

    script = script_for(suite)
    broken: set[str] = set()

    def first_broken(body):
        key = body["messages"][-1]["content"]
        if key not in broken:  # the first answer to each request has no choices
            broken.add(key)
            return json_reply('{"choices": []}')
        return None

    with FakeOpenAIServer(script, raw=first_broken) as srv:
        recorded = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec", base_url=srv.base_url))
    assert not recorded.failures and recorded.retries > 0
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "play"))
    assert not replayed.failures and not replayed.missing
    assert [r.graph for r in replayed.results] == [r.graph for r in recorded.results]


@pytest.mark.slow
@pytest.mark.parametrize("status", [401, 500])
def test_an_error_body_that_echoes_the_key_does_not_reach_the_failure_message(status):
    """Failure messages go to stderr, junit and CI logs: the configured key is scrubbed from them
    as from cassettes and results."""
    echo = json.dumps({"error": {"message": f"bad key: Bearer {SECRET}"}})
    with FakeOpenAIServer(Script(), raw=lambda _: json_reply(echo, status=status)) as srv:
        with pytest.raises(ModelCallError) as caught:
            chat(make_client(srv, max_retries=1))
    assert SECRET not in caught.value.message
    assert "bad key" in caught.value.message


def test_the_body_cap_holds_behind_a_proxy_from_the_environment(monkeypatch):
    """httpx builds its own transports for HTTP(S)_PROXY; the bounded one must serve those too.
    The local server acts as the proxy (it answers absolute-URI requests) for an upstream host that
    does not exist, so the answer can only come through the proxy."""
    bomb = gzip_bomb(64)
    reply = RawReply(200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, bomb)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.rsplit("/v1", 1)[0])
        client = ModelClient(EndpointSettings(model="gpt-4o-mini", base_url="http://upstream.invalid/v1",
                                              max_retries=0), replay=False, backoff_base_s=0.01)
        with pytest.raises(ModelCallError, match="larger than"):
            chat(client)
        assert proxy.calls == 1


# --------------------------------------------------------------------------- issue 28, item 4: the key in an endpoint's error text


def test_a_retry_after_refusal_quoting_the_key_does_not_repeat_it():
    """The refusal quotes the endpoint's error text; an endpoint that puts the key there (plain or
    base64) must not get it on stderr, where CI logs keep it."""
    import base64

    echoed = f"key {SECRET} ({base64.b64encode(SECRET.encode()).decode()}) is over quota"
    reply = json_reply(json.dumps({"error": {"message": echoed}}), 503, **{"retry-after": "100000"})
    with FakeOpenAIServer(Script(), raw=lambda _: reply) as srv:
        with pytest.raises(ModelCallError, match="Retry-After") as caught:
            chat(make_client(srv, max_wait_s=30))
    assert SECRET not in caught.value.message and SECRET[:16] not in str(caught.value)
    assert base64.b64encode(SECRET.encode()).decode()[:-4] not in caught.value.message
    assert "[REDACTED]" in caught.value.message


def test_the_waiting_warning_quoting_the_key_does_not_repeat_it(monkeypatch, caplog):
    """The retry line ("attempt 2 of 7 in N s") carries the error text: its record is scrubbed before any
    handler (pytest's, a CI log collector's) sees it."""
    replies = [json_reply(json.dumps({"error": {"message": f"bad key {SECRET}"}}), 500, **{"retry-after": "0"})]
    with FakeOpenAIServer(Script(fallback="ok"), raw=lambda _: replies.pop() if replies else None) as srv:
        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            assert chat(make_client(srv)).text == "ok"
    assert "attempt 2 of" in caplog.text and "[REDACTED]" in caplog.text
    assert SECRET not in caplog.text


# --------------------------------------------------------------------------- timeouts (issue 28.8, 28.9)


def test_a_trickled_answer_ends_at_the_deadline_with_the_settings_that_help():
    from ..support.trickle_server import TrickleServer, slow_body

    with TrickleServer(slow_body(0.05, 1)) as srv:
        client = ModelClient(EndpointSettings(model="m", base_url=srv.base_url, timeout_s=0.5, concurrency=1,
                                              max_retries=3), replay=False, backoff_base_s=0.01)
        with pytest.raises(ModelCallError) as caught:
            chat(client)
        assert srv.requests == 1  # alone: the same request is not sent again
    message = caught.value.message
    assert "timeout_s=0.5 s" in message
    assert "model.max_tokens" in message and "model.timeout_s" in message and "model.concurrency" in message


def test_every_retry_is_announced_with_its_attempt(caplog):
    with FakeOpenAIServer(Script(fallback="ok"), Faults(first_500=2)) as srv:
        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            assert chat(make_client(srv, max_retries=3)).text == "ok"
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.llm"]
    assert [("attempt 2 of 4" in line, "attempt 3 of 4" in line) for line in lines] == [(True, False), (False, True)]
    assert all("HTTP 500" in line for line in lines)


def test_a_timeout_shared_with_other_calls_shrinks_the_limit_and_is_retried(caplog):
    import threading

    from ..support.trickle_server import Stream, TrickleServer, completion_body, head

    slot = threading.Lock()
    body = completion_body("served")

    def one_slot(stream: Stream, _: dict) -> None:  # llama.cpp with one slot: the others queue
        while not slot.acquire(timeout=0.01):
            stream.pause(0.0)
        try:
            for _ in range(10):
                stream.pause(0.03)
            stream.send(head(200, len(body)) + body)
        finally:
            slot.release()

    with TrickleServer(one_slot) as srv:
        client = ModelClient(EndpointSettings(model="m", base_url=srv.base_url, timeout_s=0.5, concurrency=4,
                                              max_retries=4), replay=False, backoff_base_s=0.01)

        async def go():
            try:
                return await asyncio.gather(*(client.chat([{"role": "user", "content": str(i)}]) for i in range(4)))
            finally:
                await client.close()

        with caplog.at_level(logging.WARNING, logger="harness.llm"):
            results = asyncio.run(go())
    assert [r.text for r in results] == ["served"] * 4
    assert client.limiter.lowest_limit < 4
    assert any("calls in flight now at most" in r.getMessage() for r in caplog.records)
