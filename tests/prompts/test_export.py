"""`harness prompts export`: the exported files, filled the way the engine fills them, say exactly
what the harness template renders."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest

from harness.prompts import load_prompt
from harness.prompts.builtin import load_builtin
from harness.prompts.export import export_lightrag
from harness.run.plan import plan_variant
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


STOCK = REPO / "tests" / "fixtures" / "stock_prompts"
# the file names and settings keys each GraphRAG version reads (harness.prompts.kinds, from GraphRAG's init_content.py)
VERSION_FILES = {
    "graphrag-0": ({"entity_extraction.txt", "summarize_descriptions.txt", "community_report.txt"},
                   ("entity_extraction.prompt: prompts/entity_extraction.txt",
                    "community_reports.prompt: prompts/community_report.txt")),
    "graphrag-1": ({"entity_extraction.txt", "summarize_descriptions.txt", "community_report.txt"},
                   ("entity_extraction.prompt: prompts/entity_extraction.txt",
                    "community_reports.prompt: prompts/community_report.txt")),
    "graphrag-2": ({"extract_graph.txt", "summarize_descriptions.txt", "community_report_graph.txt"},
                   ("extract_graph.prompt: prompts/extract_graph.txt",
                    "community_reports.graph_prompt: prompts/community_report_graph.txt")),
    "graphrag-3": ({"extract_graph.txt", "summarize_descriptions.txt", "community_report_graph.txt"},
                   ("extract_graph.prompt: prompts/extract_graph.txt",
                    "community_reports.graph_prompt: prompts/community_report_graph.txt")),
}


@pytest.mark.parametrize("version", sorted(VERSION_FILES))
@pytest.mark.parametrize("prompt", [str(REPO / "prompts" / "podcast" / "auto.yaml"), "builtin:graphrag/extract_graph"])
def test_export_writes_the_names_and_keys_of_the_projects_version_and_lints_clean(
        harness_cli, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: str, prompt: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(STOCK / version / "settings.yaml", project / "settings.yaml")  # the version's own settings layout
    assert harness_cli(["prompts", "export", prompt, "--to", "graphrag", str(project)]) == 0
    out = capsys.readouterr().out
    names, keys = VERSION_FILES[version]
    written = {p.name for p in (project / "prompts").iterdir()}
    assert written == (names if prompt.endswith("auto.yaml") else {n for n in names if "extract" in n})
    assert f"GraphRAG version: {version}" in out
    for key in keys if prompt.endswith("auto.yaml") else keys[:1]:
        assert key in out
    files = sorted(str(p) for p in (project / "prompts").iterdir())
    assert harness_cli(["prompts", "lint", *files]) == 0  # linted for the version the settings say
    assert f"{len(files)} prompt(s) checked: 0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_graphrag_3_gets_its_fixed_delimiters_written_in(harness_cli, tmp_path: Path) -> None:
    # GraphRAG 3.x fills input_text and entity_types only; it parses <|>, ## and <|COMPLETE|>
    shutil.copy(STOCK / "graphrag-3" / "settings.yaml", tmp_path / "settings.yaml")
    assert harness_cli(["prompts", "export", "builtin:graphrag/extract_graph", "--to", "graphrag", str(tmp_path)]) == 0
    exported = (tmp_path / "prompts" / "extract_graph.txt").read_text(encoding="utf-8")
    assert "{tuple_delimiter}" not in exported and "<|>" in exported
    variables = {"input_text": "Ana Ruiz opened the library.", "entity_types": "vessel,port", "tuple_delimiter": "<|>",
                 "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>", "language": "English"}
    assert exported.format(input_text=variables["input_text"], entity_types="vessel,port") == _joined(
        load_builtin("graphrag/extract_graph").render(variables))
