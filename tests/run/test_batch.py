"""`harness record --batch` against the local server's files and batches endpoints: the shipped
podcast suite (3 variants x 12 cases, max_gleanings 1: 72 calls in two phases) recorded through
the batch replays to the same results as a live recording."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.run import batch as batch_module
from harness.run.plan import plan_variant
from harness.suites import Suite, load_suite

from ..support.fake_server import FakeOpenAIServer, Script
from ..support.golden import normalise

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-batch-" + "z9y8x7w6v5u4t3s2r1q0"


def make_project(root: Path) -> Path:
    """A copy of the shipped podcast suite without its cassettes."""
    (root / "suites").mkdir(parents=True)
    shutil.copytree(REPO / "prompts", root / "prompts")
    shutil.copytree(REPO / "fixtures" / "chunks" / "podcast", root / "fixtures" / "chunks" / "podcast")
    shutil.copy(REPO / "suites" / "podcast.yaml", root / "suites" / "podcast.yaml")
    return root / "suites" / "podcast.yaml"


def script_for(suite: Suite) -> Script:
    """The hand-written answers of the shipped cassettes (as scripts/record_handwritten.py serves them)."""
    script = Script()
    for variant in suite.variant_names():
        plan = plan_variant(suite, variant)
        for case in suite.cases:
            data = yaml.safe_load((REPO / "fixtures" / "responses" / suite.name / variant / f"{case.id}.yaml")
                                  .read_text(encoding="utf-8"))
            first_user = [m["content"] for m in plan.render(case) if m["role"] == "user"][0]
            script.rounds[first_user] = [str(r) for r in data["rounds"]]
    return script


@pytest.fixture(autouse=True)
def no_real_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The poller's waits between checks, asked for and not slept (a test that wants another
    `_wait` sets its own)."""
    waits: list[float] = []
    monkeypatch.setattr(batch_module, "_wait", waits.append)
    return waits


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def harness(root: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(root)
    return main(list(args))


def replayed_results(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """results.jsonl of a replay with no key, timings masked."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert harness(root, "run", "suites/podcast.yaml", "--reports", "replayed", "--run-id", "r",
                   monkeypatch=monkeypatch) == 0
    text = (root / "replayed" / "podcast" / "r" / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in normalise(text, [str(root)]).splitlines()]


def cassettes(root: Path) -> dict[str, dict]:
    """Every cassette by its path, without the answers' ids (the server numbers its answers per path)
    and what the harness noted of each call (`noted`), where a live and a batch recording differ."""
    found = {}
    for path in sorted((root / "fixtures" / "cassettes" / "podcast").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data["interactions"]:
            item["response"]["body"]["string"]["json"].pop("id")
            item["response"].pop("harness")
        found[str(path.relative_to(root))] = data
    return found


def noted(root: Path) -> list[dict]:
    """What the harness kept of each recorded call beside vcrpy's fields (its latency, or the batch mark)."""
    return [item["response"]["harness"] for path in sorted((root / "fixtures" / "cassettes" / "podcast").rglob("*.json"))
            for item in json.loads(path.read_text(encoding="utf-8"))["interactions"]]


def without_call_facts(rows: list[dict]) -> list[dict]:
    """Rows without each round's latency, its source and the batch mark: a live recording measured
    its calls, a batch none (its calls are marked as a batch's instead)."""
    for row in rows:
        row.pop("latency_s", None)
        for round_ in row["rounds"]:
            for key in ("latency_s", "latency_from", "batch"):
                round_.pop(key, None)
    return rows


@pytest.mark.slow
def test_a_batch_recording_replays_as_a_live_one(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch) -> None:
    live, batched = tmp_path / "live", tmp_path / "batched"
    suite = load_suite(make_project(live))
    make_project(batched)
    with FakeOpenAIServer(script_for(suite)) as server:
        assert harness(live, "record", "suites/podcast.yaml", "--base-url", server.base_url, "--reports", "rec",
                       monkeypatch=monkeypatch) == 0
        live_calls = server.calls
        assert harness(batched, "record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url",
                       server.base_url, "--reports", "rec", monkeypatch=monkeypatch) == 0
        # 36 first calls in phase 1, 36 gleaning rounds (max_gleanings 1) in phase 2; nothing live
        assert server.batch_creates == 2
        assert server.batch_answered == 72 == live_calls
        assert server.calls == live_calls
    assert cassettes(batched) == cassettes(live)
    assert len(cassettes(batched)) == 36
    # live calls keep their latency; batch answers are marked, with no latency (a batch measures none)
    assert all(set(facts) == {"latency_s"} for facts in noted(live))
    assert noted(batched) == [{"batch": True}] * 72
    every = "\n".join(p.read_text(encoding="utf-8") for p in (batched / "fixtures").rglob("*.json"))
    assert KEY not in every
    assert not (batched / "fixtures" / "cassettes" / "podcast" / batch_module.STATE_FILE).exists()
    from_batch, from_live = replayed_results(batched, monkeypatch), replayed_results(live, monkeypatch)
    assert all(r["batch"] and r["latency_s"] is None for row in from_batch for r in row["rounds"])
    assert all(r["latency_from"] == "recorded" and "batch" not in r for row in from_live for r in row["rounds"])
    assert without_call_facts(from_batch) == without_call_facts(from_live)
    # the same tokens, priced at the batch prices: half of OpenAI's list prices in the built-in table
    costs = {root: json.loads((root / "replayed" / "podcast" / "r" / "summary.json").read_text(encoding="utf-8"))
             ["variants"]["default"]["cost"] for root in (live, batched)}
    assert costs[batched]["batch_calls"] == costs[batched]["calls"] > 0 and costs[live]["batch_calls"] == 0
    assert costs[batched]["usd"] == pytest.approx(costs[live]["usd"] / 2, abs=2e-6)
    monkeypatch.chdir(batched)
    assert main(["cassettes", "audit", "suites/podcast.yaml"]) == 0


@pytest.mark.slow
def test_failed_and_missing_lines_are_recorded_live(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(make_project(tmp_path))
    with FakeOpenAIServer(script_for(suite)) as server:
        # two first calls fail (error file), one gleaning round has no line at all
        server.fail_lines = lambda cid: cid in {"default/host-welcomes-guest/s0#0", "tuned/chip-fab-news/s0#0"}
        server.drop_lines = lambda cid: cid == "auto/headset-launch/s0#1"
        assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url",
                       server.base_url, "--reports", "rec", monkeypatch=monkeypatch) == 0
        # phase 1: 36 lines, 34 answered; phase 2: the 34 gleaning rounds, 33 answered
        assert server.batch_answered == 34 + 33
        # the three failed cases are recorded live, both of their calls each
        assert server.calls == 3 * 2
    assert ("70 calls in 2 phases (batch_1, batch_2); 33 cassettes written from the batch, 0 already recorded, "
            "3 failed lines retried live") in capsys.readouterr().err
    assert len(replayed_results(tmp_path, monkeypatch)) == 36  # every case replays
    assert len(list((tmp_path / "fixtures" / "cassettes" / "podcast").rglob("*.json"))) == 36


@pytest.mark.slow
def test_the_summary_line_counts_lines_retried_live(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(make_project(tmp_path))
    with FakeOpenAIServer(script_for(suite)) as server:
        server.fail_lines = lambda cid: cid == "default/acquisition-deal/s0#0"
        assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url",
                       server.base_url, "--reports", "rec", "--variant", "default", monkeypatch=monkeypatch) == 0
    err = capsys.readouterr().err
    assert ("harness: podcast: batch: 23 calls in 2 phases (batch_1, batch_2); 11 cassettes written from the batch, "
            "0 already recorded, 1 failed lines retried live") in err
    assert "next check in" in err  # the progress line while a batch is validating / in progress


@pytest.mark.slow
def test_an_interrupted_batch_is_resumed_not_paid_twice(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(make_project(tmp_path))
    state = tmp_path / "fixtures" / "cassettes" / "podcast" / batch_module.STATE_FILE

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    with FakeOpenAIServer(script_for(suite)) as server:
        args = ["record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url", server.base_url,
                "--reports", "rec", "--variant", "tuned"]
        monkeypatch.setattr(batch_module, "_wait", interrupted)
        assert harness(tmp_path, *args, monkeypatch=monkeypatch) == 130  # interrupted: "rerun to resume"
        saved = json.loads(state.read_text(encoding="utf-8"))
        assert saved["phase"] == 1 and [b["id"] for b in saved["open"].values()] == ["batch_1"]
        assert server.batch_creates == 1
        monkeypatch.setattr(batch_module, "_wait", lambda seconds: None)
        assert harness(tmp_path, *args, monkeypatch=monkeypatch) == 0
        # phase 1 resumed batch_1; only phase 2 (the gleaning rounds) created a batch
        assert server.batch_creates == 2
        assert server.batch_answered == 24 and server.calls == 0
    assert not state.exists()
    assert len(list((tmp_path / "fixtures" / "cassettes" / "podcast" / "tuned").glob("*.json"))) == 12


@pytest.mark.slow
def test_batch_id_attaches_a_batch_created_elsewhere(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(make_project(tmp_path))
    with FakeOpenAIServer(script_for(suite)) as server:
        args = ["record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url", server.base_url,
                "--reports", "rec", "--variant", "default", "--case", "acquisition-deal"]
        monkeypatch.setattr(batch_module, "_wait", lambda seconds: (_ for _ in ()).throw(KeyboardInterrupt()))
        assert harness(tmp_path, *args, monkeypatch=monkeypatch) == 130  # interrupted: "rerun to resume"
        (tmp_path / "fixtures" / "cassettes" / "podcast" / batch_module.STATE_FILE).unlink()  # lost the state
        monkeypatch.setattr(batch_module, "_wait", lambda seconds: None)
        assert harness(tmp_path, *args, "--batch-id", "batch_1", monkeypatch=monkeypatch) == 0
        assert server.batch_creates == 2  # phase 2 only
        assert server.calls == 0
    assert (tmp_path / "fixtures" / "cassettes" / "podcast" / "default" / "acquisition-deal.json").exists()


@pytest.mark.slow
def test_existing_cassettes_are_not_sent_again(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(make_project(tmp_path))
    with FakeOpenAIServer(script_for(suite)) as server:
        args = ["record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url", server.base_url,
                "--reports", "rec", "--variant", "default"]
        assert harness(tmp_path, *args, monkeypatch=monkeypatch) == 0
        assert harness(tmp_path, *args, monkeypatch=monkeypatch) == 0
        assert server.batch_creates == 2 and server.batch_answered == 24


def test_ci_never_records_a_batch(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(make_project(tmp_path))
    monkeypatch.setenv("CI", "true")
    with FakeOpenAIServer(script_for(suite)) as server:
        assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--base-url", server.base_url,
                       monkeypatch=monkeypatch) == 2
        assert server.requests == []
    assert "record mode is none" in capsys.readouterr().err
    assert not (tmp_path / "fixtures" / "cassettes").exists()


def test_batch_id_needs_batch(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch-id", "batch_1", monkeypatch=monkeypatch) == 2


@pytest.mark.slow
def test_rewrite_replaces_cassettes_and_a_failed_case_is_recorded_live_anew(
        tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(make_project(tmp_path))
    folder = tmp_path / "fixtures" / "cassettes" / "podcast" / "default"
    with FakeOpenAIServer(script_for(suite)) as server:
        args = ["record", "suites/podcast.yaml", "--batch", "--batch-poll", "1", "--base-url", server.base_url,
                "--reports", "rec", "--variant", "default", "--case", "acquisition-deal", "--case", "chip-fab-news"]
        assert harness(tmp_path, *args, monkeypatch=monkeypatch) == 0
        before = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.json")}
        server.fail_lines = lambda cid: cid == "default/chip-fab-news/s0#1"  # its gleaning round fails
        assert harness(tmp_path, *args, "--record-mode", "rewrite", monkeypatch=monkeypatch) == 0
        # first run: 2 + 2 lines; rewrite: 2 + 2 lines again (one failed), then chip-fab-news live (2 calls)
        assert server.batch_creates == 4 and server.batch_answered == 4 + 3 and server.calls == 2
    after = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.json")}
    assert sorted(after) == ["acquisition-deal.json", "chip-fab-news.json"]
    # the answers are numbered anew by the server: the rewritten cassettes hold the new ids
    assert after["acquisition-deal.json"] != before["acquisition-deal.json"]
    assert '"chatcmpl-1"' in after["chip-fab-news.json"] and '"chatcmpl-2"' in after["chip-fab-news.json"]


def test_a_provider_without_a_batch_api_is_refused(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = make_project(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["model"]["provider"] = "azure"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--base-url", "http://127.0.0.1:9/v1",
                   monkeypatch=monkeypatch) == 2
    assert "model.provider 'azure' is not supported" in capsys.readouterr().err


@pytest.mark.parametrize("state", ['{"version": 1, "phase": "two"}', '{"version": 1, "answers": {"a": []}}',
                                   '{"version": 1, "lines": ' + "9" * 5000 + "}"])
def test_a_tampered_state_file_is_one_line(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], state: str) -> None:
    """Issue 28 item 13: `int(state["phase"])` and friends raised a traceback on a hand-edited state."""
    make_project(tmp_path)
    path = tmp_path / "fixtures" / "cassettes" / "podcast" / batch_module.STATE_FILE
    path.parent.mkdir(parents=True)
    path.write_text(state, encoding="utf-8")
    code = harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--base-url", "http://127.0.0.1:9/v1",
                   monkeypatch=monkeypatch)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"harness: {path}"), err
    assert "start a new batch" in err


@pytest.mark.parametrize("status", [404, 405])
def test_an_endpoint_without_a_batch_api_says_so_in_one_line(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str], status: int) -> None:
    """Issue 28 item 13: llama.cpp and vLLM answer the files endpoint 404; the SDK's NotFoundError
    ended `record --batch` in a traceback, exit 1."""
    suite = load_suite(make_project(tmp_path))
    with FakeOpenAIServer(script_for(suite)) as server:
        server.batch_error = (status, {"error": {"message": "File Not Found", "type": "not_found_error"}})
        code = harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--base-url", server.base_url,
                       "--variant", "tuned", monkeypatch=monkeypatch)
        assert server.calls == 0  # nothing was recorded live either
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (f"harness: {server.base_url}: this endpoint has no Batch API (its files and "
                                            f"batches endpoints answer {status}; llama.cpp, vLLM and most local servers "
                                            "have none): record without --batch")


@pytest.mark.parametrize("status, code", [(401, 2), (403, 2), (500, 4)])
def test_batch_api_errors_end_in_one_line(tmp_path: Path, env, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], status: int, code: int) -> None:
    suite = load_suite(make_project(tmp_path))
    with FakeOpenAIServer(script_for(suite)) as server:
        server.batch_error = (status, {"error": {"message": f"echo {KEY}", "type": "x"}})
        assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--base-url", server.base_url,
                       "--variant", "tuned", monkeypatch=monkeypatch) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and KEY not in err and f"HTTP {status}" in err.strip().splitlines()[-1], err


@pytest.mark.slow
def test_loop_checks_and_second_gleanings_go_in_later_phases(tmp_path: Path, env,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """max_gleanings 2: continue, loop check (max_tokens 1), and a second continue where the check says Y."""
    from ..conftest import script_for as towns_script
    from ..conftest import write_project

    live, batched = tmp_path / "live", tmp_path / "batched"
    suite = load_suite(write_project(live, max_gleanings=2))
    write_project(batched, max_gleanings=2)
    script = towns_script(suite)
    mayor = [m["content"] for m in plan_variant(suite, "default").render(suite.cases[0]) if m["role"] == "user"][0]
    script.loop[mayor] = ["Y"]
    with FakeOpenAIServer(script) as server:
        assert harness(live, "record", "suites/towns.yaml", "--base-url", server.base_url, "--reports", "rec",
                       monkeypatch=monkeypatch) == 0
        live_calls = server.calls
        assert harness(batched, "record", "suites/towns.yaml", "--batch", "--batch-poll", "1", "--base-url",
                       server.base_url, "--reports", "rec", monkeypatch=monkeypatch) == 0
        # 6 cases x (first, continue, loop check "N") + default/mayor's second continue: 4 phases, 19 calls
        assert live_calls == 19 == server.batch_answered and server.batch_creates == 4
        assert server.calls == live_calls  # nothing live

    def stored(root: Path) -> dict[str, list]:
        out = {}
        for path in sorted((root / "fixtures" / "cassettes" / "towns").rglob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            out[path.name + path.parent.name] = [
                (i["request"], {**i["response"]["body"]["string"]["json"], "id": None}) for i in data["interactions"]]
        return out

    assert stored(batched) == stored(live)
    loop_request = stored(batched)["mayor.jsondefault"][2][0]["body"]["json"]
    assert loop_request["max_tokens"] == 1


def test_a_variant_with_a_case_list_is_batched_on_its_cases_only(tmp_path: Path, env) -> None:
    """`variants.<v>.cases`: plan_batch asks for the listed cases of that variant only."""
    path = make_project(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    first, *rest = data["variants"]
    some = [case["id"] for case in data["cases"][:2]]
    data["variants"][first]["cases"] = list(reversed(some))
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    suite = load_suite(path)
    todo, skipped = batch_module.plan_batch(suite, mode="once", variants=None, cases=None, base_url=None, shard=None,
                                            repeat=1)
    assert skipped == 0
    assert [c.key for c in todo if c.key.startswith(f"{first}/")] == [f"{first}/{case}/s0" for case in some]
    assert len(todo) == 2 + len(rest) * len(suite.cases)


def test_an_interrupted_batch_keeps_no_echoed_key_in_its_state(tmp_path: Path, env,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28, item 1: `.batch-state` holds the answers of finished phases and stays after a
    Ctrl-C, in a folder that is committed; an endpoint that echoes the key (plain, base64, in
    usage) must not put it there."""
    import base64

    from ..conftest import write_project

    suite_path = write_project(tmp_path)
    encoded = base64.b64encode(f"Bearer {KEY}".encode()).decode()

    def echo(body: dict) -> str:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        return f"debug {KEY} {encoded}" if len(users) == 1 else "<|COMPLETE|>"

    class Echoing(FakeOpenAIServer):
        def completion(self, body: dict, text: str, number: int) -> dict:
            answer = super().completion(body, text, number)
            answer["usage"]["note"] = KEY
            return answer

    waits = []

    def interrupted(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 2:  # phase 2 is in progress: phase 1's answers are in the state
            raise KeyboardInterrupt

    monkeypatch.setattr(batch_module, "_wait", interrupted)
    with Echoing(echo) as server:
        assert harness(tmp_path, "record", str(suite_path), "--batch", "--batch-poll", "1", "--base-url",
                       server.base_url, "--reports", "rec", "--variant", "default", monkeypatch=monkeypatch) == 130
    state = (tmp_path / "fixtures" / "cassettes" / "towns" / batch_module.STATE_FILE).read_text(encoding="utf-8")
    assert "debug [REDACTED] QmVhcmVyIH[REDACTED]" in state  # phase 1's answers are there, scrubbed
    assert KEY not in state and KEY[:16] not in state and encoded[:-4] not in state


# --------------------------------------------------------------------------- the poller (issue 28.8)


def scripted(*statuses: object) -> object:
    """An SDK whose batch answers these statuses in turn, then the last one for ever."""
    from types import SimpleNamespace

    seen: list[object] = []

    def retrieve(batch_id: str) -> object:
        status = statuses[min(len(seen), len(statuses) - 1)]
        seen.append(status)
        return SimpleNamespace(id=batch_id, status=status, request_counts=None)

    return SimpleNamespace(batches=SimpleNamespace(retrieve=retrieve), seen=seen)


@pytest.mark.parametrize("status", ["weird", "", None, 3, "Completed"])
def test_a_status_the_batch_api_does_not_have_ends_polling_at_once(status: object) -> None:
    sdk = scripted("validating", status)
    with pytest.raises(batch_module.ModelCallError, match="status the Batch API does not have") as caught:
        batch_module._poll(sdk, "batch_9", "podcast phase 1", 10.0)
    assert sdk.seen == ["validating", status]  # type: ignore[attr-defined]
    assert "batch_9" in caught.value.message and "again to resume" in caught.value.message


def test_a_status_that_keeps_going_back_ends_polling(no_real_waits: list[float]) -> None:
    sdk = scripted(*["validating", "in_progress"] * 50)
    with pytest.raises(batch_module.ModelCallError, match="went back to an earlier status 3 times"):
        batch_module._poll(sdk, "batch_9", "podcast phase 1", 10.0)
    assert len(sdk.seen) == 2 * batch_module.MAX_STEPS_BACK + 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("first", [0.0, -1.0, float("nan"), float("inf"), 1e308])
def test_waits_between_checks_stay_within_their_bounds(first: float, no_real_waits: list[float]) -> None:
    batch = batch_module._poll(scripted(*["in_progress"] * 12, "completed"), "batch_9", "podcast phase 1", first)
    assert batch.status == "completed"
    assert len(no_real_waits) == 12
    assert all(batch_module.MIN_POLL_S <= wait <= batch_module.MAX_POLL_S for wait in no_real_waits), no_real_waits


@pytest.mark.parametrize("value", ["0", "0.5", "301", "inf"])
def test_batch_poll_outside_its_bounds_is_refused(value: str, env: None, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    make_project(tmp_path)
    assert harness(tmp_path, "record", "suites/podcast.yaml", "--batch", "--batch-poll", value,
                   "--base-url", "http://127.0.0.1:9/v1", monkeypatch=monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.startswith("harness: --batch-poll:") and len(err.strip().splitlines()) == 1
