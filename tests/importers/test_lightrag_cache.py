"""`harness import lightrag WORKDIR --cache` (issue 27, item 4): a LightRAG working folder's
`kv_store_llm_response_cache.json` becomes cassettes, found by the stored prompt as each release
folds the request (harness/importers/lightrag_cache.py), gleanings and loop questions
included, and `run --record-mode none` reads per entry the records `harness audit-cache` reads.

The working folders are real: engine_captures/lightrag-<version>-workdir/ were made by LightRAG
1.4.6 and 1.4.9.11 themselves (capture_lightrag_workdir.py; one gleaning each, as LightRAG's
default), and lightrag-1.4.6-gleaning-workdir/ by 1.4.6 with MAX_GLEANING=2, its loop question
answered "YES" for one chunk (a second gleaning follows) and "NO" for the others; the
lightrag-<version>-project/ folders are projects indexed through LightRAG's OpenAI binding against
the local test server (MAX_GLEANING=2, every loop question answered "yes")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.importers.lightrag_cache import CACHE_VARIANT, read_lightrag_cache, stored_prompt

from ..support.cache_import import (assert_rounds_read_as_audit, cassette_files, covered_suite, import_with_cache,
                                    replay)

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"

# folder -> (engine, max_gleanings the cache shows, the round kinds of each case in suite order)
WORKDIRS = {
    "lightrag-1.4.6-workdir": ("lightrag-1.4.6", 1, [["extract", "continue"]] * 3),
    "lightrag-1.4.9.11-workdir": ("lightrag-1.4.9.11", 1, [["extract", "continue"]] * 3),
    "lightrag-1.4.6-gleaning-workdir": ("lightrag-1.4.6", 2, [["extract", "continue", "loop", "continue"],
                                                               ["extract", "continue", "loop"],
                                                               ["extract", "continue", "loop"]]),
    # projects indexed through LightRAG's own OpenAI binding (lightrag-<version>-project/README)
    "lightrag-1.4.6-project": ("lightrag-1.4.6", 2, [["extract", "continue", "loop", "continue"]] * 3),
    "lightrag-1.4.9.11-project": ("lightrag-1.4.9.11", 1, [["extract", "continue"]] * 3),
}


@pytest.mark.slow
@pytest.mark.parametrize("folder", sorted(WORKDIRS))
def test_a_working_folder_cache_replays_every_chunk_as_audit_reads_it(folder: str, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    engine, gleanings, rounds = WORKDIRS[folder]
    root = CAPTURES / folder
    imported = import_with_cache(capsys, monkeypatch, tmp_path / "work", "lightrag", root, "lr")
    suite = covered_suite(imported)
    assert f"cache: {CACHE_VARIANT}: 3 of 3 cases covered" in imported.out
    assert "LightRAG stores no model name" in imported.err  # said, with the variant named for the cache
    assert suite.variant_names() == [CACHE_VARIANT]
    assert (suite.spec.engine, suite.spec.model.max_gleanings) == (engine, gleanings)
    assert cassette_files(suite) == sorted(f"{CACHE_VARIANT}/{c.id}.json" for c in suite.cases)

    outcome = replay(suite, tmp_path / "reports")
    assert not outcome.missing and not outcome.failures
    assert [[r.kind for r in row.rounds] for row in outcome.results] == rounds
    checked = assert_rounds_read_as_audit(outcome, root / "rag_storage", "lightrag", models_stored=False)
    assert checked == sum(len(r) for r in rounds)


def test_the_stored_prompt_of_each_call_is_one_the_engine_stored() -> None:
    """Folded as 1.4.6 folds it (history JSON, then the prompt), the loop question of the
    gleaning working folder is one of its stored prompts; folded as 1.4.8+ folds it, it is not."""
    cache = read_lightrag_cache(CAPTURES / "lightrag-1.4.6-gleaning-workdir" / "rag_storage")
    stored = {e.request for e in cache.entries}
    loop = next(e.request for e in cache.entries if e.answer == "YES")
    assert loop is not None
    head, question = loop.split("\n", 1)  # the history's JSON is one line: json.dumps escapes newlines
    history = json.loads(head)
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    messages = [*history, {"role": "user", "content": question}]
    assert stored_prompt(messages, (1, 4, 6)) in stored
    assert stored_prompt(messages, (1, 4, 9, 11)) not in stored
    assert cache.gleanings() == 2


def test_a_changed_prompt_leaves_every_chunk_out_with_its_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "workdir"
    shutil.copytree(CAPTURES / "lightrag-1.4.6-workdir", root)
    (root / ".env").write_text((root / ".env").read_text(encoding="utf-8") + "ENTITY_TYPES=person,ship\n",
                               encoding="utf-8")
    imported = import_with_cache(capsys, monkeypatch, tmp_path / "work", "lightrag", root, "lr")
    assert imported.code == 2
    assert f"{CACHE_VARIANT}: 0 of 3 cases covered" in imported.out
    assert "the cache holds this chunk, but the harness's first request differs" in imported.err
    assert not imported.suite_path.exists()


def test_a_folder_without_a_cache_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "workdir"
    shutil.copytree(CAPTURES / "lightrag-1.4.6-workdir", root)
    (root / "rag_storage" / "kv_store_llm_response_cache.json").unlink()
    imported = import_with_cache(capsys, monkeypatch, tmp_path / "work", "lightrag", root, "lr")
    assert imported.code == 2
    line = imported.err.strip().splitlines()[-1]
    assert line.endswith("kv_store_llm_response_cache.json: --cache: no such file (LightRAG's LLM cache)")
