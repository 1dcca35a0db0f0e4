"""A suite that names its LightRAG version (`engine: lightrag-1.4.6`) sends what that version sends
in its extraction step and reads loop answers as it reads them, proven against what each real
release passed to its `llm_model_func` (tests/fixtures/engine_captures/lightrag-<v>-conversation/,
made by capture_lightrag_conversation.py), turned into messages as LightRAG's OpenAI binding does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.errors import InputError
from harness.prompts.syntax import escape
from harness.suites import load_suite

from ..reports.helpers import record_cassettes
from ..support.fake_server import FakeOpenAIServer

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"
CAPTURED = sorted(p.name for p in CAPTURES.glob("lightrag-*-conversation") if (p / "requests.json").is_file())
WITH_LOOP = [name for name in CAPTURED if (CAPTURES / name / "loop_reading.json").is_file()]


def capture(name: str) -> dict[str, Any]:
    return json.loads((CAPTURES / name / "requests.json").read_text(encoding="utf-8"))


def binding_messages(call: dict[str, Any]) -> list[dict[str, str]]:
    """The messages lightrag/llm/openai.py (1.0-1.5) sends for one recorded `llm_model_func` call:
    a system message when system_prompt is set, history_messages, then the prompt as user."""
    system = [{"role": "system", "content": call["system_prompt"]}] if call["system_prompt"] else []
    return [*system, *call["history_messages"], {"role": "user", "content": call["prompt"]}]


def last_user(call: dict[str, Any]) -> str:
    return call["prompt"]


def template_of(captured: dict[str, Any]) -> dict[str, Any]:
    """The version's prompts as the capture shows them sent, as a YAML template: the first request's
    system and user texts (the chunk as {input_text}), the continue prompt, the loop prompt."""
    scenario = next(iter(captured["scenarios"].values()))
    first, glean = scenario["calls"][0], scenario["calls"][1]
    data: dict[str, Any] = {"name": captured["engine"], "format": "lightrag"}
    if first["system_prompt"]:
        data["system"] = escape(first["system_prompt"])
    user = last_user(first)
    assert user.count(scenario["chunk"]) == 1
    data["user"] = escape(user).replace(escape(scenario["chunk"]), "{input_text}")
    data["continue_prompt"] = escape(last_user(glean))
    if len(scenario["calls"]) > 2:
        data["loop_prompt"] = escape(last_user(scenario["calls"][2]))
    return data


def stock_template(captured: dict[str, Any]) -> dict[str, Any] | None:
    """The template `harness import lightrag` writes from the release's shipped stock PROMPTS
    (None: the harness ships none for it)."""
    from harness.importers.lightrag import LightRAGProject, template_data
    from harness.importers.lightrag_workdir import stock_prompts

    version = captured["engine"].removeprefix("lightrag-")
    stock = next((s for s in stock_prompts() if s.version == version), None)
    if stock is None:
        return None
    project = LightRAGProject(root=Path("."), prompt_file=None, prompts=dict(stock.prompts),
                              entity_types=captured["entity_types"], language=captured["language"])
    return template_data(project)


def write_suite(root: Path, captured: dict[str, Any], chunks: list[str], *, engine: str | None,
                template: dict[str, Any] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "prompt.yaml").write_text(yaml.safe_dump(template or template_of(captured), allow_unicode=True,
                                                     sort_keys=False), encoding="utf-8")
    suite: dict[str, Any] = {
        "name": "conversation",
        "language": captured["language"],
        "entity_types": captured["entity_types"],
        "model": {"name": "gpt-4o-mini", "max_gleanings": captured["max_gleanings"]},
        "variants": {"default": {"prompt": "prompt.yaml", "format": "lightrag"}},
        "cases": [{"id": f"chunk-{i}", "text": chunk} for i, chunk in enumerate(chunks)],
    }
    if engine is not None:
        suite["engine"] = engine
    path = root / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def responder(captured: dict[str, Any],
              loop_answer_of: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
    """The capture script's answers: the first, then gleaning n after n answers in the history,
    the loop answer to the loop prompt."""
    answers = captured["answers"]
    template = template_of(captured)
    loop = template.get("loop_prompt", "\0").replace("{{", "{").replace("}}", "}")

    def answer(body: dict[str, Any]) -> str:
        messages = body["messages"]
        if messages[-1]["content"] == loop:
            return loop_answer_of(body)
        gleaned = sum(1 for m in messages if m["role"] == "assistant")
        return answers["first"] if gleaned == 0 else answers["continuations"][min(gleaned, 2) - 1]
    return answer


@pytest.mark.parametrize("name", CAPTURED)
def test_the_harness_sends_what_the_lightrag_version_sent(name: str, tmp_path: Path, api_key: str) -> None:
    captured = capture(name)
    for scenario, seen in captured["scenarios"].items():
        path = write_suite(tmp_path / scenario, captured, [seen["chunk"]], engine=captured["engine"])
        with FakeOpenAIServer(responder(captured, lambda body, a=seen["loop_answer"]: a)) as server:
            record_cassettes(load_suite(path), server, tmp_path / scenario)
            sent = [r["body"] for r in server.requests if isinstance(r.get("body"), dict)]
        assert [b["messages"] for b in sent] == [binding_messages(c) for c in seen["calls"]], scenario  # roles, history, bytes
        assert all("logit_bias" not in b and b.get("max_tokens") != 1 for b in sent)  # every call an ordinary one


WITH_STOCK = [name for name in CAPTURED if stock_template(capture(name)) is not None]


@pytest.mark.parametrize("name", WITH_STOCK)
def test_the_imported_stock_prompt_sends_what_the_lightrag_version_sent(name: str, tmp_path: Path,
                                                                        api_key: str) -> None:
    """The `default` variant `harness import lightrag` writes for the release (its stock PROMPTS)
    sends the same bytes as the release: prompt, examples as LightRAG joins them, gleaning prompts."""
    captured = capture(name)
    for scenario, seen in captured["scenarios"].items():
        path = write_suite(tmp_path / scenario, captured, [seen["chunk"]], engine=captured["engine"],
                           template=stock_template(captured))
        with FakeOpenAIServer(responder(captured, lambda body, a=seen["loop_answer"]: a)) as server:
            record_cassettes(load_suite(path), server, tmp_path / scenario)
            sent = [r["body"]["messages"] for r in server.requests if isinstance(r.get("body"), dict)]
        assert sent == [binding_messages(c) for c in seen["calls"]], scenario


@pytest.mark.parametrize("name", WITH_LOOP)
def test_loop_answers_are_read_as_the_lightrag_version_reads_them(name: str, tmp_path: Path, api_key: str) -> None:
    """One case per probed answer: a second gleaning follows the loop check exactly where it
    followed in the real version."""
    captured = capture(name)
    reading = json.loads((CAPTURES / name / "loop_reading.json").read_text(encoding="utf-8"))["continues_after"]
    base = captured["scenarios"]["stop"]["chunk"].removesuffix(" (stop)")
    chunks = {f"Probe {i}. {base}": answer for i, answer in enumerate(reading)}
    path = write_suite(tmp_path, captured, list(chunks), engine=captured["engine"])

    def loop_answer(body: dict[str, Any]) -> str:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return next(a for c, a in chunks.items() if c in first_user)

    with FakeOpenAIServer(responder(captured, loop_answer)) as server:
        record_cassettes(load_suite(path), server, tmp_path)
        firsts = [next(m["content"] for m in r["body"]["messages"] if m["role"] == "user") for r in server.requests]
    calls = {a: sum(1 for first in firsts if c in first) for c, a in chunks.items()}
    assert {a: n > 3 for a, n in calls.items()} == reading


def test_lightrag_1_4_8_and_later_sanitize_what_they_send() -> None:
    """Read from `sanitize_text_for_encoding` (utils.py): 1.4.8-1.4.9.x strip, drop control
    characters (C1 too) and unescape HTML entities; 1.4.10 and later keep C1; 1.4.7 and before
    send the text as formatted."""
    from harness.llm.engine_conversation import conversation_for

    text = "  Ada &amp; Bob\x07\x85 met.\n"
    sent = {engine: conversation_for(engine).send([{"role": "user", "content": text}])[0]["content"]
            for engine in ("lightrag-1.4.6", "lightrag-1.4.9.11", "lightrag-1.4.16", "lightrag-1.5.7")}
    assert sent == {"lightrag-1.4.6": text, "lightrag-1.4.9.11": "Ada & Bob met.",
                    "lightrag-1.4.16": "Ada & Bob\x85 met.", "lightrag-1.5.7": "Ada & Bob\x85 met."}
    assert conversation_for("lightrag-1.4.8").max_gleanings == 1 and conversation_for("lightrag-1.4.7").max_gleanings is None


def test_what_each_lightrag_line_keeps_of_an_answer_and_reads_from_a_loop_answer() -> None:
    """Read from the releases' code (not captured): 1.0-1.3 keep answers as given and read the loop
    answer without removing think tags; 1.4.0-1.4.13 remove a leading think block; 1.4.14 and
    later every think block."""
    from harness.llm.engine_conversation import conversation_for

    answer = "<think>a</think> X <think>b</think> Y\n"
    kept = {engine: (conversation_for(engine).kept_answer or (lambda a: a))(answer)
            for engine in ("lightrag-1.3.9", "lightrag-1.4.0", "lightrag-1.4.13", "lightrag-1.4.14")}
    assert kept == {"lightrag-1.3.9": answer, "lightrag-1.4.0": "X <think>b</think> Y",
                    "lightrag-1.4.13": "X <think>b</think> Y", "lightrag-1.4.14": "X  Y"}
    assert not conversation_for("lightrag-1.3.9").continues("<think>x</think>yes")
    assert conversation_for("lightrag-1.3.9").continues(' "Yes"\n')
    assert conversation_for("lightrag-1.4.0").continues("<think>x</think>yes")


def test_a_lightrag_version_whose_conversation_is_not_modelled_is_refused_by_name(tmp_path: Path) -> None:
    from harness.engine_names import parse_engine_name
    from harness.llm.engine_conversation import HARNESS, conversation_for

    assert parse_engine_name("lightrag-1.4").version == (1, 4, 16)
    assert parse_engine_name("lightrag-1.4.9.11").version == (1, 4, 9, 11)
    for unmodelled in ("lightrag-2.0", "lightrag-0.9"):
        with pytest.raises(InputError, match=unmodelled):
            parse_engine_name(unmodelled)
    assert conversation_for("lightrag") is HARNESS  # no release named: no conversation to model
