"""The prompts GraphRAG (each major version, as `graphrag init` writes them) and LightRAG ship lint
clean, as the right kind for the right engine; the defects lint exists for are still caught; and
each false positive lint used to raise on them stays gone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.prompts.kinds import detect_kind, find_project_engine
from harness.prompts.lint import lint_prompt, lint_report

STOCK = Path(__file__).resolve().parents[1] / "fixtures" / "stock_prompts"
KINDS_DIR = Path(__file__).resolve().parent / "fixtures" / "kinds"
ALL = sorted(STOCK.glob("*/prompts/*.txt"))

# file name -> kind (both GraphRAG's init names and LightRAG's PROMPTS keys)
KIND_OF = {
    "entity_extraction.txt": "graphrag.extract_graph", "extract_graph.txt": "graphrag.extract_graph",
    "summarize_descriptions.txt": "graphrag.summarize_descriptions",
    "claim_extraction.txt": "graphrag.extract_claims", "extract_claims.txt": "graphrag.extract_claims",
    "community_report.txt": "graphrag.community_report", "community_report_graph.txt": "graphrag.community_report",
    "community_report_text.txt": "graphrag.community_report_text",
    "local_search_system_prompt.txt": "graphrag.local_search", "basic_search_system_prompt.txt": "graphrag.basic_search",
    "global_search_map_system_prompt.txt": "graphrag.global_search_map",
    "global_search_reduce_system_prompt.txt": "graphrag.global_search_reduce",
    "global_search_knowledge_system_prompt.txt": "graphrag.global_search_knowledge",
    "drift_search_system_prompt.txt": "graphrag.drift_search", "drift_reduce_prompt.txt": "graphrag.drift_reduce",
    "question_gen_system_prompt.txt": "graphrag.question_gen",
    "entity_extraction_system_prompt.txt": "lightrag.entity_extraction_system",
    "entity_extraction_user_prompt.txt": "lightrag.entity_extraction_user",
    "entity_continue_extraction_user_prompt.txt": "lightrag.entity_continue_extraction",
    "summarize_entity_descriptions.txt": "lightrag.summarize_entity_descriptions",
    "keywords_extraction.txt": "lightrag.keywords_extraction",
    "rag_response.txt": "lightrag.rag_response", "naive_rag_response.txt": "lightrag.naive_rag_response",
}


def expected_kind(path: Path) -> str:
    if path.parent.parent.name == "lightrag-old" and path.name == "entity_extraction.txt":
        return "lightrag.entity_extraction"  # LightRAG <= 1.4.7 used GraphRAG 0.x's file name
    return KIND_OF[path.name]


def test_every_folder_has_its_init_prompts() -> None:
    counts = {folder.name: len(list((folder / "prompts").glob("*.txt"))) for folder in STOCK.iterdir() if folder.is_dir()}
    # init writes 10 prompts in v0.9, 12 in v1.2 (+ drift reduce, basic search), 13 from v2 (report split in two)
    assert counts == {"graphrag-0": 10, "graphrag-1": 12, "graphrag-2": 13, "graphrag-3": 13, "lightrag": 7, "lightrag-old": 2}


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_stock_prompt_lints_clean_as_its_kind_and_engine(path: Path) -> None:
    report = lint_report(path)
    assert [str(f) for f in report.findings] == []
    assert report.kind == expected_kind(path)
    engine = path.parent.parent.name
    if engine.startswith("graphrag"):
        assert report.engine == engine
        assert Path(report.engine_from).resolve() == (path.parent.parent / "settings.yaml").resolve()
    else:  # LightRAG has no settings file: the newest version that fills every placeholder used
        # (old LightRAG's summary prompt uses nothing current LightRAG does not fill)
        newest = "lightrag" if path.name == "summarize_entity_descriptions.txt" else engine
        assert (report.engine, report.engine_from) == (newest, "default")


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_stock_prompt_kind_is_detected_from_its_text(path: Path) -> None:
    found = detect_kind(path.read_text(encoding="utf-8"))
    wanted = expected_kind(path)
    if wanted == "lightrag.entity_extraction_system":
        # carries no {input_text}: taken for LightRAG's system message by its file name only, so
        # that an extraction prompt which lost its input is not mistaken for one
        assert found is None
        return
    assert found is not None
    if wanted in ("graphrag.basic_search", "graphrag.drift_reduce"):
        # same placeholders ({context_data}, {response_type}) as local search, and checked the same:
        # only the file name or settings key tells them apart
        assert found.name == "graphrag.local_search"
    else:
        assert found.name == wanted


@pytest.mark.parametrize("version", ["graphrag-0", "graphrag-1", "graphrag-2", "graphrag-3"])
def test_engine_is_read_from_the_settings_graphrag_init_writes(version: str) -> None:
    found = find_project_engine(STOCK / version / "prompts" / "extract_graph.txt")
    assert found == (version, (STOCK / version / "settings.yaml").resolve())


def test_a_stock_prompt_outside_its_project_is_checked_for_the_harness(tmp_path: Path) -> None:
    # without settings, the extraction prompt is linted for the harness's runner, which fills {language}
    shutil.copy(STOCK / "graphrag-2" / "prompts" / "extract_graph.txt", tmp_path / "extract_graph.txt")
    report = lint_report(tmp_path / "extract_graph.txt")
    assert (report.kind, report.engine) == ("graphrag.extract_graph", "harness")
    assert [f.code for f in report.findings] == ["variable-unused"]


def test_a_graphrag_2_prompt_in_a_graphrag_3_project_is_an_error() -> None:
    # GraphRAG 3 fills only {input_text} and {entity_types}: its str.format raises on the delimiters
    findings = lint_prompt(STOCK / "graphrag-2" / "prompts" / "extract_graph.txt", engine="graphrag-3")
    unknown = sorted(f.message.split(" ")[0] for f in findings if f.code == "placeholder-unknown")
    assert unknown == ["{completion_delimiter}", "{record_delimiter}", "{tuple_delimiter}"]
    # and nothing else: the examples are still read with the delimiters GraphRAG parses with
    assert {f.code for f in findings} == {"placeholder-unknown"}
    assert all("graphrag-3 fills entity_types, input_text" in f.message for f in findings if f.code == "placeholder-unknown")


def test_an_old_lightrag_prompt_for_current_lightrag_is_an_error() -> None:
    # LightRAG >= 1.4.8 no longer fills {record_delimiter}
    findings = lint_prompt(STOCK / "lightrag-old" / "prompts" / "entity_extraction.txt", engine="lightrag")
    assert [(f.code, f.message.split(" ")[0]) for f in findings if f.severity == "error"] == [
        ("placeholder-unknown", "{record_delimiter}")]


# --------------------------------------------------------------------------- false positives that are gone
# Each of these was reported by lint on main before prompt kinds (issue 17); each test fails there.


def _codes(path: Path, **settings: str) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in lint_prompt(path, **settings)]


def test_summary_prompt_is_not_missing_its_input() -> None:
    codes = _codes(STOCK / "graphrag-2" / "prompts" / "summarize_descriptions.txt")
    assert not [c for c in codes if c[0] == "input-missing"], codes


def test_search_prompts_have_no_delimiter_mismatch() -> None:
    for name in ("local_search_system_prompt.txt", "global_search_map_system_prompt.txt", "drift_search_system_prompt.txt",
                 "basic_search_system_prompt.txt", "summarize_descriptions.txt"):
        codes = _codes(STOCK / "graphrag-2" / "prompts" / name)
        assert not [c for c in codes if c[0] == "delimiter-mismatch"], (name, codes)


@pytest.mark.parametrize(("name", "variable"), [("summarize_descriptions.txt", "{max_length}"),
                                                ("summarize_descriptions.txt", "{entity_name}"),
                                                ("local_search_system_prompt.txt", "{context_data}")])
def test_kind_variables_are_known(name: str, variable: str) -> None:
    codes = _codes(STOCK / "graphrag-2" / "prompts" / name)
    assert not [c for c in codes if c[0] == "placeholder-unknown" and c[1].startswith(variable)], codes


def test_graphrags_claims_prompt_gets_its_entity_specs() -> None:
    for path in (STOCK / "graphrag-2" / "prompts" / "extract_claims.txt", STOCK / "graphrag-0" / "prompts" / "claim_extraction.txt"):
        codes = _codes(path)
        assert not [c for c in codes if "{entity_specs}" in c[1]], codes


def test_graphrags_extraction_prompt_is_not_told_to_use_language() -> None:
    # GraphRAG fills no {language} into extraction (v0-v2: entity types and delimiters; v3: entity types)
    for version, name in (("graphrag-2", "extract_graph.txt"), ("graphrag-3", "extract_graph.txt"),
                          ("graphrag-0", "entity_extraction.txt")):
        codes = _codes(STOCK / version / "prompts" / name)
        assert not [c for c in codes if "{language}" in c[1]], (version, codes)


def test_summary_prompt_without_examples_has_no_example_findings() -> None:
    codes = _codes(KINDS_DIR / "summary_output_line.txt")
    assert codes == []


# --------------------------------------------------------------------------- real defects still caught


def test_python_wrapper_is_caught() -> None:
    report = lint_report(KINDS_DIR / "python_wrapper.txt")
    assert report.kind == "graphrag.extract_graph"
    assert [(f.code, f.line) for f in report.findings if f.severity == "error"] == [("python-wrapper", 1)]


def test_delimiter_mismatch_is_caught_for_graphrag_3() -> None:
    # GraphRAG 3 writes its delimiters into the prompt: <|#|> here, while it parses with <|>
    findings = lint_prompt(KINDS_DIR / "delimiter_mismatch_v3.txt", engine="graphrag-3")
    mismatches = [f for f in findings if f.code == "delimiter-mismatch"]
    # lines 3 and 4 write <|#|>; and the prompt as a whole (line 1) never shows <|>
    assert sorted({(f.line, "<|#|>" in f.message, "never shows the tuple delimiter <|>" in f.message) for f in mismatches}) == [
        (1, False, True), (3, True, False), (4, True, False)]


def test_undeclared_example_type_is_caught_against_the_examples_own_list(tmp_path: Path) -> None:
    project = tmp_path / "ragtest"
    shutil.copytree(STOCK / "graphrag-2", project)
    path = project / "prompts" / "extract_graph.txt"
    text = path.read_text(encoding="utf-8")
    # example 1 declares `Entity_types: ORGANIZATION,PERSON`; give one of its entities another type
    first = text.index('("entity"{tuple_delimiter}MARTIN SMITH{tuple_delimiter}PERSON')
    path.write_text(text[:first] + text[first:].replace("{tuple_delimiter}PERSON{tuple_delimiter}", "{tuple_delimiter}VEHICLE{tuple_delimiter}", 1),
                    encoding="utf-8")
    findings = lint_prompt(path)
    assert [(f.code, f.message.split(" outside")[0]) for f in findings] == [
        ("example-type-undeclared", "example 1 in the user message uses type(s) VEHICLE")]
    assert "[ORGANIZATION, PERSON]" in findings[0].message  # its own Entity_types line, not the settings' types


def test_lone_brace_is_caught_in_a_search_prompt() -> None:
    report = lint_report(KINDS_DIR / "lone_brace_search.txt")
    assert report.kind == "graphrag.local_search"
    assert [(f.code, f.line) for f in report.findings] == [("brace-unescaped", 7)]


def test_a_prompt_that_lost_its_input_is_still_caught(tmp_path: Path) -> None:
    # LightRAG's system message under another name: no kind claims it, so the chunk is missing
    prompt = tmp_path / "my_extraction.txt"
    prompt.write_text((STOCK / "lightrag" / "prompts" / "entity_extraction_system_prompt.txt").read_text(encoding="utf-8"))
    assert "input-missing" in {f.code for f in lint_prompt(prompt)}
    # a summary prompt without its description list
    summary = tmp_path / "summarize_descriptions.txt"
    summary.write_text("Summarize the descriptions of {entity_name} in {max_length} words.\n")
    assert [f.code for f in lint_prompt(summary, engine="graphrag-2")] == ["input-missing"]
