"""End to end against the local OpenAI-compatible server: record, replay, resume, faults."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..support.fake_server import FakeOpenAIServer, Faults
from harness.runfolder import read_results
from harness.run.schedule import RunOptions, Unsettled, run_suite
from harness.suites import load_suite

from ..conftest import SECRET, all_files_text, script_for


def strip_timings(value):
    """Results are reproducible apart from timings, which live only under keys ending in _s, and
    where a round's latency came from (`latency_from`: measured when recording, recorded in a replay)."""
    if isinstance(value, dict):
        return {k: strip_timings(v) for k, v in value.items() if not k.endswith("_s") and k != "latency_from"}
    if isinstance(value, list):
        return [strip_timings(v) for v in value]
    return value


def rows_of(run_dir: Path) -> list[dict]:
    return [strip_timings(json.loads(line)) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def record(suite, server, tmp_path, **kw) -> object:
    options = RunOptions(record_mode=kw.pop("mode", "once"), reports_dir=tmp_path / "reports",
                         base_url=server.base_url, fresh=True, **kw)
    return run_suite(suite, options)


def replay(suite, tmp_path, **kw):
    return run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "reports", fresh=True, **kw))


def test_record_then_replay_offline_gives_identical_results(suite, server, api_key, tmp_path, monkeypatch):
    recorded = record(suite, server, tmp_path)
    assert not recorded.missing and not recorded.failures
    assert server.calls == 2 * 3 * 2  # two variants, three cases, one gleaning round each
    server.stop()
    monkeypatch.delenv("OPENAI_API_KEY")  # replay needs no key
    replayed = replay(suite, tmp_path)
    assert not replayed.missing and not replayed.failures
    assert rows_of(recorded.run_dir) == rows_of(replayed.run_dir)
    assert len(rows_of(replayed.run_dir)) == 6


def test_gleaning_rounds_are_kept_and_parsed_separately(suite, server, api_key, tmp_path):
    outcome = record(suite, server, tmp_path)
    row = next(r for r in outcome.results if r.variant == "default" and r.case_id == "mayor")
    assert [r.kind for r in row.rounds] == ["extract", "continue"]
    assert row.rounds[1].output.startswith('("entity"<|>KESTREL TRUST')
    by_round = {e.name: e.round for e in row.graph.entities}
    assert by_round["KESTREL TRUST"] == 1 and by_round["ANA RUIZ"] == 0
    assert len(row.round_reports) == 2


def test_changed_prompt_makes_exactly_its_cassettes_stale(suite, server, api_key, tmp_path, project):
    record(suite, server, tmp_path)
    tuned = project.parent.parent / "prompts" / "tuned.txt"
    tuned.write_text(tuned.read_text() + "\nBe thorough.", encoding="utf-8")
    outcome = replay(load_suite(project), tmp_path)
    assert sorted(m.cassette for m in outcome.missing) == [("tuned", "fair", "stale"), ("tuned", "flood", "stale"),
                                                           ("tuned", "mayor", "stale")]
    assert {r.variant for r in outcome.results} == {"default"}


def test_no_credential_is_written_anywhere(suite, server, api_key, tmp_path, project):
    record(suite, server, tmp_path)
    sent = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
    assert sent["authorization"] == f"Bearer {SECRET}"  # it was sent...
    text = all_files_text(project.parent.parent)
    assert SECRET not in text  # ...and never stored
    assert "org-fake-should-not-be-recorded" not in text
    assert "Bearer" not in text


def test_cassette_holds_only_successes_and_decoded_bodies(suite, api_key, tmp_path):
    faults = Faults(first_500=1, gzip=True)
    with FakeOpenAIServer(script_for(suite), faults) as srv:
        outcome = record(suite, srv, tmp_path, variants=["default"], cases=["mayor"])
    assert not outcome.failures
    data = json.loads((suite.cassette_dir() / "default" / "mayor.json").read_text())
    statuses = [i["response"]["status"]["code"] for i in data["interactions"]]
    assert statuses == [200, 200]
    body = data["interactions"][0]["response"]["body"]["string"]
    assert body["json"]["choices"][0]["message"]["content"].startswith('("entity"')
    assert set(data["interactions"][0]["response"]["headers"]) == {"content-type"}


@pytest.mark.slow
def test_faults_are_retried_and_no_call_is_lost(suite, api_key, tmp_path):
    faults = Faults(rate_429=0.2, rate_500=0.1, rate_drop=0.1, retry_after_s=0.01, seed=3)
    with FakeOpenAIServer(script_for(suite), faults) as srv:
        outcome = record(suite, srv, tmp_path)
    assert not outcome.failures and not outcome.missing
    assert len(outcome.results) == 6
    assert outcome.retries > 0


@pytest.mark.slow
def test_model_errors_after_retries_are_failures(suite, api_key, tmp_path):
    with FakeOpenAIServer(script_for(suite), Faults(rate_500=1.0)) as srv:
        outcome = record(suite, srv, tmp_path, variants=["default"], cases=["mayor"])
    assert outcome.failures and (outcome.failures[0].variant, outcome.failures[0].case_id) == ("default", "mayor")
    assert not (suite.cassette_dir() / "default" / "mayor.json").exists()


def test_missing_cassette_is_reported_per_case(suite, server, api_key, tmp_path):
    record(suite, server, tmp_path)
    (suite.cassette_dir() / "tuned" / "flood.json").unlink()
    outcome = replay(suite, tmp_path)
    assert outcome.missing == [Unsettled("tuned", "flood", "missing")]
    assert len(outcome.results) == 5


@pytest.mark.slow
def test_resume_after_kill_9_ends_with_the_same_results(project, api_key, tmp_path):
    suite = load_suite(project)
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    reports = tmp_path / "reports"
    with FakeOpenAIServer(script_for(suite), Faults(latency_s=0.4)) as srv:
        cmd = [sys.executable, "-m", "harness.cli", "record", str(project), "--base-url", srv.base_url,
               "--concurrency", "1", "--reports", str(reports), "--run-id", "interrupted"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        results = reports / "towns" / "interrupted" / "results.jsonl"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if results.exists() and len(results.read_text().splitlines()) >= 2:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        partial = len(results.read_text().splitlines())
        assert 2 <= partial < 6, "the run should have been killed part-way"
        assert not (results.parent / "summary.json").exists()
        calls_before = srv.calls
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        # only the unfinished cases were called again (2 calls per case; one may have been in flight)
        assert srv.calls - calls_before <= 2 * (6 - partial) + 2
        # an uninterrupted run for comparison, replayed from the same cassettes
    fresh = replay(load_suite(project), tmp_path)
    assert rows_of(results.parent) == rows_of(fresh.run_dir)
    assert (results.parent / "summary.json").exists()


def test_torn_last_line_is_ignored_when_resuming(suite, server, api_key, tmp_path):
    first = record(suite, server, tmp_path)
    path = first.run_dir / "results.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:40])  # killed while writing the fourth row
    assert len(read_results(path)) == 3
    again = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "reports", run_id=first.run_dir.name))
    assert again.resumed == 3
    assert len(again.results) == 6


def test_yaml_template_declarations_drive_rendering_parsing_and_gleaning(project, api_key, tmp_path):
    """A variant that sets nothing takes format, delimiters and entity types from its template."""
    import yaml as _yaml

    root = project.parent.parent
    (root / "prompts" / "light.yaml").write_text(_yaml.safe_dump({
        "name": "light",
        "format": "lightrag",
        "entity_types": ["person", "geo"],
        "tuple_delimiter": "<|#|>",
        "record_delimiter": "##",
        "completion_delimiter": "<|COMPLETE|>",
        "user": "Types: {entity_types}. Fields split by {tuple_delimiter}.\nText: {input_text}\nOutput:",
        "continue_prompt": "Add what you missed, fields split by {tuple_delimiter}, then {completion_delimiter}.",
    }), encoding="utf-8")
    data = _yaml.safe_load(project.read_text())
    data["variants"] = {"light": {"prompt": "prompts/light.yaml"}}
    data["baseline"] = "light"
    data["cases"] = data["cases"][:1]
    project.write_text(_yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    suite = load_suite(project)
    from ..support.fake_server import Script
    from harness.run.plan import plan_variant

    plan = plan_variant(suite, "light")
    first = plan.render(suite.cases[0])[0]["content"]
    assert "Types: person,geo. Fields split by <|#|>." in first
    script = Script(rounds={first: ["entity<|#|>ANA RUIZ<|#|>person<|#|>Mayor\n<|COMPLETE|>",
                                    "entity<|#|>LOWBRIDGE<|#|>geo<|#|>Town\n<|COMPLETE|>"]})
    with FakeOpenAIServer(script) as srv:
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path, base_url=srv.base_url))
        continue_sent = srv.requests[1]["body"]["messages"][-1]["content"]
    assert continue_sent == "Add what you missed, fields split by <|#|>, then <|COMPLETE|>."
    row = outcome.results[0]
    assert row.format_report.format == "lightrag"
    assert [(e.name, e.round) for e in row.graph.entities] == [("ANA RUIZ", 0), ("LOWBRIDGE", 1)]


def _run_printed_command(line: str) -> None:
    """Run the command a hint prints, as a shell would (`&&` between harness commands)."""
    import shlex

    from harness.cli import main

    for part in line.split(" && "):
        argv = shlex.split(part)
        assert argv[0] == "harness", line
        assert main(argv[1:]) == 0, part


@pytest.mark.slow
def test_stale_hint_rerecords_exactly_the_stale_and_missing_cases(suite, server, api_key, tmp_path, project,
                                                                  capsys, monkeypatch):
    from harness.cli import main

    record(suite, server, tmp_path)
    cassettes = suite.cassette_dir()
    # tuned's prompt changes (its 3 cassettes go stale) and one default cassette is lost
    prompt = project.parent.parent / "prompts" / "tuned.txt"
    prompt.write_text(prompt.read_text() + "\nBe thorough.\n")
    (cassettes / "default" / "flood.json").unlink()
    untouched = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (cassettes / "default").glob("*.json")}
    assert len(untouched) == 2
    edited = load_suite(project)
    capsys.readouterr()
    assert main(["run", str(project), "--reports", str(tmp_path / "replays")]) == 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "(and 3 more)" in err
    command = err.split("with: ", 1)[1].strip()
    with FakeOpenAIServer(script_for(edited), Faults()) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        _run_printed_command(command)
        assert srv.calls == 8  # 4 cases x 2 rounds: nothing but the stale and missing cases was called
    capsys.readouterr()
    assert main(["run", str(project), "--reports", str(tmp_path / "replays")]) == 0, capsys.readouterr().err
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in untouched} == untouched


@pytest.mark.slow
def test_stale_hint_is_one_harness_command_when_the_stale_cases_form_a_grid(suite, server, api_key, tmp_path,
                                                                          project, capsys, monkeypatch):
    from harness.cli import main

    record(suite, server, tmp_path)
    for name in ("default.txt", "tuned.txt"):
        prompt = project.parent.parent / "prompts" / name
        prompt.write_text(prompt.read_text() + "\nBe thorough.\n")
    edited = load_suite(project)
    capsys.readouterr()
    assert main(["run", str(project), "--reports", str(tmp_path / "replays")]) == 3
    command = capsys.readouterr().err.split("with: ", 1)[1].strip()
    assert " && " not in command and "--record-mode rewrite" in command and "--case" not in command
    with FakeOpenAIServer(script_for(edited), Faults()) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        _run_printed_command(command)
    capsys.readouterr()
    assert main(["run", str(project), "--reports", str(tmp_path / "replays")]) == 0, capsys.readouterr().err


def test_each_call_is_built_and_hashed_once_and_each_prompt_rendered_once(suite, server, api_key, tmp_path, monkeypatch):
    """The first request is rendered, built and hashed by the runner and sent as built; the client
    builds and hashes only the gleaning requests, which depend on the answers."""
    from harness.llm import client as client_module
    from harness.llm.providers.openai import OpenAIProvider
    from harness.prompts.template import PromptTemplate

    record(suite, server, tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY")
    counts = {"render": 0, "build": 0, "hash": 0}

    def counted(name, original):
        def wrapper(*args, **kwargs):
            if name != "render" or kwargs.get("case"):  # a case's prompt (planning renders probes)
                counts[name] += 1
            return original(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(PromptTemplate, "render", counted("render", PromptTemplate.render))
    monkeypatch.setattr(OpenAIProvider, "build_payload", counted("build", OpenAIProvider.build_payload))
    monkeypatch.setattr(client_module, "request_hash", counted("hash", client_module.request_hash))
    import harness.run.requests as runner_module

    counts["runner_hash"] = 0
    monkeypatch.setattr(runner_module, "request_hash", counted("runner_hash", runner_module.request_hash))
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "replay", fresh=True))
    assert not outcome.missing and not outcome.failures
    cases, variants = len(suite.cases), len(suite.variant_names())
    calls = sum(len(r.rounds) for r in outcome.results)
    assert calls == outcome.calls > cases * variants  # gleaning rounds too
    assert counts["render"] == cases * variants
    assert counts["build"] == calls  # each call's body once
    # each call's hash once: the first call's by the runner (with the case's calls hash), where
    # the cassette store is asked for the gleaning calls
    assert counts["runner_hash"] == 2 * cases * variants
    assert counts["hash"] == calls - cases * variants


# --------------------------------------------------------------------------- reference-free figures per case (issue 15)


def test_each_case_gets_reference_free_figures_as_its_variant_prompt_asks(suite):
    from harness.model import Round
    from harness.run.evaluation import evaluate_case
    from harness.run.plan import plan_variant

    plan = plan_variant(suite, "default")  # types person, organization, geo, event; GraphRAG format (1 to 10)
    case = next(c for c in suite.cases if c.id == "mayor")
    answer = ('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>ENGLISH<|>TYPE<|>DESC)##'
              '("entity"<|>Ana Ruiz<|>organization<|>n/a)##'
              '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of<|>12)\n<|COMPLETE|>')
    row = evaluate_case(suite, plan, case, [Round(index=0, kind="extract", output=answer)], "h")
    rf = row.score.reference_free
    # the prompt without the chunk says "in English" (its language), a word the chunk does not have
    assert "in English." in plan.examples_text(case) and case.text not in plan.examples_text(case)
    assert (rf.entities, rf.grounded, rf.ungrounded) == (2, 1, ["ENGLISH"])  # ana ruiz (twice), english
    assert (rf.example_leaks, rf.example_leak_names) == (1, ["ENGLISH"])
    assert rf.type_conformance == pytest.approx(2 / 3)  # person, TYPE (not listed), organization
    assert (rf.duplicate_records, rf.type_conflicts) == (1, 1)  # Ana Ruiz again, as an organization
    assert (rf.relationships, rf.dangling, rf.self_loops) == (1, 1, 0)  # LOWBRIDGE is no predicted entity
    assert (rf.strengths_out_of_scale, rf.empty_descriptions) == (1, 1)  # 12 > 10; "n/a"
    assert plan.examples_text(case) is plan.examples_text(suite.cases[1])  # rendered once per plan


def test_untyped_and_lightrag_prompts_have_no_type_list_and_no_strength_scale(project):
    import yaml as _yaml

    from harness.formats import get_format
    from harness.model import Round
    from harness.run.evaluation import evaluate_case
    from harness.run.plan import plan_variant
    from harness.scoring.reference_free import GRAPHRAG_STRENGTH_SCALE

    root = project.parent.parent
    (root / "prompts" / "plain.txt").write_text("List the entities.\nText: {input_text}\nOutput:", encoding="utf-8")
    data = _yaml.safe_load(project.read_text())
    data["variants"] = {"plain": {"prompt": "prompts/plain.txt", "format": "lightrag"}}
    data["baseline"] = "plain"
    project.write_text(_yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    suite = load_suite(project)
    plan = plan_variant(suite, "plain")
    assert plan.entity_types == []  # the prompt carries no types and uses no {entity_types}
    answer = ("entity<|#|>ANA RUIZ<|#|>person<|#|>Mayor\n"
              "relation<|#|>ANA RUIZ<|#|>LOWBRIDGE<|#|>mayor<|#|>mayor of\n<|COMPLETE|>")
    row = evaluate_case(suite, plan, suite.cases[0], [Round(index=0, kind="extract", output=answer)], "h")
    rf = row.score.reference_free
    assert rf.type_conformance is None and rf.conforming_records is None  # untyped: n/a, not 0 or 1
    assert rf.example_leaks == 0  # the example text is known (the prompt), and names nothing predicted
    # the scale sits on the format registry; LightRAG's prompt asks for no strength
    assert get_format("graphrag").strength_scale == get_format("json").strength_scale == GRAPHRAG_STRENGTH_SCALE
    assert get_format("lightrag").strength_scale is None and rf.strengths_out_of_scale == 0


def test_a_suite_ontology_gives_type_conformance_its_types_and_scores_each_case(project):
    import yaml as _yaml

    from harness.model import Round
    from harness.run.evaluation import evaluate_case
    from harness.run.plan import plan_variant

    data = _yaml.safe_load(project.read_text())
    # no entity_types: the types its relations join are the ontology's types
    data["ontology"] = {"relations": [{"name": "mayorOf", "domain": "person", "range": "geo"}]}
    project.write_text(_yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    suite = load_suite(project)
    plan = plan_variant(suite, "default")
    # the ontology's types (its relation's domain and range); the prompt still renders with its own
    assert plan.conformance_types == ["person", "geo"]
    assert plan.entity_types == ["person", "organization", "geo", "event"]
    case = next(c for c in suite.cases if c.id == "mayor")
    answer = ('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>organization<|>Town)##'
              '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of<|>7)\n<|COMPLETE|>')
    row = evaluate_case(suite, plan, case, [Round(index=0, kind="extract", output=answer)], "h")
    # person is an ontology type, organization is not -> 1 of 2 records (the prompt's list would give 2/2)
    assert row.score.reference_free.type_conformance == 0.5
    # a GraphRAG relationship has no predicate: 1 record, none conforming -> 0.0, nothing checked
    onto = row.score.ontology
    assert onto is not None and (onto.records, onto.conforming, onto.conformance, onto.domain_range) == (1, 0, 0.0, None)


@pytest.mark.parametrize("name", ["podcast", "podcast-summaries"])
def test_replay_from_the_store_writes_the_bytes_replay_through_vcrpy_writes(name, tmp_path, monkeypatch):
    # `record --record-mode once` over complete cassettes replays every call through the SDK,
    # httpx and vcrpy (the old replay path); `run` answers from the cassette store without them.
    # Both must write the same results.jsonl, byte for byte once timings are taken out.
    import shutil

    repo = Path(__file__).resolve().parents[2]
    for folder in ("suites", "prompts", "fixtures"):
        shutil.copytree(repo / folder, tmp_path / folder)
    suite = load_suite(tmp_path / "suites" / f"{name}.yaml")
    before = {p: p.read_bytes() for p in suite.cassette_dir().rglob("*.json")}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-sent")  # the SDK wants a key; nothing is sent
    through_vcrpy = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "vcr", fresh=True,
                                                base_url="http://127.0.0.1:9/v1"))  # a port nobody answers on
    monkeypatch.delenv("OPENAI_API_KEY")
    from_store = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "store", fresh=True))
    for outcome in (through_vcrpy, from_store):
        assert not outcome.missing and not outcome.failures and len(outcome.results) == len(suite.cases) * len(suite.variant_names())

    def without_timings(run_dir: Path) -> list[str]:
        return [json.dumps(strip_timings(json.loads(line))) for line in (run_dir / "results.jsonl").read_text().splitlines()]

    assert without_timings(from_store.run_dir) == without_timings(through_vcrpy.run_dir)
    assert {p: p.read_bytes() for p in suite.cassette_dir().rglob("*.json")} == before  # nothing re-recorded


def test_a_case_request_is_rendered_and_hashed_once_and_replay_looks_its_answer_up_by_that_hash(monkeypatch):
    import asyncio

    from harness.errors import CassetteMissingError
    from harness.llm.cassette_store import replaying
    from harness.llm.request_digest import request_hash
    from harness.run.requests import case_request, clients_for
    from harness.run.plan import plan_variant

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = load_suite(Path(__file__).resolve().parents[2] / "suites" / "podcast.yaml")
    plan = plan_variant(suite, "default")
    client = clients_for({"default": plan}, replay=True)["default"]
    case = suite.cases[0]
    request = case_request(plan, client, case)
    assert request.messages == plan.render(case)
    assert request.digest == request_hash(request.payload)
    assert request.continue_prompt == plan.template.render_continue(request.variables)
    assert request.loop_prompt == plan.template.render_loop(request.variables)

    async def first_call(digest: str) -> str:
        with replaying(request.cassette_path(suite)):
            return (await client.chat(request.messages, payload=request.payload, digest=digest)).text

    assert asyncio.run(first_call(request.digest))  # the recorded answer
    with pytest.raises(CassetteMissingError):  # the store is asked by the digest given, not a fresh hash
        asyncio.run(first_call("0" * 64))


def _limit_tuned(project: Path, cases: list[str]) -> None:
    import yaml

    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    data["variants"]["tuned"]["cases"] = cases
    project.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_a_variant_runs_only_the_cases_it_lists_and_compares_on_the_shared_ones(project, api_key, tmp_path,
                                                                                 monkeypatch, capsys):
    """A variant's `cases:` list (issue 27, item 4): it is recorded, replayed (in this process
    and by the replay pool), summarised, compared with the baseline and audited on its cases
    only; the cases it does not list are neither run nor reported missing."""
    from harness.cli import main
    from harness.finish import finish_outcome
    from harness.run.audit import audit_suites
    from harness.reports.console import cases_line

    _limit_tuned(project, ["fair", "mayor"])  # suite order wins: mayor, then fair
    suite = load_suite(project)
    with FakeOpenAIServer(script_for(suite), Faults()) as srv:
        recorded = record(suite, srv, tmp_path)
        assert srv.calls == (3 + 2) * 2  # default on three cases, tuned on two; one gleaning each
    assert not recorded.missing and not recorded.failures
    assert [(r.variant, r.case_id) for r in recorded.results] == [
        ("default", "mayor"), ("default", "flood"), ("default", "fair"), ("tuned", "mayor"), ("tuned", "fair")]
    assert not (suite.cassette_dir() / "tuned" / "flood.json").exists()
    assert audit_suites([suite]) == []  # nothing missing, nothing orphaned

    monkeypatch.delenv("OPENAI_API_KEY")
    here = replay(suite, tmp_path)
    pooled = replay(suite, tmp_path, workers=2)
    assert not here.missing and not pooled.missing
    assert rows_of(here.run_dir) == rows_of(pooled.run_dir) == rows_of(recorded.run_dir)

    summary = finish_outcome(here, record_mode="none").summary
    assert (summary.variants["default"].cases, summary.variants["tuned"].cases) == (3, 2)
    paired = summary.comparisons["tuned"].cases
    assert (paired.paired, paired.only_in_a, paired.only_in_b) == (2, ["flood"], [])
    assert cases_line(summary) == ("cases per variant: default 3, tuned 2; tuned vs default over 2 paired case(s) "
                                   "(1 only in default: left out)")
    report = (here.run_dir / "report.md").read_text(encoding="utf-8")
    assert "| paired cases (Δ over these) | — | 2 (1 only in default) |" in report

    capsys.readouterr()
    assert main(["compare", str(here.run_dir), str(here.run_dir), "--variant-a", "default", "--variant-b", "tuned"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith(f"(2 paired cases; 1 only in {here.run_dir}:default: left out; changes are B minus A)")


def test_every_variant_on_every_case_says_nothing_about_pairing(suite, server, api_key, tmp_path):
    from harness.finish import finish_outcome
    from harness.reports.console import cases_line

    outcome = record(suite, server, tmp_path)
    summary = finish_outcome(outcome, record_mode="once").summary
    assert cases_line(summary) is None
    assert "paired cases (Δ" not in (outcome.run_dir / "report.md").read_text(encoding="utf-8")


def hints_one_by_one(n: int) -> int:
    """The pytest plugin's hints: one per missing cassette of a suite of n cases."""
    from types import SimpleNamespace

    from harness.run.schedule import case_order, rerecord_command

    suite = SimpleNamespace(cases=[SimpleNamespace(id=f"c{i}") for i in range(n)], path=Path("suites/s.yaml"),
                            variant_names=lambda: ["default"])
    order = case_order(suite)  # type: ignore[arg-type]
    whole = rerecord_command(suite, [("default", f"c{i}", "missing") for i in range(0, n, 2)])  # type: ignore[arg-type]
    return len(whole) + sum(len(rerecord_command(suite, [("default", f"c{i}", "missing")], order=order))  # type: ignore[arg-type]
                            for i in range(n))


@pytest.mark.slow
def test_the_rerecord_hints_of_many_missing_cassettes_cost_linear_work() -> None:
    """Issue 28.10: each hint scanned the suite's cases once per case of its variant (quadratic)."""
    from tests.support.growth import assert_linear

    assert_linear(hints_one_by_one, int, 2_000)


def test_a_rerecord_hint_names_the_cases_in_suite_order_and_every_case_without_case(suite) -> None:
    from harness.run.schedule import rerecord_command

    assert rerecord_command(suite, [("tuned", "fair", "missing"), ("tuned", "mayor", "stale")]) == (
        f"harness record {suite.path} --variant tuned --case mayor --case fair --record-mode rewrite")
    every = [("default", case.id, "missing") for case in reversed(suite.cases)]
    assert rerecord_command(suite, every) == f"harness record {suite.path} --variant default --record-mode once"
