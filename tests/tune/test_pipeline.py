"""The whole tuning flow: shipped cassettes replay offline; record then replay is identical;
an interrupted tuning resumes; a changed request is reported stale; the tuned prompt is then
measured by `harness record` / `harness run` as a new variant."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.cli import main
from harness.errors import CassetteMissingError, InputError, ModelCallError
from harness.llm.client import EndpointSettings
from harness.llm.fake_server import FakeOpenAIServer
from harness.prompts import has_errors, lint_prompt, load_prompt
from harness.runner import plan_variant
from harness.suites import load_suite
from harness.tune.pipeline import TuneOptions, cassette_name, tune

from ..conftest import ANSWERS, REPO, script_for
from ..test_runner import rows_of

GOOD = {
    "mayor": ('("entity"<|>ANA RUIZ<|>person<|>Mayor of Lowbridge)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##'
              '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>She is the mayor of Lowbridge<|>8)\n<|COMPLETE|>'),
    "fair": ('("entity"<|>TOMAS BERG<|>person<|>Pie contest winner)##("entity"<|>OAKFIELD FAIR<|>event<|>Fair)##'
             '("relationship"<|>TOMAS BERG<|>OAKFIELD FAIR<|>He won the pie contest at the fair<|>7)\n<|COMPLETE|>'),
}
STEPS = {
    "TASK: domain": "Small-town news",
    "TASK: language": "English",
    "TASK: persona": "You are an editor who maps who does what in small towns.",
    "TASK: rating": "A score from 0 to 10 for how much the community matters to the town, 10 for the whole town.",
    "TASK: entity-types": '{"entity_types": ["person", "organization", "geo", "event"]}',
}


class Responder:
    """Answers tuning questions by their TASK line and extractions by the case they carry."""

    def __init__(self, cases: dict[str, str], fail_once: str | None = None) -> None:
        self.cases = cases
        self.fail_once = fail_once
        self.asked: list[str] = []

    def __call__(self, body: dict[str, Any]) -> str:
        text = body["messages"][-1]["content"]
        first = text.splitlines()[0]
        if first in STEPS:
            self.asked.append(first)
            return STEPS[first]
        if "-Real Data-" not in text:  # a run of the suite's own variants
            return script_for_runs(body)
        case = next(cid for cid, chunk in self.cases.items() if chunk in text)
        self.asked.append(case)
        if case == self.fail_once:
            self.fail_once = None
            raise KeyError("the server fell over")  # answered as HTTP 400: not retried
        return GOOD.get(case, "Sorry, I cannot do that.")


def script_for_runs(body: dict[str, Any]) -> str:
    raise KeyError("not a tuning call")


def options(suite, out: Path, cassettes: Path, mode: str, base_url: str | None = None, **extra: Any) -> TuneOptions:
    return TuneOptions(texts=[c.text for c in suite.cases], names=[c.id for c in suite.cases], out=out,
                       cassettes=cassettes, endpoint=EndpointSettings(model="gpt-4o-mini", base_url=base_url,
                                                                      max_retries=0),
                       record_mode=mode, **{"selection": "all", "limit": 3, **extra})


def test_shipped_podcast_tuning_replays_offline_and_passes_lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("CI", "true")
    out = tmp_path / "podcast-auto.yaml"
    code = main(["tune", "--suite", str(REPO / "suites" / "podcast.yaml"), "--out", str(out),
                 "--selection", "top", "--limit", "6"])
    assert code == 0
    for name in ("podcast-auto.yaml", "podcast-auto.summarize_descriptions.yaml", "podcast-auto.community_report.yaml"):
        assert not has_errors(lint_prompt(tmp_path / name)), name
    report = json.loads((tmp_path / "podcast-auto.tuning.json").read_text())
    assert report["language"] == "English" and any("reduced" in n for n in report["notes"])
    assert report["entity_types"] == ["person", "organization", "product", "technology", "location", "event"]
    assert report["examples_kept"] == ["host-welcomes-guest", "series-a-funding", "headset-launch"]
    assert {r["chunk"]: r["kind"] for r in report["examples_rejected"]} == {
        "acquisition-deal": "refusal", "outage-postmortem": "copied", "conference-recap": "summary"}
    assert report["tokens"]["extract_graph"] <= report["tokens"]["budget"]
    assert report["usage"]["calls"] == 11
    markdown = (tmp_path / "podcast-auto.tuning.md").read_text()
    assert "| conference-recap | rejected | summary:" in markdown
    # the tuned prompt renders the suite's cases with the kept examples, and none of the poison
    template = load_prompt(out)
    suite = load_suite(REPO / "suites" / "podcast.yaml")
    messages = template.render(plan_variant(suite, "tuned").variables(suite.cases[0]))
    assert messages[0]["role"] == "system" and messages[0]["content"].startswith("You are an analyst")
    user = messages[-1]["content"]
    assert "KESTREL ONE" in user and suite.cases[0].text in user
    assert "I'm sorry" not in user and "MARLOW VALLEY" not in user and "examples above" not in user
    report_prompt = (tmp_path / "podcast-auto.community_report.yaml").read_text()
    assert report["rating_description"] in report_prompt


def test_the_token_budget_drops_examples_but_keeps_the_minimum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    out = tmp_path / "small.yaml"
    assert main(["tune", "--suite", str(REPO / "suites" / "podcast.yaml"), "--out", str(out), "--selection", "top",
                 "--limit", "6", "--max-tokens", "1000", "--min-examples", "1"]) == 0
    report = json.loads((tmp_path / "small.tuning.json").read_text())
    assert report["examples_kept"] == ["host-welcomes-guest"]
    assert report["examples_dropped_for_token_budget"] == ["series-a-funding", "headset-launch"]
    assert any("over the budget" in n for n in report["notes"])  # one example alone is over 1000 tokens
    assert main(["tune", "--suite", str(REPO / "suites" / "podcast.yaml"), "--out", str(out), "--selection", "top",
                 "--limit", "6", "--min-examples", "4"]) == 2  # three usable examples cannot make four


def test_record_then_replay_gives_identical_files(project: Path, api_key: str, tmp_path: Path) -> None:
    suite = load_suite(project)
    responder = Responder({c.id: c.text for c in suite.cases})

    def files(folder: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}

    with FakeOpenAIServer(responder) as srv:
        tune(options(suite, tmp_path / "a" / "t.yaml", tmp_path / "cassettes", "once", srv.base_url))
        assert srv.calls == 5 + 3
    recorded = files(tmp_path / "a")
    tune(options(suite, tmp_path / "b" / "t.yaml", tmp_path / "cassettes", "none"))  # server stopped
    replayed = files(tmp_path / "b")
    report = json.loads(replayed.pop("t.tuning.json"))
    recorded_report = json.loads(recorded.pop("t.tuning.json"))
    assert report.pop("prompts") != recorded_report.pop("prompts")  # the only difference: where files went
    assert report == recorded_report
    assert replayed.keys() == recorded.keys() and all(
        replayed[k] == recorded[k] for k in replayed if not k.endswith(".md"))
    assert [(r["chunk"], r["kind"]) for r in report["examples_rejected"]] == [("flood", "refusal")]
    assert sorted(p.name for p in (tmp_path / "cassettes").iterdir()) == sorted(
        ["domain.json", "language.json", "persona.json", "rating.json", "entity_types.json",
         cassette_name("mayor"), cassette_name("flood"), cassette_name("fair")])
    assert api_key not in "".join(p.read_text() for p in (tmp_path / "cassettes").iterdir())


def test_an_interrupted_tuning_resumes_from_what_was_recorded(project: Path, api_key: str, tmp_path: Path) -> None:
    suite = load_suite(project)
    responder = Responder({c.id: c.text for c in suite.cases}, fail_once="fair")
    with FakeOpenAIServer(responder) as srv:
        with pytest.raises(ModelCallError):
            tune(options(suite, tmp_path / "t.yaml", tmp_path / "cassettes", "once", srv.base_url))
        assert not (tmp_path / "t.yaml").exists()
        first = list(responder.asked)
        tune(options(suite, tmp_path / "t.yaml", tmp_path / "cassettes", "once", srv.base_url))
    assert sorted(first) == sorted([*STEPS, "mayor", "flood", "fair"])
    assert responder.asked[len(first):] == ["fair"]  # only the step that failed is asked again
    assert json.loads((tmp_path / "t.tuning.json").read_text())["examples_kept"] == ["mayor", "fair"]


def test_a_changed_request_is_stale_not_silently_replayed(project: Path, api_key: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(project)
    with FakeOpenAIServer(Responder({c.id: c.text for c in suite.cases})) as srv:
        tune(options(suite, tmp_path / "t.yaml", tmp_path / "cassettes", "once", srv.base_url))
    with pytest.raises(CassetteMissingError, match="rewrite"):  # other samples: the domain question differs
        tune(options(suite, tmp_path / "u.yaml", tmp_path / "cassettes", "none", selection="top", limit=2))
    with pytest.raises(CassetteMissingError, match="--record-mode once"):
        tune(options(suite, tmp_path / "u.yaml", tmp_path / "elsewhere", "none"))
    monkeypatch.setenv("CI", "true")
    code = main(["tune", "--suite", str(project), "--out", str(tmp_path / "v.yaml"), "--cassettes",
                 str(tmp_path / "elsewhere"), "--selection", "all"])
    assert code == 3


def test_given_domain_language_and_types_skip_their_questions(project: Path, api_key: str, tmp_path: Path) -> None:
    suite = load_suite(project)
    responder = Responder({c.id: c.text for c in suite.cases})
    with FakeOpenAIServer(responder) as srv:
        result = tune(options(suite, tmp_path / "t.yaml", tmp_path / "c", "once", srv.base_url, domain="Town news",
                              language="English", entity_types=["person", "geo", "event"]))
    assert set(responder.asked) & set(STEPS) == {"TASK: persona", "TASK: rating"}
    assert result.report["domain"] == "Town news" and result.report["entity_types"] == ["person", "geo", "event"]


def test_too_few_usable_examples_is_a_clear_error(project: Path, api_key: str, tmp_path: Path) -> None:
    suite = load_suite(project)
    with FakeOpenAIServer(Responder({c.id: c.text for c in suite.cases})) as srv:
        with pytest.raises(InputError, match="only 2 usable example"):
            tune(options(suite, tmp_path / "t.yaml", tmp_path / "c", "once", srv.base_url, min_examples=3))


def test_tune_then_measure_the_new_variant_end_to_end(project: Path, api_key: str, tmp_path: Path) -> None:
    """`tune --add-variant` records the tuning, `record` the new variant's runs; then everything replays offline."""
    suite = load_suite(project)
    tuning = Responder({c.id: c.text for c in suite.cases})
    runs = script_for(suite)

    def respond(body: dict[str, Any]) -> str:
        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        if user[0].splitlines()[0] in STEPS or "MARLOW VALLEY" in user[0]:  # tuning (built-in examples)
            return tuning(body)
        try:
            return runs(body)  # the suite's own variants
        except KeyError:  # the new variant: its examples are the kept answers; the case follows -Real Data-
            real = user[0].split("-Real Data-")[-1]
            case = next(c for c in suite.cases if c.text in real)
            return (GOOD.get(case.id) or ANSWERS["tuned"][case.id][0]) if len(user) == 1 else "<|COMPLETE|>"

    out = project.parent.parent / "prompts" / "auto.yaml"
    with FakeOpenAIServer(respond) as srv:
        assert main(["tune", "--suite", str(project), "--out", str(out), "--selection", "all", "--base-url",
                     srv.base_url, "--add-variant", "auto"]) == 0
        assert load_suite(project).variant_names() == ["default", "tuned", "auto"]
        assert main(["record", str(project), "--base-url", srv.base_url, "--reports", str(tmp_path / "r1")]) == 0
    first = next((tmp_path / "r1" / "towns").iterdir())
    assert main(["run", str(project), "--record-mode", "none", "--reports", str(tmp_path / "r2")]) == 0
    second = next((tmp_path / "r2" / "towns").iterdir())
    assert rows_of(first) == rows_of(second)  # the same results, offline
    assert "auto" in json.loads((second / "summary.json").read_text())["variants"]
    # and the tuning itself replays with the same prompt
    again = tmp_path / "again.yaml"
    assert main(["tune", "--suite", str(project), "--out", str(again), "--selection", "all",
                 "--record-mode", "none"]) == 0
    assert again.read_text().replace("again", "auto") == out.read_text()



def test_tune_from_a_folder_of_text_files(tmp_path: Path, api_key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    texts = {"a/mayor.txt": "Mayor Ana Ruiz of Lowbridge opened the Lowbridge Library.",
             "fair.md": "Tomas Berg won the Oakfield Fair pie contest.", "notes.csv": "ignored"}
    for name, text in texts.items():
        (tmp_path / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    responder = Responder({"mayor": texts["a/mayor.txt"], "fair": texts["fair.md"]})
    with FakeOpenAIServer(responder) as srv:
        assert main(["tune", "--input", "docs", "--out", "prompts/docs.yaml", "--selection", "all",
                     "--base-url", srv.base_url]) == 0
    report = json.loads((tmp_path / "prompts" / "docs.tuning.json").read_text())
    assert report["chunks"] == ["a/mayor.txt", "fair.md"] and report["examples_kept"] == ["a/mayor.txt", "fair.md"]
    assert (tmp_path / "fixtures" / "cassettes" / "tune-docs" / cassette_name("a/mayor.txt")).is_file()
    monkeypatch.setenv("CI", "true")  # and it replays
    assert main(["tune", "--input", "docs", "--out", "prompts/again.yaml", "--selection", "all"]) == 0


FORMAT_ANSWERS = {
    "lightrag": ("entity<|#|>Ana Ruiz<|#|>person<|#|>Mayor of Lowbridge\nentity<|#|>Lowbridge<|#|>geo<|#|>Town\n"
                 "relation<|#|>Ana Ruiz<|#|>Lowbridge<|#|>leadership, town<|#|>She is the mayor of Lowbridge\n"
                 "<|COMPLETE|>"),
    "json": json.dumps({"entities": [{"name": "ANA RUIZ", "type": "person", "description": "Mayor"},
                                     {"name": "LOWBRIDGE", "type": "geo", "description": "Town"}],
                        "relationships": [{"source": "ANA RUIZ", "target": "LOWBRIDGE",
                                           "description": "She is the mayor", "strength": 8}]}),
}


@pytest.mark.parametrize("fmt", ["lightrag", "json"])
def test_lightrag_and_json_prompts_are_tuned_in_their_own_format(fmt: str, project: Path, api_key: str,
                                                                tmp_path: Path) -> None:
    suite = load_suite(project)
    bodies: list[dict[str, Any]] = []

    def respond(body: dict[str, Any]) -> str:
        text = body["messages"][-1]["content"]
        if text.splitlines()[0] in STEPS:
            return STEPS[text.splitlines()[0]]
        bodies.append(body)
        real = text.split("Mayor Ana Ruiz")  # only the mayor chunk gets a good answer; the others prose
        return FORMAT_ANSWERS[fmt] if len(real) > 1 else "The passage is about a town."

    with FakeOpenAIServer(respond) as srv:
        result = tune(options(suite, tmp_path / f"{fmt}.yaml", tmp_path / "c", "once", srv.base_url, format=fmt))
    assert result.report["format"] == fmt and result.report["examples_kept"] == ["mayor"]
    assert {r["kind"] for r in result.report["examples_rejected"]} == {"summary"}
    assert all((body.get("response_format") == {"type": "json_object"}) == (fmt == "json") for body in bodies)
    assert (tmp_path / "c" / cassette_name("mayor", fmt)).name.startswith(f"{fmt}-example-")
    template = load_prompt(tmp_path / f"{fmt}.yaml")
    assert template.format == fmt and not has_errors(lint_prompt(tmp_path / f"{fmt}.yaml"))
    variables = plan_variant(suite, "default").variables(suite.cases[1])
    variables.update({k: getattr(template.meta, k) for k in ("tuple_delimiter", "completion_delimiter")
                      if getattr(template.meta, k)})  # what a run of this template as a variant uses
    messages = template.render(variables)
    assert messages[0]["content"].startswith("You are an editor")
    shown = "\n".join(m["content"] for m in messages)
    if fmt == "lightrag":
        assert "relation<|#|>Ana Ruiz<|#|>Lowbridge<|#|>leadership, town<|#|>" in shown
    else:
        assert '"ANA RUIZ"' in shown and "<|>" not in shown
