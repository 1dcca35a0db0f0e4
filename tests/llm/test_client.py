"""The model client against the local server: OpenAI-compatible and Azure endpoints."""

from __future__ import annotations

import asyncio
import json

import pytest

from harness.errors import InputError, ModelCallError
from harness.llm.client import EndpointSettings, ModelClient
from ..support.fake_server import FakeOpenAIServer, Faults, Script
from harness.llm.tokens import count_message_tokens, count_tokens
from harness.model import Usage
from harness.run.schedule import RunOptions, run_suite

from ..conftest import SECRET, all_files_text, script_for


def ask(client: ModelClient, text: str = "hello") -> str:
    async def go() -> str:
        try:
            return (await client.chat([{"role": "user", "content": text}])).text
        finally:
            await client.close()

    return asyncio.run(go())


def test_usage_and_text_come_back(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(Script(fallback="Y")) as srv:
        client = ModelClient(EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url), replay=False)
        assert ask(client) == "Y"
        body = srv.requests[0]["body"]
    assert body == {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}], "temperature": 0.0}


def test_recording_needs_a_key_but_replay_does_not(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        ModelClient(EndpointSettings(model="m"), replay=False)
    ModelClient(EndpointSettings(model="m"), replay=True)


def test_client_errors_are_not_retried(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(Script()) as srv:  # no scripted answer: the server answers 400
        client = ModelClient(EndpointSettings(model="m", base_url=srv.base_url, max_retries=5), replay=False)
        with pytest.raises(ModelCallError, match="HTTP 400"):
            ask(client)
        assert srv.calls == 1


def test_retry_after_is_honoured(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(Script(fallback="ok"), Faults(first_429=2, retry_after_s=0.2)) as srv:
        client = ModelClient(EndpointSettings(model="m", base_url=srv.base_url), replay=False)
        assert ask(client) == "ok"
        assert client.retries == 2 and client.limiter.throttle_events == 2
        # Each 429 paused every call for its full Retry-After, one after the other (that the
        # limiter holds calls back for its pause: test_limiter.py, on a fake clock).
        assert client.limiter.paused_s == pytest.approx(0.4)


def test_azure_endpoint_records_and_replays_without_its_key(suite, tmp_path, monkeypatch, project):
    suite.spec.model.provider = "azure"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    with FakeOpenAIServer(script_for(suite)) as srv:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", srv.base_url.removesuffix("/v1"))
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "r", variants=["default"]))
        assert not outcome.failures and len(outcome.results) == 3
        sent = srv.requests[0]
    assert sent["path"].startswith("/openai/deployments/gpt-4o-mini/chat/completions?api-version=")
    assert {k.lower(): v for k, v in sent["headers"].items()}["api-key"] == SECRET
    assert SECRET not in all_files_text(project.parent.parent)
    cassette = json.loads((suite.cassette_dir() / "default" / "mayor.json").read_text())
    assert "api-version=2024-10-21" in cassette["interactions"][0]["request"]["uri"]
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    again = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "r2", variants=["default"]))
    assert not again.missing and len(again.results) == 3
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT")  # replaying needs neither the key nor the endpoint
    third = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "r3", variants=["default"]))
    assert not third.missing and [r.graph for r in third.results] == [r.graph for r in again.results]


def test_the_openai_provider_ignores_an_azure_endpoint_in_the_environment(suite, tmp_path, monkeypatch):
    """The suite's `model.provider` chooses the endpoint, not whichever variables happen to be set."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(script_for(suite)) as srv:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "r", variants=["default"]))
        assert not outcome.failures and len(outcome.results) == 3
        assert all(r["path"] == "/v1/chat/completions" for r in srv.requests)


def test_an_endpoint_without_usage_gets_estimated_counts(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(Script(fallback="Lowbridge is a town."), Faults(report_usage=False)) as srv:
        client = ModelClient(EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url), replay=False)

        async def go():
            try:
                return await client.chat([{"role": "user", "content": "hello there"}])
            finally:
                await client.close()

        result = asyncio.run(go())
    assert result.usage.estimated
    assert result.usage.prompt_tokens == count_message_tokens([{"role": "user", "content": "hello there"}])
    assert result.usage.completion_tokens == count_tokens("Lowbridge is a town.")
    assert result.usage.total_tokens == result.usage.prompt_tokens + result.usage.completion_tokens


def test_reported_usage_is_not_marked_estimated(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(Script(fallback="Y")) as srv:
        client = ModelClient(EndpointSettings(model="gpt-4o-mini", base_url=srv.base_url), replay=False)

        async def go():
            try:
                return await client.chat([{"role": "user", "content": "hello"}])
            finally:
                await client.close()

        result = asyncio.run(go())
    assert not result.usage.estimated and result.usage.prompt_tokens > 0


def test_adding_usage_keeps_the_estimated_mark():
    measured = Usage(prompt_tokens=3, completion_tokens=1, total_tokens=4)
    guessed = Usage(prompt_tokens=5, completion_tokens=2, total_tokens=7, estimated=True)
    assert not (measured + measured).estimated
    assert (measured + guessed).estimated and (guessed + measured).estimated
    assert (measured + guessed).total_tokens == 11
