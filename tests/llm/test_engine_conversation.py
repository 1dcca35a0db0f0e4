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
from harness.llm.engine_conversation import HARNESS, conversation_for, parse_engine
from harness.runner import plan_variant
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


@pytest.mark.parametrize("name", CAPTURED)
@pytest.mark.parametrize("scenario", ["continue", "stop"])
def test_the_harness_sends_what_the_engine_version_sent(name: str, scenario: str, tmp_path: Path,
                                                        api_key: str) -> None:
    captured = capture(name)
    sent = harness_requests(tmp_path, captured, scenario, captured["engine"])
    engine = captured["scenarios"][scenario]["requests"]
    assert [b["messages"] for b in sent] == [b["messages"] for b in engine]  # roles, history, bytes
    assert [loop_settings(b) for b in sent] == [loop_settings(b) for b in engine]


def test_the_captures_differ_from_what_the_harness_sends_by_default(tmp_path: Path, api_key: str) -> None:
    """The default conversation (no `engine:`) is unchanged, and it is none of 1.x's: the
    captures are what tells the versions apart."""
    captured = capture("graphrag-1.2.0")
    sent = harness_requests(tmp_path, captured, "stop", None)
    engine = captured["scenarios"]["stop"]["requests"]
    assert sent[2]["messages"][-1]["content"] == HARNESS.loop_prompt != engine[2]["messages"][-1]["content"]
    assert "logit_bias" not in sent[2] and sent[2]["max_tokens"] == 1


@pytest.mark.parametrize("name", CAPTURED)
def test_loop_answers_are_read_as_the_engine_version_reads_them(name: str) -> None:
    reading = json.loads((CAPTURES / name / "loop_reading.json").read_text(encoding="utf-8"))
    conversation = conversation_for(reading["engine"])
    assert {answer: conversation.continues(answer) for answer in reading["continues_after"]} == reading["continues_after"]


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


@pytest.mark.parametrize(("engine", "answers"), [
    ("graphrag-0.3.6", {"YES": True, "Y": False, "YES\n": False, "yes": False}),  # str output, exact "YES"
    ("graphrag-0.9.0", {"YES": False, "Y": False}),  # fnllm's output object is never "YES"
    ("graphrag-1.2.0", {"Y": True, "YES": False, " Y": False, "y": False}),
    ("graphrag-3.3.0", {"Y": True, "Y\n": False, "N": False}),
])
def test_each_version_reads_the_loop_answer_exactly(engine: str, answers: dict[str, bool]) -> None:
    conversation = conversation_for(engine)
    assert {a: conversation.continues(a) for a in answers} == answers


def test_an_engine_the_harness_does_not_model_is_refused_with_its_name(tmp_path: Path) -> None:
    assert parse_engine("graphrag-1") == (1, 2, 4) and parse_engine("graphrag-2.7") == (2, 7, 0)
    with pytest.raises(InputError, match="graphrag-9"):
        parse_engine("graphrag-9")
    captured = {"entity_types": ["person"], "max_gleanings": 0}
    with pytest.raises(InputError, match="lightrag"):
        load_suite(write_suite(tmp_path, captured, "Ada", engine="lightrag", prompt=b"{input_text}"))
