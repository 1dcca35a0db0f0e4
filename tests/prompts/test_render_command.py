"""`harness prompts render`: exactly the messages the first call of a case sends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.run.plan import plan_variant
from harness.suites import load_suite

REPO = Path(__file__).resolve().parents[2]
PODCAST = REPO / "suites" / "podcast.yaml"


def test_render_matches_the_runner(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(PODCAST)
    for variant in suite.variant_names():
        assert harness_cli(["prompts", "render", "--suite", str(PODCAST), "--case", "regulator-fine", "--variant", variant]) == 0
        case = next(c for c in suite.cases if c.id == "regulator-fine")
        assert json.loads(capsys.readouterr().out) == plan_variant(suite, variant).render(case)


def test_render_another_prompt_with_the_suite_settings(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "render", "builtin:graphrag/extract_graph_json", "--suite", str(PODCAST)]) == 0
    messages = json.loads(capsys.readouterr().out)
    assert [m["role"] for m in messages] == ["system", "user"]
    suite = load_suite(PODCAST)
    assert suite.cases[0].text.strip() in messages[1]["content"]
    assert "[organization,person,geo,event]" in messages[1]["content"]  # the baseline variant's entity types


def test_render_text(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "render", "--suite", str(PODCAST), "--variant", "tuned", "--text"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[user]\nYou are an analyst who maps the technology industry")


def test_render_bad_input(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "render", "--suite", str(PODCAST), "--case", "nope"]) == 2
    assert "no case named 'nope'" in capsys.readouterr().err
    assert harness_cli(["prompts", "render", "--suite", str(PODCAST), "--variant", "nope"]) == 2
    assert harness_cli(["prompts", "render", "missing.txt", "--suite", str(PODCAST)]) == 2
