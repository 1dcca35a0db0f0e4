"""`model.base_urls` (harness.llm.replicas): a model's calls spread over its replicas, each with its
own adaptive limit, and cassettes that do not say which replica answered."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.llm.client import EndpointSettings, ModelClient
from harness.llm.limiter import AdaptiveLimiter
from harness.llm.replicas import Replica, canonical_uri, learn_replicas, pick
from harness.run.plan import endpoint_settings
from harness.suites import load_suite

from ..conftest import SECRET, script_for
from ..reports.helpers import harness, replay, strip_volatile
from ..support.fake_server import FakeOpenAIServer, Faults, Script


def test_a_call_goes_to_the_replica_with_most_free_slots_then_the_least_full():
    a, b = Replica("http://a:1/v1", AdaptiveLimiter(4)), Replica("http://b:1/v1", AdaptiveLimiter(2))
    assert pick([a, b]) is a  # 4 free against 2
    a.limiter.in_flight = 3
    assert pick([a, b]) is b  # 1 free against 2
    b.limiter.in_flight = 2
    assert pick([a, b]) is a  # only a has room
    a.limiter.in_flight, b.limiter.in_flight = 6, 2
    assert pick([a, b]) is b  # none free: b is full (1x), a is over (1.5x, its limit shrank)
    assert pick([b]) is b


def test_a_replicas_uri_is_recorded_as_the_first_replicas():
    learn_replicas(("http://10.0.0.1:8000/v1", "http://10.0.0.2:8001/v1", "https://Gpu3:9/v1"))
    assert canonical_uri("http://10.0.0.2:8001/v1/chat/completions") == "http://10.0.0.1:8000/v1/chat/completions"
    assert canonical_uri("https://gpu3:9/v1/chat/completions?x=1") == "http://10.0.0.1:8000/v1/chat/completions?x=1"
    assert canonical_uri("http://10.0.0.1:8000/v1/chat/completions") == "http://10.0.0.1:8000/v1/chat/completions"
    assert canonical_uri("http://elsewhere:1/v1/chat/completions") == "http://elsewhere:1/v1/chat/completions"


def _calls(client: ModelClient, count: int) -> list[str]:
    async def go() -> list[str]:
        try:
            results = await asyncio.gather(*(client.chat([{"role": "user", "content": f"call {i}"}])
                                             for i in range(count)))
            return [r.text for r in results]
        finally:
            await client.close()

    return asyncio.run(go())


def test_each_replica_has_its_own_adaptive_limit(monkeypatch):
    """Replica a serves one request at a time and refuses the rest (429): only its limit comes
    down; b is never refused, and both answer calls."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(Script(fallback="ok"), Faults(capacity=1, latency_s=0.05, retry_after_s=0.05)) as a, \
            FakeOpenAIServer(Script(fallback="ok"), Faults(latency_s=0.05)) as b:
        client = ModelClient(EndpointSettings(model="gpt-4o-mini", base_urls=(a.base_url, b.base_url), concurrency=4),
                             replay=False)
        assert client.capacity == 8
        texts = _calls(client, 40)
        answered = (a.answered, b.answered)
        refused = (a.rejected, b.rejected)
    assert texts == ["ok"] * 40 and sum(answered) == 40
    assert answered[0] > 0 and answered[1] > 0
    first, second = client.replicas
    assert refused[0] > 0 and refused[1] == 0
    assert first.limiter.throttle_events == refused[0] and second.limiter.throttle_events == 0
    assert first.limiter.lowest_limit < 4 and second.limiter.lowest_limit == 4


def test_one_endpoint_is_one_replica_and_base_url_overrides_the_replicas(project):
    suite = load_suite(project)
    settings = endpoint_settings(suite.spec.model)
    assert settings.base_urls == ()
    assert len(ModelClient(settings, replay=True).replicas) == 1
    model = suite.spec.model.model_copy(update={"base_urls": ["http://a:1/v1", "http://b:2/v1"]})
    assert endpoint_settings(model).base_urls == ("http://a:1/v1", "http://b:2/v1")
    assert endpoint_settings(model, base_url="http://c:3/v1").base_urls == ()  # --base-url: the one endpoint


def _set_model(project: Path, **changes) -> None:
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    data["model"].update(changes)
    project.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


@pytest.mark.parametrize("changes,message", [
    ({"base_urls": ["http://a:1/v1", "http://a:1/v1"]}, "a URL is listed twice"),
    ({"base_urls": ["http://a:1/v1", "http://b:1/api"]}, "must have the same path"),
    ({"base_urls": ["http://a:1/v1"], "base_url": "http://b:1/v1"}, "not two of them"),
    ({"base_urls": ["ftp://a:1/v1"]}, "must start with http:// or https://"),
    ({"base_urls": []}, "base_urls"),
])
def test_bad_base_urls_are_one_line_and_exit_2(project, capsys, changes, message):
    _set_model(project, **changes)
    code, _, err = harness(capsys, "run", str(project))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def _cassettes(root: Path) -> dict[str, dict]:
    """Each cassette, without the completion ids the fake server numbers in the order it answers and
    the latency each call was measured at (the harness key of a recorded response)."""
    base = root / "fixtures" / "cassettes"
    found = {}
    for path in sorted(base.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for interaction in data["interactions"]:
            interaction["response"]["body"]["string"]["json"].pop("id")
            interaction["response"].get("harness", {}).pop("latency_s", None)
        found[str(path.relative_to(base))] = data
    return found


@pytest.mark.slow
def test_recording_over_two_replicas_writes_the_cassettes_one_endpoint_writes(project, api_key, tmp_path, capsys):
    """The same suite recorded against replica a alone, and against a and b: b answered some calls,
    and the cassettes are the same (every request named as a's; only the ids the server numbers
    in answering order differ), so replays agree."""
    single = tmp_path / "single"
    shutil.copytree(project.parent.parent, single, ignore=shutil.ignore_patterns("reports"))
    suite = load_suite(project)
    with FakeOpenAIServer(script_for(suite), Faults(latency_s=0.02)) as a, \
            FakeOpenAIServer(script_for(suite), Faults(latency_s=0.02)) as b:
        _set_model(single / "suites" / "towns.yaml", base_url=a.base_url)
        code, _, err = harness(capsys, "record", str(single / "suites" / "towns.yaml"), "--reports", str(tmp_path / "r1"))
        assert code == 0, err
        alone = a.answered
        _set_model(project, base_urls=[a.base_url, b.base_url], concurrency=2)
        code, _, err = harness(capsys, "record", str(project), "--reports", str(tmp_path / "r2"))
        assert code == 0, err
        by_replica = (a.answered - alone, b.answered)
    assert by_replica[0] > 0 and by_replica[1] > 0 and sum(by_replica) == alone
    recorded, expected = _cassettes(project.parent.parent), _cassettes(single)
    assert recorded.keys() == expected.keys() and recorded == expected
    uris = {i["request"]["uri"] for data in recorded.values() for i in data["interactions"]}
    assert uris == {a.base_url + "/chat/completions"}

    one, _ = replay(load_suite(single / "suites" / "towns.yaml"), tmp_path / "p1", "r")
    two, _ = replay(load_suite(project), tmp_path / "p2", "r")
    rows = lambda d: [strip_volatile(json.loads(line)) for line in (d / "results.jsonl").read_text().splitlines()]  # noqa: E731
    assert rows(two.run_dir) == rows(one.run_dir)
