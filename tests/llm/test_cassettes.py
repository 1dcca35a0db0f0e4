"""Cassette matching, scrubbing, storage and audit."""

from __future__ import annotations

import gzip
import json
from functools import partial
from pathlib import Path

import pytest
from vcr.request import Request

from harness.errors import InputError
from harness.run.audit import audit_suites, scan_credentials
from harness.llm.cassette_store import CassetteStore
from harness.llm.cassettes import (
    AtomicPersister,
    JsonSerializer,
    body_hash,
    scrub_request,
    scrub_response,
)
from ..support.fake_server import Faults, FakeOpenAIServer
from harness.run.schedule import RunOptions, run_suite
from harness.suites import load_suite

from ..conftest import script_for

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


def test_hash_ignores_volatile_fields_and_key_order():
    a = json.dumps(BODY)
    b = json.dumps({"temperature": 0, "user": "alice", "metadata": {"run": 7}, **BODY})
    assert body_hash(a) == body_hash(b)


@pytest.mark.parametrize("change", [{"temperature": 0.7}, {"model": "other"}, {"seed": 1},
                                    {"messages": [{"role": "user", "content": "hi!"}]}])
def test_hash_changes_with_anything_that_changes_the_answer(change):
    assert body_hash(json.dumps(BODY)) != body_hash(json.dumps({**BODY, **change}))


def test_scrub_request_removes_credentials_but_keeps_the_match():
    request = Request(
        "POST",
        "https://user:pw@example.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21&api-key=SECRET",
        json.dumps({**BODY, "user": "alice"}).encode(),
        {"Authorization": "Bearer x", "api-key": "k", "OpenAI-Organization": "o", "OpenAI-Project": "p",
         "Content-Type": "application/json", "Cookie": "c"},
    )
    clean = scrub_request(request)
    assert set(clean.headers) == {"Content-Type"}
    assert "SECRET" not in clean.uri and "pw" not in clean.uri and "api-version=2024-10-21" in clean.uri
    assert "alice" not in clean.body.decode()
    assert body_hash(clean.body) == body_hash(request.body)


def test_scrub_response_drops_failures_and_decodes():
    assert scrub_response({"status": {"code": 429, "message": "x"}, "headers": {}, "body": {"string": b""}}) is None
    assert scrub_response({"status": {"code": 500, "message": "x"}, "headers": {}, "body": {"string": b""}}) is None
    raw = json.dumps({"ok": 1}).encode()
    kept = scrub_response({
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Encoding": ["gzip"], "Content-Type": ["application/json"], "Set-Cookie": ["s"],
                    "openai-organization": ["org"], "x-request-id": ["r"]},
        "body": {"string": gzip.compress(raw)},
    })
    assert kept["body"]["string"] == raw
    assert set(kept["headers"]) == {"Content-Type"}


def test_serializer_round_trip_keeps_bodies_readable(tmp_path):
    request = Request("POST", "http://h/v1/chat/completions", json.dumps(BODY).encode(), {"content-type": "application/json"})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": b'{"a": 1}'}}
    path = tmp_path / "c.json"
    AtomicPersister().save_cassette(path, {"requests": [request], "responses": [response]}, JsonSerializer())
    stored = json.loads(path.read_text())
    assert stored["interactions"][0]["request"]["body"]["json"]["messages"][0]["content"] == "hi"
    [recording] = CassetteStore.load(path).recordings
    assert recording.digest == body_hash(request.body) and recording.path == "/v1/chat/completions"
    assert json.loads(recording.answer) == {"a": 1}
    # and vcrpy loads the same file through the persister, to the same request
    [req], [resp] = AtomicPersister.load_cassette(path, JsonSerializer())
    assert body_hash(req.body) == body_hash(request.body) and json.loads(resp["body"]["string"]) == {"a": 1}


def test_a_cassette_cannot_run_code_when_loaded(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.json"
    path.write_text(f'interactions:\n- !!python/object/apply:os.system ["touch {marker}"]\n')
    with pytest.raises(InputError, match="corrupt cassette"):
        CassetteStore.load(path)
    assert not marker.exists()


def test_corrupt_cassette_is_an_input_error_naming_the_file(suite, tmp_path):
    path = suite.cassette_dir() / "default" / "mayor.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(InputError, match=r"mayor\.json: corrupt cassette"):
        run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "r", cases=["mayor"], variants=["default"]))


def test_audit_reports_credentials_orphans_and_stale(project, api_key, tmp_path):
    suite = load_suite(project)
    with FakeOpenAIServer(script_for(suite)) as srv:
        run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "r", base_url=srv.base_url))
    assert audit_suites([suite]) == []
    folder = suite.cassette_dir()
    # a leaked key, an orphan and a stale cassette
    leaked = folder / "default" / "fair.json"
    fake_token = "Bearer " + "abcdefghij" * 2  # built here so the repository holds no credential-like text
    leaked.write_text(leaked.read_text().replace('"content-type"', f'"authorization": ["{fake_token}"], "content-type"', 1))
    (folder / "default" / "gone.json").write_text((folder / "default" / "mayor.json").read_text())
    tuned = project.parent.parent / "prompts" / "tuned.txt"
    tuned.write_text(tuned.read_text() + " Be brief.")
    findings = audit_suites([load_suite(project)])
    kinds = {(f.kind, Path(f.path.split(":")[0]).name) for f in findings}
    assert ("credential", "fair.json") in kinds
    assert ("orphan", "gone.json") in kinds
    assert {("stale", f"{c}.json") for c in ("mayor", "flood", "fair")} <= kinds


def test_scan_credentials_on_clean_text(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text('{"headers": {"content-type": ["application/json"]}, "body": "skills-based task"}')
    assert scan_credentials(path) == []


def _rows(run_dir: Path) -> list[dict]:
    """results.jsonl without where each latency came from ("measured" when recording, "recorded" in
    a replay), the only thing allowed to differ: the replay reads the latency the cassette kept."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "latency_from"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return [strip(json.loads(line)) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_lone_surrogate_in_an_answer_records_with_gleaning_and_replays_to_the_same_result(
    suite, api_key, tmp_path, monkeypatch
):
    script = script_for(suite)
    # the server writes these as JSON escapes ("\ud800"), which json.loads turns into lone surrogates
    script.rounds = {
        key: [answer.replace("<|>", "\ud800<|>", 1) + "\udfff" for answer in answers]
        for key, answers in script.rounds.items()
    }
    options = dict(variants=["default"], cases=["mayor", "fair"], fresh=True)
    with FakeOpenAIServer(script) as srv:
        recorded = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec",
                                               base_url=srv.base_url, **options))
        # the first answer went back to the server as the assistant message of the gleaning round
        assert len(srv.requests) == 4
    assert not recorded.missing and not recorded.failures
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "rep", **options))
    assert not replayed.missing and not replayed.failures
    assert _rows(recorded.run_dir) == _rows(replayed.run_dir)
    outputs = [r.output for row in replayed.results for r in row.rounds]
    assert outputs and all("\ufffd" in o and "\ud800" not in o and "\udfff" not in o for o in outputs)
    assert replayed.results[0].graph.entities  # the record around the replaced character still parses


def _nest(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


CORRUPTIONS = {
    "response-is-a-string": lambda i: i.__setitem__("response", "OK"),
    "request-is-a-string": lambda i: i.__setitem__("request", "POST /v1/chat/completions"),
    "body-is-a-number": lambda i: i["response"]["body"].__setitem__("string", 42),
    "body-is-a-list": lambda i: i["request"].__setitem__("body", ["a"]),
    "body-missing": lambda i: i["response"].pop("body"),
    "status-missing": lambda i: i["response"].pop("status"),
    "status-not-numeric": lambda i: i["response"]["status"].__setitem__("code", "two hundred"),
    "status-numeric-text": lambda i: i["response"]["status"].__setitem__("code", "200"),
    "status-a-failure": lambda i: i["response"]["status"].__setitem__("code", 500),
    "status-message-not-ascii": lambda i: i["response"]["status"].__setitem__("message", "Ökay"),
    "headers-a-string": lambda i: i["response"].__setitem__("headers", "content-type: application/json"),
    "header-value-a-number": lambda i: i["response"]["headers"].__setitem__("content-type", [1]),
    "header-value-an-empty-list": lambda i: i["request"]["headers"].__setitem__("content-type", []),
    "header-value-not-ascii": lambda i: i["response"]["headers"].__setitem__("content-type", ["\x80"]),
    "header-name-not-ascii": lambda i: i["response"]["headers"].__setitem__("cöntent-type", ["a/b"]),
    "uri-not-a-url": lambda i: i["request"].__setitem__("uri", "http://[::1/v1"),
    "method-missing": lambda i: i["request"].pop("method"),
    "choices-a-string": lambda i: i["response"]["body"]["string"]["json"].__setitem__("choices", "text"),
    "message-a-list": lambda i: i["response"]["body"]["string"]["json"]["choices"][0].__setitem__("message", []),
    "usage-tokens-text": lambda i: i["response"]["body"]["string"]["json"]["usage"].__setitem__("prompt_tokens", "9"),
    "answer-not-json": lambda i: i["response"]["body"].__setitem__("string", "<html>proxy error</html>"),
    "nested-deep-in-body": lambda i: i["request"]["body"]["json"].__setitem__("extra", _nest(200)),
    "nested-deep-in-answer-text": lambda i: i["response"]["body"].__setitem__("string", "[" * 5000 + "]" * 5000),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_a_damaged_cassette_is_a_corrupt_cassette_error_naming_the_file(name, recorded_towns, project, tmp_path, capsys):
    from harness.cli import main

    data = json.loads(recorded_towns.read_text(encoding="utf-8"))
    CORRUPTIONS[name](data["interactions"][0])
    recorded_towns.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=r"mayor\.json: corrupt cassette: interactions\[0\]"):
        CassetteStore.load(recorded_towns)
    code = main(["run", str(project), "--variant", "default", "--case", "mayor", "--reports", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "mayor.json: corrupt cassette" in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("damage", ["not-a-cassette", "interactions-a-dict", "nested-beyond-the-stack",
                                    "truncated", "not-utf-8", "symlink-loop", "a-directory", "version-2"])
@pytest.mark.slow
def test_a_damaged_cassette_file_is_a_corrupt_cassette_error(damage, recorded_towns, project, tmp_path, capsys):
    from harness.cli import main

    text = recorded_towns.read_text(encoding="utf-8")
    recorded_towns.unlink()
    if damage == "not-a-cassette":
        recorded_towns.write_text('"just a string"')
    elif damage == "interactions-a-dict":
        recorded_towns.write_text('{"interactions": {"0": {}}}')
    elif damage == "nested-beyond-the-stack":
        recorded_towns.write_text('{"interactions": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    elif damage == "truncated":
        recorded_towns.write_text(text[: len(text) // 2], encoding="utf-8")
    elif damage == "not-utf-8":
        recorded_towns.write_bytes(text.replace("Mayor", "M\xe4yor").encode("latin-1", "replace"))
    elif damage == "symlink-loop":
        recorded_towns.symlink_to(recorded_towns.name)
    elif damage == "a-directory":
        recorded_towns.mkdir()
    elif damage == "version-2":
        recorded_towns.write_text(text.replace('"version": 1', '"version": 2'), encoding="utf-8")
    code = main(["run", str(project), "--variant", "default", "--case", "mayor", "--reports", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "mayor.json: corrupt cassette" in err and "Traceback" not in err and err.count("\n") == 1


def test_recorded_cassettes_are_written_0644_like_the_shipped_ones(recorded_towns, tmp_path):
    import stat

    assert stat.S_IMODE(recorded_towns.stat().st_mode) == 0o644
    # saving over an existing cassette keeps the mode too, whatever mkstemp made
    AtomicPersister().save_cassette(recorded_towns, {"requests": [], "responses": []}, JsonSerializer())
    assert stat.S_IMODE(recorded_towns.stat().st_mode) == 0o644
    assert not [p for p in recorded_towns.parent.iterdir() if p.name.endswith(".tmp")]


AZURE_SHAPED_KEY = "0f3c" + "9a7e5b1d" * 3 + "2c4e"  # 32 hex digits: no sk- or Bearer shape


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["plain", "base64", "base64-of-header", "url", "json"])
def test_an_echoed_key_is_scrubbed_from_everything_written(encoding, suite, project, tmp_path, monkeypatch):
    import base64
    from urllib.parse import quote

    from ..support.fake_server import EchoCredentials

    from ..conftest import all_files_text

    key = "k3y/" + AZURE_SHAPED_KEY + '+"'  # characters the encodings treat differently
    monkeypatch.setenv("OPENAI_API_KEY", key)
    encode = {
        "plain": lambda header: header,
        "base64": lambda header: base64.b64encode(header.removeprefix("Bearer ").encode()).decode(),
        "base64-of-header": lambda header: "Basic " + base64.b64encode(f"user:{header}".encode()).decode(),
        "url": lambda header: quote(header, safe=""),
        "json": lambda header: json.dumps({"auth": header}),
    }[encoding]
    echo = EchoCredentials(script_for(suite), encode)
    options = dict(variants=["default"], cases=["mayor"], fresh=True)
    with FakeOpenAIServer(echo) as srv:
        echo.server = srv
        recorded = run_suite(suite, RunOptions(record_mode="once", reports_dir=project.parent.parent / "reports",
                                               base_url=srv.base_url, **options))
    assert not recorded.missing and not recorded.failures
    assert any("[REDACTED]" in r.output for row in recorded.results for r in row.rounds)
    written = all_files_text(project.parent.parent)
    for form in (key, AZURE_SHAPED_KEY, encode(f"Bearer {key}").split()[-1], json.dumps(key)[1:-1]):
        assert form not in written
    assert {f.kind for f in audit_suites([suite])} == {"missing"}  # only the cases not recorded here
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "rep", **options))
    assert _rows(recorded.run_dir) == _rows(replayed.run_dir)


@pytest.mark.slow
@pytest.mark.parametrize("key_env", ["AZURE_OPENAI_API_KEY", "OPENAI_API_KEY", "TOWNS_KEY"])
@pytest.mark.parametrize("shown", ["plain", "base64", "url"])
def test_audit_finds_the_configured_key_whatever_its_shape(key_env, shown, recorded_towns, project, monkeypatch):
    import base64
    from urllib.parse import quote


    key = AZURE_SHAPED_KEY + "/+x"
    if key_env == "TOWNS_KEY":  # the suite's own key variable
        project.write_text(project.read_text().replace("max_retries: 3", "max_retries: 3\n  api_key_env: TOWNS_KEY"))
    monkeypatch.setenv(key_env, key)
    suite = load_suite(project)
    written = {"plain": key, "base64": base64.b64encode(f"me:{key}".encode()).decode(), "url": quote(key, safe="")}[shown]
    text = recorded_towns.read_text(encoding="utf-8")
    recorded_towns.write_text(text.replace("Mayor", f"Mayor {written}", 1), encoding="utf-8")
    findings = [f for f in audit_suites([suite]) if f.kind == "credential"]
    assert [(Path(f.path.rsplit(":", 1)[0]).name, f.detail.split(":")[0]) for f in findings] == [
        ("mayor.json", "configured-key")
    ]
    assert key not in findings[0].detail and AZURE_SHAPED_KEY[:12] not in findings[0].detail
    assert scan_credentials(recorded_towns) == []  # without the configured key, nothing of its shape is known


def cassette_of_copies(folder: Path, base: dict, n: int, indent: int | None = None) -> Path:
    """A cassette holding `base`'s interactions n times over (growth tests: n is the size)."""
    path = folder / f"many-{n}.json"
    path.write_text(json.dumps({**base, "interactions": base["interactions"] * n}, indent=indent), encoding="utf-8")
    return path


@pytest.mark.slow
def test_audit_credential_scan_grows_linearly_with_interactions(tmp_path):
    from harness.run.audit import scan_credentials
    from harness.redaction import Redactor

    from ..support.growth import assert_linear

    key = AZURE_SHAPED_KEY
    leaked = "Bearer " + "abcdefghij" * 2  # built here so the repository holds no credential-like text
    interaction = {"request": {"body": {"json": {"messages": [{"content": "<think>" * 20}]}}},
                   "response": {"body": {"string": f"{leaked} {key}"}}}
    make = partial(cassette_of_copies, tmp_path, {"interactions": [interaction]}, indent=1)

    redactor = Redactor([key])
    findings = scan_credentials(make(50), redactor)
    assert len(findings) == 100 and len({f.path for f in findings}) == 50  # each leak on its own line
    assert_linear(partial(scan_credentials, redactor=redactor), make, 120)


def test_audit_of_a_corrupt_cassette_exits_2_naming_it_and_still_reports_the_rest(recorded_towns, project, capsys):
    from harness.cli import main

    data = json.loads(recorded_towns.read_text(encoding="utf-8"))
    data["interactions"][0]["response"]["status"]["code"] = "200"
    recorded_towns.write_text(json.dumps(data), encoding="utf-8")
    loop = recorded_towns.with_name("fair.json")
    loop.symlink_to(loop.name)
    code = main(["cassettes", "audit", str(project)])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert "fair.json: corrupt cassette: cannot read it" in err and "(and 1 more corrupt)" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert "mayor.json: corrupt cassette: interactions[0].response.status.code" in out
    assert "missing: " in out  # the other findings are still listed


@pytest.mark.slow
def test_loading_and_validating_a_cassette_grows_linearly_with_interactions(recorded_towns, tmp_path):
    from ..support.growth import assert_linear

    base = json.loads(recorded_towns.read_text(encoding="utf-8"))
    make = partial(cassette_of_copies, tmp_path, base)

    assert len(CassetteStore.load(make(3)).recordings) == 3 * len(base["interactions"])
    assert_linear(CassetteStore.load, make, 20)


def test_a_cassette_holding_a_lone_surrogate_escape_replays(recorded_towns, project, tmp_path):
    text = recorded_towns.read_text(encoding="utf-8")
    assert text.count("<|>Mayor)") == 2  # the first answer, and the same text sent back for gleaning
    recorded_towns.write_text(text.replace("<|>Mayor)", "<|>Mayor\\ud800)"), encoding="utf-8")
    outcome = run_suite(load_suite(project), RunOptions(record_mode="none", reports_dir=tmp_path / "rep",
                                                        variants=["default"], cases=["mayor"]))
    assert not outcome.missing and not outcome.failures
    assert "<|>Mayor\ufffd)" in outcome.results[0].rounds[0].output


def _completion_bytes(content: str, encoding: str = "utf-8") -> bytes:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
    return json.dumps(body, ensure_ascii=False).encode(encoding)


@pytest.mark.slow
@pytest.mark.parametrize("first", ["utf-16", "utf-16-charset", "not-json-then-good"])
def test_odd_answer_bodies_record_and_replay(suite, api_key, tmp_path, monkeypatch, first):
    """A UTF-16 JSON answer (json.loads reads it, so the client does) and a retried non-JSON answer
    both record into a cassette that loads and replays to the same rows."""
    from ..support.fake_server import RawReply, Script

    answer = '("entity"<|>ANA RUIZ<|>person<|>Mayor)\n<|COMPLETE|>'
    replies = iter([b"\xff\xfe not json", _completion_bytes(answer)] if first == "not-json-then-good"
                   else [_completion_bytes(answer, "utf-16")])
    content_type = "application/json; charset=utf-16" if first == "utf-16-charset" else "application/json"

    def raw(_body):
        return RawReply(200, {"Content-Type": content_type}, next(replies))

    options = dict(variants=["default"], cases=["mayor"], fresh=True)
    suite.spec.model.max_gleanings = 0
    with FakeOpenAIServer(Script(), raw=raw) as srv:
        recorded = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec",
                                               base_url=srv.base_url, **options))
    assert not recorded.missing and not recorded.failures
    assert recorded.results[0].rounds[0].output == answer
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "rep", **options))
    assert not replayed.missing and not replayed.failures
    assert _rows(recorded.run_dir) == _rows(replayed.run_dir)


# --------------------------------------------------------------------------- latency kept in cassettes

DELAY_S = 0.05  # the fake server sleeps this long before each answer


def _interactions(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["interactions"]


def test_a_recording_keeps_each_calls_latency_and_a_replay_reports_it_as_recorded(suite, api_key, tmp_path, monkeypatch):
    options = dict(variants=["default"], cases=["mayor"], fresh=True)
    with FakeOpenAIServer(script_for(suite), Faults(latency_s=DELAY_S)) as srv:
        recorded = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec",
                                               base_url=srv.base_url, **options))
    assert not recorded.missing and not recorded.failures
    cassette = suite.cassette_dir() / "default" / "mayor.json"
    kept = [item["response"]["harness"]["latency_s"] for item in _interactions(cassette)]
    live = recorded.results[0].rounds
    assert len(kept) == len(live) == 2  # the extraction and its gleaning round, each with its own latency
    # the server slept before answering: the kept latency is the call's, not the time to write it
    assert all(value >= DELAY_S for value in kept)
    assert [r.latency_s for r in live] == kept and {r.latency_from for r in live} == {"measured"}
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "rep", **options))
    rounds = replayed.results[0].rounds
    assert [r.latency_s for r in rounds] == kept and {r.latency_from for r in rounds} == {"recorded"}
    assert replayed.results[0].latency_s == pytest.approx(sum(kept))


def test_a_cassette_with_latencies_still_loads_in_vcrpy_and_plays_them_back_in_record_mode_once(
    recorded_towns, suite, tmp_path, monkeypatch
):
    # vcrpy's own loader, through the harness's persister: the extra key rides along in the response
    requests, responses = AtomicPersister.load_cassette(recorded_towns, JsonSerializer())
    assert len(requests) == 2 and all("latency_s" in r["harness"] for r in responses)
    kept = [item["response"]["harness"]["latency_s"] for item in _interactions(recorded_towns)]
    # mode once: vcrpy answers from the cassette (no server runs), and the rows say what it kept
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "y" * 20)
    again = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "once", variants=["default"],
                                        cases=["mayor"], fresh=True))
    assert not again.missing and not again.failures
    rounds = again.results[0].rounds
    assert [r.latency_s for r in rounds] == kept and {r.latency_from for r in rounds} == {"recorded"}


def test_a_cassette_recorded_before_latencies_were_kept_replays_with_latency_n_a(recorded_towns, suite, tmp_path):
    data = json.loads(recorded_towns.read_text(encoding="utf-8"))
    for item in data["interactions"]:
        del item["response"]["harness"]  # as every cassette written before this was
    recorded_towns.write_text(json.dumps(data), encoding="utf-8")
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "rep", variants=["default"],
                                           cases=["mayor"], fresh=True))
    row = replayed.results[0]
    assert row.rounds and all(r.latency_s is None and r.latency_from is None for r in row.rounds)
    assert row.latency_s is None  # n/a, never 0


def test_batch_answers_are_marked_in_the_cassette_and_replay_as_batch(tmp_path):
    from harness.llm.cassettes import write_exchanges

    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "x"}}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}).encode()
    request = Request("POST", "https://api.example.com/v1/chat/completions", json.dumps(BODY).encode(),
                      {"Content-Type": "application/json"})
    path = tmp_path / "c.json"
    assert write_exchanges(path, [(request, 200, body)], batch=True)
    stored = _interactions(path)[0]["response"]["harness"]
    assert stored == {"batch": True}  # no latency: a batch measures none per call
    recording = CassetteStore.load(path).recordings[0]
    assert recording.batch and recording.latency_s is None
