"""`harness import lightrag` writes the suite's `engine:` (issue 27, item 2): the LightRAG release
from --lightrag-version, an exact pin of lightrag-hku, or the working folder's cached stock prompt,
so a run sends that release's extraction conversation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.llm.engine_conversation import conversation_for
from harness.importers import lightrag_draft, read_lightrag_project, write_draft
from harness.importers.lightrag_release import pinned_release
from harness.suites import load_suite

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"


@pytest.mark.parametrize(("name", "text", "version"), [
    ("requirements.txt", "numpy\nlightrag-hku[api]==1.4.6  # the server\n", (1, 4, 6)),
    ("requirements.txt", "lightrag_hku >= 1.4\n", None),  # a range names no release
    ("pyproject.toml", '[project]\ndependencies = [\n  "numpy",\n  "lightrag-hku==1.4.9.11",\n]\n', (1, 4, 9, 11)),
    ("pyproject.toml", '[tool.poetry.dependencies]\nlightrag-hku = "1.5.7"\n', (1, 5, 7)),
    ("pyproject.toml", '[tool.poetry.dependencies]\nlightrag-hku = "^1.5.7"\n', None),
    ("Pipfile", '[packages]\nlightrag-hku = "==1.4.7"\n', (1, 4, 7)),
    ("uv.lock", '[[package]]\nname = "lightrag-hku"\nversion = "1.4.8.2"\nsource = { registry = "x" }\n', (1, 4, 8, 2)),
])
def test_an_exact_pin_names_the_release(name: str, text: str, version: tuple[int, ...] | None, tmp_path: Path) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    release = pinned_release(tmp_path)
    assert (release.version if release else None) == version
    if release is not None:
        assert release.source.startswith(f"{tmp_path / name}:") and not release.assumed


def _setup(root: Path, pin: str | None = None) -> Path:
    (root / "inputs").mkdir(parents=True)
    (root / "inputs" / "a.txt").write_text("Ana Ruiz leads the Kestrel Trust.\n", encoding="utf-8")
    if pin:
        (root / "requirements.txt").write_text(pin, encoding="utf-8")
    return root


def _draft(root: Path, tmp_path: Path, version: str | None = None):
    out = tmp_path / "work" / "suites" / "lr.yaml"
    draft = lightrag_draft(read_lightrag_project(root, environ={}, lightrag_version=version), out)
    write_draft(draft, out)
    return draft, out


@pytest.mark.parametrize(("pin", "option", "engine", "stock"), [
    ("lightrag-hku==1.4.6\n", None, "lightrag-1.4.6", "1.4.6"),
    ("lightrag-hku==1.4.6\n", "1.4.9.11", "lightrag-1.4.9.11", "1.4.9.11"),  # the option wins
    (None, "1.4.7", "lightrag-1.4.7", "1.4.6"),  # not shipped: the nearest of its prompt generation
    (None, "1.5.7", "lightrag-1.5.7", "1.4.9.11"),
])
def test_the_release_is_the_suites_engine_and_picks_its_conversation(pin: str | None, option: str | None, engine: str,
                                                                     stock: str, tmp_path: Path) -> None:
    draft, out = _draft(_setup(tmp_path / "setup", pin), tmp_path, option)
    suite = load_suite(out)
    assert suite.spec.engine == engine
    assert conversation_for(suite.spec.engine).engine == engine  # the run sends this release's conversation
    assert yaml.safe_load(out.read_text())["variants"]["default"]["prompt"].endswith(f"lightrag-{stock}-stock.yaml")
    assert any(w.startswith(f"engine: {engine} (") for w in draft.warnings)


def test_without_pin_or_option_the_cached_stock_prompt_tells_the_release(tmp_path: Path) -> None:
    draft, out = _draft(CAPTURES / "lightrag-1.4.6-workdir", tmp_path)
    assert load_suite(out).spec.engine == "lightrag-1.4.6"
    assert any("engine: lightrag-1.4.6 (the working folder's cached extraction prompts are LightRAG 1.4.6's stock "
               "prompt) (--lightrag-version X.Y.Z names it)" in w for w in draft.warnings)


def test_a_pin_another_release_than_the_cache_shows_is_said(tmp_path: Path) -> None:
    root = tmp_path / "setup"
    shutil.copytree(CAPTURES / "lightrag-1.4.6-workdir", root)
    (root / "requirements.txt").write_text("lightrag-hku==1.4.9.11\n", encoding="utf-8")
    draft, out = _draft(root, tmp_path)
    assert load_suite(out).spec.engine == "lightrag-1.4.9.11"
    assert any("pins lightrag-hku==1.4.9.11, but the working folder's cached extraction prompts are LightRAG 1.4.6's"
               in w for w in draft.warnings)


def test_nothing_told_is_said_to_be_assumed(tmp_path: Path) -> None:
    draft, out = _draft(_setup(tmp_path / "setup"), tmp_path)
    assert load_suite(out).spec.engine == "lightrag-1.4.9.11"
    assert any(w.startswith("engine: lightrag-1.4.9.11 (assumed:") and w.endswith("(--lightrag-version X.Y.Z names it)")
               for w in draft.warnings)


@pytest.mark.parametrize(("option", "problem"), [
    ("2.0.0", r"--lightrag-version: LightRAG 2\.0\.0 is not a release the harness models"),
    ("1.4", r"--lightrag-version: '1\.4' names no single LightRAG release"),
    ("latest", r"--lightrag-version: 'latest' is not a LightRAG version"),
])
def test_a_release_the_harness_does_not_model_is_refused(option: str, problem: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=problem):
        read_lightrag_project(_setup(tmp_path / "setup"), environ={}, lightrag_version=option)


def test_an_unreadable_setting_of_the_call_is_named_with_its_line(tmp_path: Path) -> None:
    root = _setup(tmp_path / "setup")
    (root / "app.py").write_text("from lightrag import LightRAG\nrag = LightRAG(\n    working_dir='rag',\n"
                                 "    chunk_token_size=size_for('gpt-4o'),\n)\n", encoding="utf-8")
    draft, _ = _draft(root, tmp_path, "1.4.6")
    assert any(w.endswith("app.py:4: chunk_token_size cannot be read (a call of size_for()); LightRAG's default or "
                          "environment value is used instead") for w in draft.warnings)
