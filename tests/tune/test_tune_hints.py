"""`harness tune` tells users the way out: --persona for a junk persona, no silent replay with
--base-url, cassettes named after the project, and a hint that fits --selection all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from ..support.fake_server import FakeOpenAIServer

from .test_pipeline import Responder

TEXTS = {"a/mayor.txt": "Mayor Ana Ruiz of Lowbridge opened the Lowbridge Library.",
         "fair.md": "Tomas Berg won the Oakfield Fair pie contest."}


ANSWERS = {"mayor": TEXTS["a/mayor.txt"], "fair": TEXTS["fair.md"]}  # a Responder's answers, by chunk


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The documents of TEXTS under `docs/` of the working folder, `tmp_path`."""
    monkeypatch.chdir(tmp_path)
    for name, text in TEXTS.items():
        (tmp_path / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    return tmp_path / "docs"


class JunkPersona(Responder):
    def __call__(self, body: dict[str, Any]) -> str:
        if body["messages"][-1]["content"].startswith("TASK: persona"):
            self.asked.append("TASK: persona")
            return "Sure! Here is a persona for you."
        return super().__call__(body)


def test_a_junk_persona_names_the_persona_option_and_rewrite(docs: Path, tmp_path: Path, api_key: str, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    responder = JunkPersona(ANSWERS)
    with FakeOpenAIServer(responder) as srv:
        args = ["tune", "--input", "docs", "--out", "prompts/docs.yaml", "--selection", "all", "--base-url", srv.base_url]
        assert main(args) == 4
        err = capsys.readouterr().err
        assert "--persona" in err and "--record-mode rewrite" in err
        persona = "You are a reporter who maps who does what in small towns."
        assert main([*args, "--persona", persona]) == 0
    assert persona in (tmp_path / "prompts" / "docs.yaml").read_text()
    assert responder.asked.count("TASK: persona") == 1  # given, it is not asked again


def test_base_url_without_a_key_refuses_instead_of_replaying(docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(["tune", "--input", "docs", "--out", "t.yaml", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--base-url" in err and "OPENAI_API_KEY" in err and "--record-mode none" in err
    assert len(err.splitlines()) == 1


def test_input_cassettes_are_named_after_the_project(tmp_path: Path) -> None:
    from harness.cli.tune import input_cassettes

    one, two = tmp_path / "ragtest" / "input", tmp_path / "other" / "input"
    assert input_cassettes(one) != input_cassettes(two)
    assert input_cassettes(one) == Path("fixtures") / "cassettes" / "tune-ragtest-input"
    assert input_cassettes(tmp_path / "北京" / "input").name == "tune-BeiJing-input"


@pytest.mark.slow
def test_with_selection_all_the_hint_does_not_suggest_limit(docs: Path, tmp_path: Path, api_key: str, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    responder = Responder(ANSWERS)
    with FakeOpenAIServer(responder) as srv:
        base = ["tune", "--input", "docs", "--out", "prompts/docs.yaml", "--base-url", srv.base_url, "--min-examples", "3"]
        assert main([*base, "--selection", "all"]) == 2
        err = capsys.readouterr().err
        assert "--limit" not in err and "all 2 chunk(s) were used" in err and "--min-examples" in err
        assert main([*base[:-1], "2", "--selection", "top", "--limit", "1", "--cassettes", "top"]) == 2
        assert "sample more chunks with --limit (2 available)" in capsys.readouterr().err
