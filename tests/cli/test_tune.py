"""`harness tune` on the command line: bad options are one line and exit 2; --add-variant keeps the suite valid."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.prompts.builtin import get_builtin
from harness.run.plan import plan_variant
from harness.suites import load_suite
from harness.cli.tune import add_variant

from ..conftest import REPO


@pytest.mark.parametrize(("args", "message"), [
    ([], "exactly one of --suite or --input"),
    (["--suite", "S", "--input", "D"], "exactly one of --suite or --input"),
    (["--input", "{tmp}", "--selection", "best"], "--selection"),
    (["--input", "{tmp}", "--entity-types", "a", "--discover-entity-types"], "not both"),
    (["--input", "{tmp}", "--add-variant", "auto"], "--add-variant needs --suite"),
    (["--input", "{tmp}", "--record-mode", "sometimes"], "--record-mode"),
    (["--input", "{tmp}"], "no .txt or .md files with text"),
    (["--suite", "{tmp}/missing.yaml"], "missing.yaml"),
    (["--input", "{tmp}", "--timeout", "0"], "--timeout: 0 is no time"),
    (["--input", "{tmp}", "--timeout", "nan"], "--timeout: nan is no time"),
    (["--input", "{tmp}", "--timeout", "1e400"], "--timeout: inf is no time"),
    (["--input", "{tmp}", "--model-max-tokens", "0"], "--model-max-tokens"),
    (["--input", "{tmp}", "--concurrency", "0"], "--concurrency"),
])
def test_bad_options_are_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["tune", "--out", str(tmp_path / "t.yaml"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_input_that_is_not_text_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_bytes(b"\xff\xfe\x00bad")
    assert main(["tune", "--input", str(tmp_path / "docs"), "--out", str(tmp_path / "t.yaml")]) == 2
    assert "a.txt: not UTF-8" in capsys.readouterr().err


def test_add_variant_keeps_the_suite_valid_and_its_comments(tmp_path: Path) -> None:
    shutil.copytree(REPO / "suites", tmp_path / "suites")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    shutil.copytree(REPO / "fixtures" / "chunks", tmp_path / "fixtures" / "chunks")
    prompt = tmp_path / "prompts" / "podcast-auto.yaml"
    prompt.write_text(get_builtin("graphrag/extract_graph").read())
    path = tmp_path / "suites" / "podcast.yaml"
    before = path.read_text()
    add_variant(path, "auto2", prompt, tmp_path)
    suite = load_suite(path)
    assert suite.variant_names() == ["default", "tuned", "auto", "auto2"]
    assert suite.spec.variants["auto2"].prompt == "prompts/podcast-auto.yaml"
    assert path.read_text().startswith(before.split("variants:")[0])  # everything before is untouched
    assert plan_variant(suite, "auto2").render(suite.cases[0])
    with pytest.raises(InputError):  # a second variant of the same name would make the suite invalid
        add_variant(path, "auto2", prompt, tmp_path)
    assert load_suite(path).variant_names() == ["default", "tuned", "auto", "auto2"]  # and the file is restored


def test_without_a_key_tune_replays_instead_of_failing_to_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    args = ["tune", "--suite", str(REPO / "suites" / "podcast.yaml"), "--out", str(tmp_path / "t.yaml"),
            "--selection", "top", "--limit", "6"]
    assert main(args) == 0
    assert "no OPENAI_API_KEY set: replaying" in capsys.readouterr().err
    assert main([*args, "--record-mode", "once"]) == 2  # asked to record: the missing key is the error
    assert "no API key" in capsys.readouterr().err


def test_an_azure_key_alone_does_not_make_tune_record_with_the_openai_provider(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # the openai provider sends OPENAI_API_KEY only: an Azure key must not make tune try to record
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-key-that-openai-never-sends")
    args = ["tune", "--suite", str(REPO / "suites" / "podcast.yaml"), "--out", str(tmp_path / "t.yaml"),
            "--selection", "top", "--limit", "6"]
    assert main(args) == 0
    assert "no OPENAI_API_KEY set: replaying" in capsys.readouterr().err


def test_input_files_are_cut_into_chunks_like_an_indexing_pipeline(tmp_path: Path) -> None:
    from harness.llm.tokens import count_tokens
    from harness.cli.tune import input_chunks

    (tmp_path / "docs" / ".git").mkdir(parents=True)
    (tmp_path / "docs" / ".git" / "HEAD.txt").write_text("ref: refs/heads/main", encoding="utf-8")  # skipped
    (tmp_path / "docs" / "long.txt").write_text("The river flooded the town. " * 300, encoding="utf-8")
    (tmp_path / "docs" / "short.md").write_text("Ana Ruiz is mayor.", encoding="utf-8")
    (tmp_path / "docs" / "empty.txt").write_text("  \n", encoding="utf-8")
    texts, names = input_chunks(tmp_path / "docs", 500, "gpt-4o-mini")
    assert names[-1] == "short.md" and names[:-1] == [f"long.txt#{i}" for i in range(1, len(names))]
    assert len(names) == 5 and all(count_tokens(t) <= 500 for t in texts)  # 1,800 tokens: 4 chunks
    assert "".join(texts[:-1]) == (tmp_path / "docs" / "long.txt").read_text()  # nothing lost at the cuts


def _podcast_project(tmp_path: Path) -> Path:
    for folder in ("suites", "prompts", "fixtures/chunks", "fixtures/cassettes/podcast/tune"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    return tmp_path / "suites" / "podcast.yaml"


@pytest.mark.parametrize(("out", "code", "said"), [
    # the README's tuning block: `auto` already measures prompts/podcast/auto.yaml (exit 2 "duplicate key" before)
    ("prompts/podcast/auto.yaml", 0, "variant 'auto' of suites/podcast.yaml already measures prompts/podcast/auto.yaml"),
    # naming another prompt's variant is refused before any call
    ("prompts/podcast-auto.yaml", 2, "already has a variant 'auto'"),
], ids=["its-own-prompt", "another-prompt"])
def test_add_variant_auto_leaves_the_suite_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], out: str, code: int,
                                                    said: str) -> None:
    suite = _podcast_project(tmp_path)
    before = suite.read_text()
    monkeypatch.chdir(tmp_path)
    args = ["tune", "--suite", "suites/podcast.yaml", "--out", out, "--selection", "top",
            "--limit", "6", "--record-mode", "none", "--add-variant", "auto"]
    assert main(args) == code
    captured = capsys.readouterr()
    assert said in (captured.out if code == 0 else captured.err), captured.err
    assert suite.read_text() == before
    if code:
        assert not (tmp_path / out).exists()


def test_the_model_settings_of_tune_reach_every_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--model-max-tokens` and `--timeout` (issue 28.9: the settings a slow local model needs)."""
    from ..support.fake_server import FakeOpenAIServer, Script

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Ana Ruiz is the mayor of Lowbridge.", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer(Script(fallback="<|COMPLETE|>")) as srv:
        main(["tune", "--input", str(tmp_path / "docs"), "--out", str(tmp_path / "t.yaml"), "--domain", "towns",
              "--language", "English", "--persona", "You are a clerk.", "--entity-types", "person,geo",
              "--record-mode", "rewrite", "--base-url", srv.base_url, "--model-max-tokens", "256", "--timeout", "30",
              "--cassettes", str(tmp_path / "cassettes")])
        sent = [r["body"] for r in srv.requests if r["body"] is not None]
    assert sent and all(body.get("max_tokens") == 256 for body in sent)
