"""`harness prompts export`: the exported files, filled the way the engine fills them, say exactly
what the harness template renders."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from harness.prompts import load_prompt
from harness.prompts.builtin import load_builtin
from harness.prompts.export import export_lightrag
from harness.runner import plan_variant
from harness.suites import load_suite

REPO = Path(__file__).resolve().parents[2]
PODCAST = REPO / "suites" / "podcast.yaml"
GRAPHRAG_FILLS = ("input_text", "entity_types", "tuple_delimiter", "record_delimiter", "completion_delimiter")


def _joined(messages: list[dict[str, str]]) -> str:
    return "\n\n".join(m["content"] for m in messages)


def test_exported_tuned_prompt_renders_as_the_yaml_does(harness_cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "export", str(REPO / "prompts" / "podcast" / "auto.yaml"), "--to", "graphrag",
                        str(tmp_path / "ragtest")]) == 0
    out = capsys.readouterr().out
    assert "extract_graph.prompt: prompts/extract_graph.txt" in out
    assert "community_reports.graph_prompt: prompts/community_report_graph.txt" in out
    exported = (tmp_path / "ragtest" / "prompts" / "extract_graph.txt").read_text(encoding="utf-8")
    suite = load_suite(PODCAST)
    plan = plan_variant(suite, "auto")  # what a run of the tuned variant sends
    for case in suite.cases[:4]:
        variables = plan.variables(case)
        filled = exported.format(**{name: variables[name] for name in GRAPHRAG_FILLS})  # GraphRAG's str.format
        assert filled == _joined(plan.render(case))
    # the side prompts, with the variables GraphRAG fills them with
    summarize = load_prompt(REPO / "prompts" / "podcast" / "auto.summarize_descriptions.yaml")
    text = (tmp_path / "ragtest" / "prompts" / "summarize_descriptions.txt").read_text(encoding="utf-8")
    names, descriptions = "NORTHGATE ROBOTICS", '["Maker of the Tern robot", "Based in Harlow Reach"]'
    assert text.format(entity_name=names, description_list=descriptions, max_length="300") == _joined(
        summarize.render({"entity_name": names, "input_text": descriptions, "max_length": "300", "language": "English"}))
    report = load_prompt(REPO / "prompts" / "podcast" / "auto.community_report.yaml")
    text = (tmp_path / "ragtest" / "prompts" / "community_report_graph.txt").read_text(encoding="utf-8")
    tables = "-----Entities-----\nhuman_readable_id,title,description\n1,TERN,A warehouse robot"
    assert text.format(input_text=tables, max_report_length="900") == _joined(
        report.render({"input_text": tables, "max_report_length": "900", "language": "English"}))


def test_a_builtin_leaves_entity_types_to_graphrags_settings(harness_cli, tmp_path: Path) -> None:
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph", "--to", "graphrag", str(tmp_path)]) == 0
    exported = (tmp_path / "prompts" / "extract_graph.txt").read_text(encoding="utf-8")
    assert "{entity_types}" in exported
    variables = {"input_text": "Ana Ruiz opened the library.", "entity_types": "vessel,port", "tuple_delimiter": "<|>",
                 "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>", "language": "English"}
    assert exported.format(**{n: variables[n] for n in GRAPHRAG_FILLS}) == _joined(
        load_builtin("graphrag/extract_graph").render(variables))


def test_lightrag_export_fills_as_lightrag_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    template = load_builtin("lightrag/extract_graph")
    exported = export_lightrag(template, tmp_path)
    fake = types.ModuleType("lightrag.prompt")
    fake.PROMPTS = {}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lightrag", types.ModuleType("lightrag"))
    monkeypatch.setitem(sys.modules, "lightrag.prompt", fake)
    exec(compile(exported.text, str(exported.path), "exec"), {})
    prompts = fake.PROMPTS  # type: ignore[attr-defined]
    context = {"tuple_delimiter": prompts.get("DEFAULT_TUPLE_DELIMITER", "<|#|>"), "completion_delimiter": "<|COMPLETE|>",
               "entity_types": "person,place", "examples": "\n".join(prompts["entity_extraction_examples"]),
               "language": "French"}
    chunk = "Mara Lind a fondé Cobalt Works à Lyon."
    own = {k: v for k, v in context.items() if k != "examples"}  # the harness renders the template's own examples
    messages = template.render({**own, "input_text": chunk, "record_delimiter": "##"})
    assert prompts["entity_extraction_system_prompt"].format(**context) == messages[0]["content"]
    assert prompts["entity_extraction_user_prompt"].format(**context, input_text=chunk) == messages[1]["content"]


def test_export_refusals(harness_cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph_json", "--to", "graphrag", str(tmp_path)]) == 2
    assert "GraphRAG tuples only" in capsys.readouterr().err
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph", "--to", "neo4j", str(tmp_path)]) == 2
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph", "--to", "graphrag", str(tmp_path)]) == 0
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph", "--to", "graphrag", str(tmp_path)]) == 2
    assert "already exists (use --force" in capsys.readouterr().err
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph", "--to", "graphrag", str(tmp_path), "--force"]) == 0
