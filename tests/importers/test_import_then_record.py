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

from harness.importers import graphrag_draft, lightrag_draft, read_graphrag_project, read_lightrag_project, write_draft
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


# --------------------------------------------------------------------------- GraphRAG

GRAPHRAG = sorted(p.name.removeprefix("graphrag-") for p in CAPTURES.glob("graphrag-*")
                  if (p / "requests.json").is_file())
# GraphRAG's OpenAI clients send these API defaults explicitly; the harness leaves them out: the
# same request to the endpoint (a None is a setting not sent)
API_DEFAULTS = {"n": 1, "top_p": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0}


def graphrag_settings(version: str, captured: dict[str, Any]) -> str:
    """Settings in the version's own layout stating what the capture's configuration stated
    (scripts/capture_graphrag_conversation.py): gpt-4o-mini through openai, the prompt file, two
    gleanings, the entity types."""
    extraction = {"prompt": "prompts/extract.txt", "max_gleanings": captured["max_gleanings"],
                  "entity_types": captured["entity_types"]}
    chat = {"api_key": "${GRAPHRAG_API_KEY}", "type": "openai_chat", "model": "gpt-4o-mini"}
    major = int(version.split(".")[0])
    if major <= 1:
        settings: dict[str, Any] = {"llm": chat, "input": {"type": "file", "file_type": "text", "base_dir": "input",
                                                           "file_pattern": ".*\\.txt$$"},
                                    "entity_extraction": extraction}
    elif major == 2:
        settings = {"models": {"default_chat_model": chat, "default_embedding_model": {
                        **chat, "type": "openai_embedding", "model": "text-embedding-3-small"}},
                    "input": {"type": "file", "file_type": "text", "base_dir": "input"}, "extract_graph": extraction}
    else:
        model = {"model_provider": "openai", "model": "gpt-4o-mini", "api_key": "${GRAPHRAG_API_KEY}"}
        settings = {"completion_models": {"default_completion_model": model},
                    "embedding_models": {"default_embedding_model": {**model, "model": "text-embedding-3-small"}},
                    "input_storage": {"type": "file", "base_dir": "input"}, "input": {"type": "text"},
                    "extract_graph": extraction}
    return yaml.safe_dump(settings, sort_keys=False)


def same_request(body: dict[str, Any]) -> str:
    return canonical({k: v for k, v in body.items() if v is not None and API_DEFAULTS.get(k, object()) != v})


@pytest.mark.slow
@pytest.mark.parametrize("version", GRAPHRAG)
def test_an_imported_graphrag_project_records_what_its_version_sent(version: str, tmp_path: Path, api_key: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from ..llm.test_engine_conversation import responder

    monkeypatch.setenv("GRAPHRAG_API_KEY", api_key)
    captured = json.loads((CAPTURES / f"graphrag-{version}" / "requests.json").read_text(encoding="utf-8"))
    root = tmp_path / "project"
    (root / "prompts").mkdir(parents=True)
    (root / "input").mkdir()
    (root / "prompts" / "extract.txt").write_bytes(captured["prompt_file_crlf"].encode("utf-8"))
    scenarios = captured["scenarios"]
    for name, scenario in scenarios.items():
        (root / "input" / f"{name}.txt").write_text(scenario["chunk"], encoding="utf-8")
    (root / "settings.yaml").write_text(graphrag_settings(version, captured), encoding="utf-8")
    out = tmp_path / "work" / "suites" / "gr.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}, graphrag_version=version), out)
    write_draft(draft, out)
    suite = load_suite(out)
    assert suite.spec.engine == captured["engine"]
    # one case per text unit: each input is one unit, its text the chunk the version extracted from
    assert sorted(case_texts(out)) == sorted(s["chunk"] for s in scenarios.values())
    # the capture's scripted answers, the loop answer by the conversation's chunk
    by_chunk = {s["chunk"]: responder(captured["answers"], s["loop_answer"]) for s in scenarios.values()}

    def answer(body: dict[str, Any]) -> str:
        first = _first_user_text(body)
        return next(respond(body) for chunk, respond in by_chunk.items() if chunk in first)

    with FakeOpenAIServer(answer) as server:
        record_cassettes(suite, server, tmp_path)
        sent = [r["body"] for r in server.requests if isinstance(r.get("body"), dict)]
    marker = captured["prompt_file_crlf"].splitlines()[1].split("{")[0]  # the project's prompt, not the stock one
    project_sent = [b for b in sent if marker in _first_user_text(b)]
    engine_sent = [b for s in scenarios.values() for b in s["requests"]]
    assert sorted(map(same_request, project_sent)) == sorted(map(same_request, engine_sent))


def _first_user_text(body: dict[str, Any]) -> str:
    return next((m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"), "")
