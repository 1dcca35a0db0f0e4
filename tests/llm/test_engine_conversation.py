"""A suite that names its GraphRAG version (`engine:`) sends what that version sends and reads
loop answers as it reads them, proven against what each real version sent to the local test
server (tests/fixtures/engine_captures/, made by scripts/capture_graphrag_conversation.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.errors import InputError
from harness.run.plan import plan_variant
from harness.suites import load_suite

from ..reports.helpers import record_cassettes
from ..support.fake_server import FakeOpenAIServer

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"
CAPTURED = sorted(p.name for p in CAPTURES.glob("graphrag-*") if (p / "requests.json").is_file())


def capture(name: str) -> dict[str, Any]:
    return json.loads((CAPTURES / name / "requests.json").read_text(encoding="utf-8"))


def write_suite(root: Path, captured: dict[str, Any], chunk: str, *, engine: str | None,
                prompt: bytes | None = None) -> Path:
    """The captured scenario as a suite: the same prompt file (CRLF bytes), chunk, types, gleanings."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "prompt.txt").write_bytes(prompt if prompt is not None else captured["prompt_file_crlf"].encode("utf-8"))
    suite: dict[str, Any] = {
        "name": "conversation",
        "entity_types": captured["entity_types"],
        "model": {"name": "gpt-4o-mini", "max_gleanings": captured["max_gleanings"]},
        "variants": {"default": {"prompt": "prompt.txt"}},
        "cases": [{"id": "chunk-0", "text": chunk}],
    }
    if engine is not None:
        suite["engine"] = engine
    path = root / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def responder(answers: dict[str, Any], loop_answer: str):
    """The capture's scripted answers, chosen as the capture script chose them."""
    def answer(body: dict[str, Any]) -> str:
        asked = sum(1 for m in body.get("messages", []) if m.get("role") == "user") - 1
        if asked == 0:
            return answers["first"]
        if asked % 2 == 1:
            index = asked // 2
            return answers["continuations"][index] if index < len(answers["continuations"]) else ""
        return loop_answer
    return answer


def harness_requests(root: Path, captured: dict[str, Any], scenario: str, engine: str | None) -> list[dict[str, Any]]:
    """What `harness record` sends for the captured scenario, through the runner."""
    chunk, loop_answer = captured["scenarios"][scenario]["chunk"], captured["scenarios"][scenario]["loop_answer"]
    suite = load_suite(write_suite(root, captured, chunk, engine=engine))
    with FakeOpenAIServer(responder(captured["answers"], loop_answer)) as server:
        record_cassettes(suite, server, root)
        return [r["body"] for r in server.requests if isinstance(r.get("body"), dict)]


def loop_settings(body: dict[str, Any]) -> dict[str, Any]:
    """What the conversation sets on a call: the logit bias, and a one-token limit."""
    return {"logit_bias": body.get("logit_bias"), "one_token": body.get("max_tokens") == 1}


@pytest.mark.slow
@pytest.mark.parametrize("name", CAPTURED)
@pytest.mark.parametrize("scenario", ["continue", "stop"])
def test_the_harness_sends_what_the_engine_version_sent(name: str, scenario: str, tmp_path: Path,
                                                        api_key: str) -> None:
    captured = capture(name)
    sent = harness_requests(tmp_path, captured, scenario, captured["engine"])
    engine = captured["scenarios"][scenario]["requests"]
    assert [b["messages"] for b in sent] == [b["messages"] for b in engine]  # roles, history, bytes
    assert [loop_settings(b) for b in sent] == [loop_settings(b) for b in engine]


@pytest.mark.slow
@pytest.mark.parametrize("name", CAPTURED)
def test_a_text_unit_with_outer_whitespace_is_sent_stripped(name: str, tmp_path: Path, api_key: str) -> None:
    """Every GraphRAG version strips a text unit before extraction (`doc.text.strip()` 0.1-2.x,
    `text.strip()` 3.x): a unit that starts or ends with white space (14 of 58 units of a public
    1.x project) is sent as the capture of its stripped text, so a cached answer can match it."""
    captured = capture(name)
    scenario = dict(captured["scenarios"]["stop"])
    scenario["chunk"] = "\n  " + scenario["chunk"] + " \n\n"
    padded = {**captured, "scenarios": {**captured["scenarios"], "stop": scenario}}
    sent = harness_requests(tmp_path, padded, "stop", captured["engine"])
    assert [b["messages"] for b in sent] == [b["messages"] for b in captured["scenarios"]["stop"]["requests"]]


def test_the_captures_differ_from_what_the_harness_sends_by_default(tmp_path: Path, api_key: str) -> None:
    """The default conversation (no `engine:`) is unchanged, and it is none of 1.x's: the
    captures are what tells the versions apart."""
    from harness.prompts.template import LOOP_PROMPT

    captured = capture("graphrag-1.2.0")
    sent = harness_requests(tmp_path, captured, "stop", None)
    engine = captured["scenarios"]["stop"]["requests"]
    assert sent[2]["messages"][-1]["content"] == LOOP_PROMPT != engine[2]["messages"][-1]["content"]
    assert "logit_bias" not in sent[2] and sent[2]["max_tokens"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", CAPTURED)
def test_loop_answers_are_read_as_the_engine_version_reads_them(name: str, tmp_path: Path, api_key: str) -> None:
    """One case per probed answer, recorded through the runner: a second gleaning follows the loop
    check exactly where it followed in the real version."""
    captured = capture(name)
    reading = json.loads((CAPTURES / name / "loop_reading.json").read_text(encoding="utf-8"))["continues_after"]
    chunks = {f"Probe {i}. {captured['scenarios']['continue']['chunk']}": answer for i, answer in enumerate(reading)}
    path = write_suite(tmp_path, captured, "", engine=captured["engine"])
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["cases"] = [{"id": f"probe-{i}", "text": chunk} for i, chunk in enumerate(chunks)]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")

    def answer(body: dict[str, Any]) -> str:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return responder(captured["answers"], next(a for c, a in chunks.items() if c in first_user))(body)

    with FakeOpenAIServer(answer) as server:
        record_cassettes(load_suite(path), server, tmp_path)
        firsts = [next(m["content"] for m in r["body"]["messages"] if m["role"] == "user") for r in server.requests]
    calls = {a: sum(1 for first in firsts if c in first) for c, a in chunks.items()}
    assert {a: n > 3 for a, n in calls.items()} == reading


def test_the_loop_reading_rule_of_each_version(tmp_path: Path) -> None:
    """Versions not captured here, read from their code: 0.2.1-0.5 compare their own LLM's text
    with "YES"; 0.9-1.0 fnllm's output object (never equal); 1.1 and later the text with "Y"."""
    from harness.llm.engine_conversation import conversation_for

    cases = {"graphrag-0.3.6": {"YES": True, "Y": False, "YES\n": False, "yes": False},
             "graphrag-1.0.1": {"YES": False, "Y": False},
             "graphrag-2.1.0": {"Y": True, " Y": False, "y": False},
             "graphrag-3.0.0": {"Y": True, "Y\n": False, "N": False}}
    for engine, answers in cases.items():
        conversation = conversation_for(engine)
        assert {a: conversation.continues(a) for a in answers} == answers, engine


@pytest.mark.parametrize(("engine", "sent"), [
    ("graphrag-0.9.0", "a\r\nb {input_text}\r\n"),  # read_bytes().decode("utf-8"): CRLF kept
    ("graphrag-1.2.0", "a\r\nb {input_text}\r\n"),
    ("graphrag-2.7.0", "a\nb {input_text}\n"),  # read_text(encoding="utf-8"): universal newlines
    ("graphrag-3", "a\nb {input_text}\n"),
])
def test_a_crlf_prompt_file_is_read_as_the_engine_version_reads_it(engine: str, sent: str, tmp_path: Path) -> None:
    captured = {"entity_types": ["person"], "max_gleanings": 0}
    suite = load_suite(write_suite(tmp_path, captured, "Ada", engine=engine, prompt=b"a\r\nb {input_text}\r\n"))
    messages = plan_variant(suite, "default").render(suite.cases[0])
    assert messages == [{"role": "user", "content": sent.replace("{input_text}", "Ada")}]


def test_a_prompt_file_keeps_its_bom_as_graphrag_reads_it(tmp_path: Path) -> None:
    captured = {"entity_types": ["person"], "max_gleanings": 0}
    suite = load_suite(write_suite(tmp_path, captured, "Ada", engine="graphrag-2.7.0", prompt="\ufeffT {input_text}".encode()))
    assert plan_variant(suite, "default").render(suite.cases[0])[0]["content"] == "\ufeffT Ada"


def test_an_engine_the_harness_does_not_model_is_refused_with_its_name(tmp_path: Path) -> None:
    from harness.engine_names import parse_engine_name

    assert parse_engine_name("graphrag-1").version == (1, 2, 4) and parse_engine_name("graphrag-2.7").version == (2, 7, 0)
    with pytest.raises(InputError, match="graphrag-9"):
        parse_engine_name("graphrag-9")
    captured = {"entity_types": ["person"], "max_gleanings": 0}
    with pytest.raises(InputError, match="haystack-2"):
        load_suite(write_suite(tmp_path, captured, "Ada", engine="haystack-2", prompt=b"{input_text}"))
    # a LightRAG release gets its own conversation (tests/llm/test_lightrag_conversation.py)
    from harness.llm.engine_conversation import conversation_for

    suite = load_suite(write_suite(tmp_path, captured, "Ada", engine="lightrag-1.4.9", prompt=b"{input_text}"))
    assert suite.spec.engine == "lightrag-1.4.9" and conversation_for(suite.spec.engine).engine == "lightrag-1.4.9"


def test_llamaindex_never_gleans(tmp_path: Path) -> None:
    """Its property-graph extractors send one request per chunk: asked for gleanings, none is made,
    and the conversation is otherwise the harness's own (its requests hash as before)."""
    from harness.llm.engine_conversation import HARNESS, conversation_for

    suite = load_suite(write_suite(tmp_path, {"entity_types": ["person"], "max_gleanings": 2}, "Ada",
                                   engine="llamaindex-0.14", prompt=b"{input_text}"))
    conversation = conversation_for(suite.spec.engine)
    assert conversation.max_gleanings == 0 and conversation.identity() == HARNESS.identity()
    assert plan_variant(suite, "default").max_gleanings == 0


def test_graphrag_0_1_continues_from_the_first_answer_only(tmp_path: Path, api_key: str) -> None:
    """Read from 0.1.1's code (not captured): every continuation carries the first response's
    history, not the gleanings and loop checks before it; and its own v0.1 continue prompt."""
    captured = capture("graphrag-1.2.0")
    path = write_suite(tmp_path, captured, "Ada met Bob.", engine="graphrag-0.1.1")
    with FakeOpenAIServer(responder(captured["answers"], "YES")) as server:
        record_cassettes(load_suite(path), server, tmp_path)
        sent = [r["body"]["messages"] for r in server.requests]
    assert [len(m) for m in sent] == [1, 3, 5, 3]  # extract, continue, loop (YES), continue again
    assert sent[3] == sent[1] and sent[1][-1]["content"].startswith("MANY entities were missed")


def test_graphrag_0_5_fills_its_prompt_by_replacing_its_variables_only(tmp_path: Path) -> None:
    """0.1-0.5's own LLM replaces `{name}` of the five variables it passes (str.replace): `{{`,
    `}}` and `{language}` reach the model as written; 0.9 and later use str.format."""
    captured = {"entity_types": ["person", "geo"], "max_gleanings": 0}
    prompt = b"A {{x}} {language} [{entity_types}] {input_text}"
    sent = {}
    for engine in ("graphrag-0.5.0", "graphrag-0.9.0"):
        suite = load_suite(write_suite(tmp_path / engine, captured, "Ada", engine=engine, prompt=prompt))
        sent[engine] = plan_variant(suite, "default").render(suite.cases[0])[0]["content"]
    assert sent == {"graphrag-0.5.0": "A {{x}} {language} [person,geo] Ada",
                    "graphrag-0.9.0": "A {x} English [person,geo] Ada"}
