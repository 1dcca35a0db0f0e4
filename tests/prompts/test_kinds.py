"""The prompt-kind registry: consistent entries, declared kinds validated, engines read from settings,
and the command-line surface (`--kind`, `--engine`, `harness prompts kinds`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.formats import format_names
from harness.prompts.builtin import builtin_names, load_builtin
from harness.prompts.kinds import (
    ENGINE_GROUPS,
    HARNESS_ENGINE,
    PROMPT_KINDS,
    detect_kind,
    engine_of_settings,
    get_kind,
    kinds_of_file,
)
from harness.prompts.lint import lint_report
from harness.prompts.yaml_template import load_yaml_text

STOCK = Path(__file__).resolve().parents[1] / "fixtures" / "stock_prompts"


@pytest.mark.parametrize("name", list(PROMPT_KINDS))
def test_each_kind_is_consistent(name: str) -> None:
    kind = PROMPT_KINDS[name]
    assert kind.name == name and kind.family in ("graphrag", "lightrag", "llamaindex", "harness") and name.startswith(kind.family + ".")
    assert kind.format is None or kind.format in format_names()
    # the harness's own judge prompts are filled by the harness alone; every other kind by an engine
    assert set(kind.filled) <= ({HARNESS_ENGINE} if kind.family == HARNESS_ENGINE else set(ENGINE_GROUPS) - {HARNESS_ENGINE})
    assert set(kind.files) <= set(kind.filled) and set(kind.settings_keys) <= set(kind.filled)
    assert kind.optional <= kind.supplied(None) or not kind.supplied(None)
    if kind.input_variable is not None:  # the data variable is filled by every version, and required
        assert all(kind.input_variable in kind.filled[v] for v in kind.engines)
        assert kind.input_variable in kind.expected(None)
    assert kind.sources, "say which engine source the variables were read from"


def test_supplied_and_expected_over_versions() -> None:
    kind = get_kind("graphrag.summarize_descriptions")
    # v0/v1 fill entity_name and description_list; v2/v3 add max_length
    assert kind.supplied("graphrag-1") == {"entity_name", "description_list"}
    assert kind.supplied("graphrag") == {"entity_name", "description_list", "max_length"}
    assert kind.expected("graphrag") == {"entity_name", "description_list"}  # what every version fills
    assert kind.expected("graphrag-3") == {"entity_name", "description_list", "max_length"}
    extract = get_kind("graphrag.extract_graph")
    assert extract.supplied("graphrag-3") == {"input_text", "entity_types"}
    assert extract.expected("graphrag-2") == {"input_text", "entity_types", "tuple_delimiter", "record_delimiter",
                                              "completion_delimiter"}


def test_default_engine() -> None:
    assert get_kind("graphrag.extract_graph").default_engine() == HARNESS_ENGINE  # the harness runs it
    assert get_kind("graphrag.local_search").default_engine() == "graphrag"  # any GraphRAG version
    lightrag = get_kind("lightrag.entity_extraction")
    assert lightrag.default_engine({"input_text", "tuple_delimiter"}) == "lightrag"
    assert lightrag.default_engine({"input_text", "record_delimiter"}) == "lightrag-old"


def test_file_names_prefer_the_engines_own() -> None:
    assert [k.name for k in kinds_of_file("prompts/community_report.txt")] == ["graphrag.community_report"]
    both = kinds_of_file("prompts/entity_extraction.txt")
    assert {k.name for k in both} == {"graphrag.extract_graph", "lightrag.entity_extraction"}
    assert kinds_of_file("entity_extraction.txt", "lightrag-old")[0].name == "lightrag.entity_extraction"
    assert kinds_of_file("entity_extraction.txt", "graphrag-1")[0].name == "graphrag.extract_graph"
    assert kinds_of_file("notes.txt") == []


def test_text_detection_of_prompt_tune_variants() -> None:
    typed = (STOCK / "graphrag-2" / "prompts" / "extract_graph.txt").read_text()
    untyped = typed.replace("Entity_types: {entity_types}", "").replace("One of the following types: [{entity_types}]", "a short type")
    assert "{entity_types}" not in untyped
    assert detect_kind(untyped).name == "graphrag.extract_graph_untyped"
    json_prompt = ("Extract entities and relationships from the text. Return output as a well-formed JSON with "
                   "\"entities\": [...] and \"relationships\": [...].\nText: {input_text}\nEntity types: {entity_types}\n")
    assert detect_kind(json_prompt).name == "graphrag.extract_graph_json"
    assert detect_kind("Tell me a joke.") is None


def test_untyped_prompt_under_the_extract_graph_file_name(tmp_path: Path) -> None:
    # prompt-tune --no-entity-types writes its untyped prompt to extract_graph.txt: the text decides
    project = tmp_path / "ragtest"
    (project / "prompts").mkdir(parents=True)
    (project / "settings.yaml").write_text((STOCK / "graphrag-2" / "settings.yaml").read_text())
    typed = (STOCK / "graphrag-2" / "prompts" / "extract_graph.txt").read_text()
    untyped = typed.replace("Entity_types: {entity_types}", "").replace("One of the following types: [{entity_types}]", "a short type")
    (project / "prompts" / "extract_graph.txt").write_text(untyped)
    report = lint_report(project / "prompts" / "extract_graph.txt")
    assert (report.kind, report.kind_from, report.engine) == ("graphrag.extract_graph_untyped", "file name and text", "graphrag-2")
    assert report.findings == []  # an untyped prompt need not use {entity_types}


def test_settings_layouts() -> None:
    assert engine_of_settings({"llm": {}, "entity_extraction": {}}) == "graphrag-0"
    assert engine_of_settings({"llm": {}, "basic_search": {}}) == "graphrag-1"
    assert engine_of_settings({"llm": {}, "drift_search": {"reduce_prompt": "x"}}) == "graphrag-1"
    assert engine_of_settings({"models": {}, "extract_graph": {}}) == "graphrag-2"
    assert engine_of_settings({"completion_models": {}}) == "graphrag-3"


@pytest.mark.parametrize("name", builtin_names())
def test_builtins_declare_their_kind(name: str) -> None:
    template = load_builtin(name)
    assert template.meta.kind in PROMPT_KINDS
    assert lint_report(f"builtin:{name}").kind == template.meta.kind


def test_yaml_kind_is_validated_with_a_one_line_error() -> None:
    text = "name: x\nkind: graphrag.extract_grph\nuser: 'Text: {input_text}'\n"
    with pytest.raises(InputError) as caught:
        load_yaml_text(text, "t.yaml")
    message = str(caught.value)
    assert message.startswith("t.yaml:2: kind: 'graphrag.extract_grph' is not a prompt kind (kinds: graphrag.extract_graph,")
    assert "\n" not in message


def test_yaml_kind_sets_the_input_the_template_must_carry() -> None:
    summary = "kind: graphrag.summarize_descriptions\nuser: 'Summarize {entity_name}: {description_list}'\n"
    assert load_yaml_text(summary, "s.yaml").meta.kind == "graphrag.summarize_descriptions"
    with pytest.raises(InputError, match=r"s.yaml:2: user: no message has the \{description_list\} placeholder"):
        load_yaml_text("kind: graphrag.summarize_descriptions\nuser: 'Summarize {entity_name}'\n", "s.yaml")
    knowledge = "kind: graphrag.global_search_knowledge\nuser: 'You may use general knowledge [LLM: verify].'\n"
    assert load_yaml_text(knowledge, "k.yaml").meta.kind == "graphrag.global_search_knowledge"  # it carries no data


def test_cli_shows_kind_and_engine(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    path = STOCK / "graphrag-3" / "prompts" / "extract_graph.txt"
    assert harness_cli(["prompts", "lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: kind graphrag.extract_graph (file name), engine graphrag-3 (" in out
    assert harness_cli(["prompts", "lint", "--engine", "graphrag-2", "--json", str(path)]) == 0  # warnings only
    data = json.loads(capsys.readouterr().out)
    assert data["kinds"] == [{"prompt": str(path), "kind": "graphrag.extract_graph", "kind_from": "file name",
                              "engine": "graphrag-2", "engine_from": "given"}]
    # GraphRAG 2 fills the three delimiters; v3's prompt writes them literally and uses none
    assert sorted(f["message"].split(" ")[0] for f in data["findings"]) == [
        "{completion_delimiter}", "{record_delimiter}", "{tuple_delimiter}"]
    assert {f["code"] for f in data["findings"]} == {"variable-unused"}


def test_cli_kind_forces_the_checks(harness_cli, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    prompt = tmp_path / "p.txt"
    prompt.write_text("Answer from these tables.\n{context_data}\nLength: {response_type}\n")
    assert harness_cli(["prompts", "lint", "--kind", "graphrag.question_gen", str(prompt)]) == 1
    out = capsys.readouterr().out
    assert "kind graphrag.question_gen (given), engine graphrag (default)" in out
    assert "{response_type} is never supplied: graphrag fills context_data, question_count" in out


@pytest.mark.parametrize(("option", "value"), [("--kind", "summary"), ("--engine", "graphrag-4")])
def test_cli_rejects_unknown_kind_or_engine(harness_cli, capsys: pytest.CaptureFixture[str], option: str, value: str) -> None:
    assert harness_cli(["prompts", "lint", option, value, "builtin:graphrag/extract_graph"]) == 2
    err = capsys.readouterr().err
    assert f"{option}: '{value}' is not one of" in err and "Traceback" not in err


def test_cli_lists_kinds(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "kinds", "--engine", "graphrag-3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    extract = next(r for r in rows if r["kind"] == "graphrag.extract_graph")
    assert extract == {"kind": "graphrag.extract_graph", "engine": "graphrag-3", "variables": ["input_text", "entity_types"],
                       "files": ["extract_graph.txt"], "settings": ["extract_graph.prompt"], "format": "graphrag",
                       "answer": extract["answer"]}
    assert {r["engine"] for r in rows} == {"graphrag-3"}
    # v3 init writes 13 prompt files; every one is a kind with a file name for v3
    assert len({f for r in rows for f in r["files"]}) == 13


def test_a_harness_summary_template_may_carry_its_data_as_input_text() -> None:
    # the harness's runner fills {input_text} with the description list as GraphRAG writes it
    text = ("kind: graphrag.summarize_descriptions\nformat: graphrag\n"
            "user: 'Summarize {entity_name} in at most {max_length} words: {input_text}'\n")
    template = load_yaml_text(text, "s.yaml")
    report = lint_report(template)
    assert (report.kind, report.engine) == ("graphrag.summarize_descriptions", "harness")
    assert report.findings == []
    # GraphRAG itself fills no {input_text} into a summary prompt
    assert [(f.code, f.message.split(" ")[0]) for f in lint_report(template, engine="graphrag-2").findings] == [
        ("input-missing", "no"), ("placeholder-unknown", "{input_text}")]


def test_a_settings_file_of_something_else_is_no_graphrag_project(tmp_path: Path) -> None:
    (tmp_path / "settings.yaml").write_text("debug: true\ndatabase: {host: localhost}\n")
    (tmp_path / "prompts").mkdir()
    prompt = tmp_path / "prompts" / "extract_graph.txt"
    prompt.write_text((STOCK / "graphrag-3" / "prompts" / "extract_graph.txt").read_text())
    report = lint_report(prompt)
    assert (report.engine, report.engine_from) == ("harness", "default")


def _doc_rows() -> list[str]:
    """The rows docs/prompt-kinds.md's table must hold: per kind, consecutive engine versions with
    the same variables, file names and settings keys share a row; the harness's row last."""
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rows = []
    for kind in PROMPT_KINDS.values():
        groups: list[tuple[list[str], tuple]] = []
        for version, variables in kind.filled.items():
            shape = (variables, kind.files.get(version, ()), kind.settings_keys.get(version, ()))
            if groups and groups[-1][1] == shape:
                groups[-1][0].append(version)
            else:
                groups.append(([version], shape))
        if kind.harness is not None:
            groups.append(([HARNESS_ENGINE], (kind.harness, (), ())))
        for index, (versions, (variables, files, keys)) in enumerate(groups):
            engine = versions[0] if len(versions) == 1 else f"{versions[0]} – {versions[-1].split('-')[-1]}"
            answer = f"{kind.answer} (`{kind.format}`)" if kind.format else kind.answer
            rows.append(row([f"`{kind.name}`" if index == 0 else "″", engine,
                             ", ".join(f"`{v}`" for v in variables) or "(none)", ", ".join(files) or "–",
                             ", ".join(f"`{k}`" for k in keys) or "–", answer if index == 0 else "″"]))
    return rows


def test_the_documented_table_is_the_registry() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "prompt-kinds.md").read_text(encoding="utf-8")
    missing = [r for r in _doc_rows() if r not in doc.splitlines()]
    assert missing == [], "docs/prompt-kinds.md is out of date:\n" + "\n".join(missing)


@pytest.mark.parametrize("kind", ["harness.judge_match", "harness.judge_pairwise", "harness.judge_support"])
def test_judge_prompts_are_registered_kinds_linted_and_detected_like_any_prompt(kind: str, tmp_path: Path) -> None:
    """Each judge decision's prompt is a prompt kind: its built-in lints clean as its kind, a file
    without `kind:` is recognised by its placeholders, and a placeholder the harness does not fill
    is an error as in any prompt."""
    from harness.prompts.lint import lint_report

    builtin = "builtin:" + kind.replace(".", "/")
    report = lint_report(builtin)
    assert (report.kind, report.kind_from, report.engine) == (kind, "declared", HARNESS_ENGINE) and report.findings == []
    text = load_builtin(builtin).user or ""
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\nuser: |-\n" + "".join(f"  {line}\n" for line in (text + "\n{oops}").splitlines()))
    found = lint_report(mine)
    assert (found.kind, found.kind_from) == (kind, "text")
    assert [(f.code, f.severity) for f in found.findings] == [("placeholder-unknown", "error")]
