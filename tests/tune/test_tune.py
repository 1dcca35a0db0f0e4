"""harness tune: sampling, answer checks, example rejection, record → replay, shipped cassettes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.errors import ModelCallError
from harness.llm.fake_server import FakeOpenAIServer
from harness.prompts import has_errors, lint_prompt, load_prompt
from harness.runner import plan_variant
from harness.suites import load_suite
from harness.tune.commands import add_variant
from harness.tune.examples import judge_example
from harness.tune.pipeline import TuneOptions, tune
from harness.tune.sampling import select
from harness.tune.steps import clean_entity_types, clean_language

from ..conftest import REPO

GOOD = ('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##'
        '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of<|>8)\n<|COMPLETE|>')


@pytest.mark.parametrize(("answer", "reason"), [
    ("I'm sorry, but I can't help with that request.", "refusal"),
    ("The passage is about a mayor who opened a library with a trust.", "prose"),
    ("In summary, the examples above show how to list entities and relationships.", "summary"),
    ("", "empty"),
    ('("entity"<|>ANA RUIZ<|>person<|>Mayor)\n<|COMPLETE|>', "no relationship"),
    (GOOD.replace("\n<|COMPLETE|>", ""), "completion delimiter"),
    ("Here are the records:\n" + GOOD, "prose mixed"),
    (GOOD.replace("<|>geo<|>", "<|>river<|>"), "outside the list"),
])
def test_poisoned_examples_are_rejected_with_a_reason(answer, reason):
    verdict = judge_example(answer, entity_types=["person", "geo"])
    assert not verdict.kept and reason in verdict.reason


def test_a_clean_extraction_is_kept():
    assert judge_example(GOOD, entity_types=["person", "geo"]).kept


def test_language_sentences_are_reduced_or_refused():
    assert clean_language("Spanish") == ("Spanish", None)
    name, note = clean_language("The primary language of the provided text is Chinese.")
    assert name == "Chinese" and "reduced" in note
    with pytest.raises(ModelCallError):
        clean_language("It is hard to say; the passages mix several scripts and registers.")


def test_entity_types_are_normalised_deduplicated_and_capped():
    types, notes = clean_entity_types('{"entity_types": ["Person", "person", "Org Unit", " ", "geo"]}', cap=2)
    assert types == ["person", "org_unit"]
    assert any("duplicate" in n for n in notes) and any("first 2" in n for n in notes)
    with pytest.raises(ModelCallError):
        clean_entity_types("person, place")


def test_sampling_is_deterministic_and_diverse():
    texts = ["alpha beta gamma " * 20, "alpha beta gamma delta " * 20, "zeta eta theta " * 20, "iota kappa " * 20]
    assert select(texts, "top", 2) == [0, 1]
    assert select(texts, "all", 2) == [0, 1, 2, 3]
    assert select(texts, "random", 2) == select(texts, "random", 2)
    chosen = select(texts, "diverse", 2)
    assert len(set(chosen)) == 2 and chosen == select(texts, "diverse", 2)
    assert not {0, 1} <= set(chosen)  # the two near-duplicates are not both chosen


def test_shipped_podcast_tuning_replays_offline_and_passes_lint(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("CI", "true")
    out = tmp_path / "podcast-tuned.yaml"
    code = main(["tune", "--suite", str(REPO / "suites" / "podcast.yaml"), "--out", str(out),
                 "--selection", "top", "--limit", "3"])
    assert code == 0
    assert not has_errors(lint_prompt(out))
    report = json.loads(out.with_name("podcast-tuned.tuning.json").read_text())
    assert report["language"] == "English" and "reduced" in report["notes"][0]
    assert report["examples_kept"] == ["host-welcomes-guest", "series-a-funding"]
    assert report["examples_rejected"][0]["chunk"] == "acquisition-deal"
    assert report["examples_rejected"][0]["reason"].startswith("refusal")
    template = load_prompt(out)
    suite = load_suite(REPO / "suites" / "podcast.yaml")
    variables = plan_variant(suite, "tuned").variables(suite.cases[0])
    user = template.render(variables)[-1]["content"]
    assert "QUILLSTACK OBSERVE" in user and suite.cases[0].text in user
    assert "I'm sorry" not in user


def test_record_then_replay_gives_identical_files(project, api_key, tmp_path):
    suite = load_suite(project)
    answers = {
        "TASK: domain": "Small-town news",
        "TASK: language": "English",
        "TASK: persona": "You are an editor who maps who does what in small towns.",
        "TASK: entity-types": '{"entity_types": ["person", "organization", "geo", "event"]}',
    }

    def respond(body):
        text = body["messages"][-1]["content"]
        if text.splitlines()[0] in answers:
            return answers[text.splitlines()[0]]
        return GOOD if "Lowbridge" in text else "Sorry, I cannot do that."

    def run(out: Path, mode: str, base_url: str | None) -> tuple[bytes, bytes]:
        tune(TuneOptions(texts=[c.text for c in suite.cases], names=[c.id for c in suite.cases], out=out,
                         cassettes=tmp_path / "cassettes", base_url=base_url, record_mode=mode,
                         selection="all", limit=3))
        return out.read_bytes(), out.with_name(out.stem + ".tuning.json").read_bytes()

    with FakeOpenAIServer(respond) as srv:
        recorded = run(tmp_path / "a" / "t.yaml", "once", srv.base_url)
        assert srv.calls == 4 + 3
    replayed = run(tmp_path / "b" / "t.yaml", "none", None)
    assert recorded[0] == replayed[0]
    strip = lambda data: {k: v for k, v in json.loads(data).items() if k != "prompts"}  # noqa: E731 (paths differ)
    assert strip(recorded[1]) == strip(replayed[1])
    report = json.loads(replayed[1])
    assert [r["reason"].split(":")[0] for r in report["examples_rejected"]] == ["refusal", "refusal"]


def test_add_variant_keeps_the_suite_valid(tmp_path):
    shutil.copytree(REPO / "suites", tmp_path / "suites")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    shutil.copytree(REPO / "fixtures" / "chunks", tmp_path / "fixtures" / "chunks")
    prompt = tmp_path / "prompts" / "podcast-auto.yaml"
    from harness.prompts.builtin import get_builtin

    prompt.write_text(get_builtin("graphrag/extract_graph").read())
    path = tmp_path / "suites" / "podcast.yaml"
    before = path.read_text()
    add_variant(path, "auto", prompt, tmp_path)
    suite = load_suite(path)
    assert suite.variant_names() == ["default", "tuned", "auto"]
    assert suite.spec.variants["auto"].prompt == "prompts/podcast-auto.yaml"
    assert path.read_text().startswith(before.split("variants:")[0])  # everything before is untouched
    assert plan_variant(suite, "auto").render(suite.cases[0])
