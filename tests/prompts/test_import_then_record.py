"""Issue 27's done-when check: a project made by a real engine version imports to cases equal to
its text units, and `harness record` of the imported suite against the local test server sends
requests equal to those the version itself sent (messages byte for byte, model, sampling).

LightRAG: tests/fixtures/engine_captures/lightrag-<v>-project/, a user's script and `.env` run by
the real release (scripts/capture_lightrag_project.py), with the working folder it made and every
body it sent. GraphRAG: the conversation captures graphrag-<v>/ (scripts/capture_graphrag_conversation.py)
as a project of that version's settings layout stating what the capture's configuration stated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.prompts.importers import graphrag_draft, lightrag_draft, read_graphrag_project, read_lightrag_project, write_draft
from harness.suites import load_suite

from ..reports.helpers import record_cassettes
from ..support.fake_server import FakeOpenAIServer

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"
LIGHTRAG = sorted(p.name.removeprefix("lightrag-").removesuffix("-project")
                  for p in CAPTURES.glob("lightrag-*-project") if (p / "requests.json").is_file())


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def recorded(suite_path: Path, answers: dict[str, str], tmp_path: Path) -> list[dict[str, Any]]:
    """The bodies `harness record` sends for the suite, answered as the engine's capture was."""
    with FakeOpenAIServer(lambda body: answers.get(canonical(body.get("messages")), "")) as server:
        record_cassettes(load_suite(suite_path), server, tmp_path)
        return [r["body"] for r in server.requests if isinstance(r.get("body"), dict)]


def case_texts(suite_path: Path) -> list[str]:
    data = yaml.safe_load(suite_path.read_text(encoding="utf-8"))
    return [(suite_path.parents[1] / case["chunk"]).read_text(encoding="utf-8") for case in data["cases"]]


@pytest.mark.parametrize("version", LIGHTRAG)
def test_an_imported_lightrag_project_records_what_its_release_sent(version: str, tmp_path: Path,
                                                                    api_key: str) -> None:
    project = CAPTURES / f"lightrag-{version}-project"
    captured = json.loads((project / "requests.json").read_text(encoding="utf-8"))
    out = tmp_path / "work" / "suites" / "lr.yaml"
    draft = lightrag_draft(read_lightrag_project(project, environ={}), out)
    write_draft(draft, out)
    suite = load_suite(out)
    # the cases are the release's own chunks, ids kept
    store = json.loads((project / "rag_storage" / "kv_store_text_chunks.json").read_text(encoding="utf-8"))
    assert [c.source_id for c in suite.cases] == list(store)
    assert case_texts(out) == [chunk["content"] for chunk in store.values()]
    # the settings of its LightRAG(...) call, .env and requirements.txt
    assert suite.spec.engine == captured["engine"] == f"lightrag-{version}"
    model = suite.spec.model
    assert (model.name, model.temperature, model.max_tokens, model.max_gleanings, model.concurrency) == (
        "gpt-4o-mini", 0.0, 1000, 2, 2)
    assert suite.variant_names() == ["default"]  # the cache holds the release's stock prompt
    answers = {canonical(r["body"]["messages"]): r["answer"] for r in captured["requests"]}
    sent = recorded(out, answers, tmp_path)
    # every body equal to one the release sent (the order of concurrent chunks aside)
    assert sorted(map(canonical, sent)) == sorted(canonical(r["body"]) for r in captured["requests"])
