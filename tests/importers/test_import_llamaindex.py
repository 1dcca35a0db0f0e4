"""`harness import llamaindex`: cases are LlamaIndex's SentenceSplitter chunks byte for byte, and the
prompt renders as LlamaIndex's extractor fills it (llama-index-core 0.14.25 captures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.cli.prompts import render_case
from harness.suites import load_suite

CAPTURE = Path(__file__).parents[1] / "fixtures" / "engine_captures" / "llamaindex-0.14.25"
CHUNKS = json.loads((CAPTURE / "chunks.json").read_text(encoding="utf-8"))["chunks"]
PROMPTS = json.loads((CAPTURE / "prompts.json").read_text(encoding="utf-8"))["prompts"]


def _import(tmp_path: Path, extractor: str, *options: str) -> Path:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(PROMPTS[extractor]["template"], encoding="utf-8")
    out = tmp_path / "suites" / "li.yaml"
    result = CliRunner().invoke(app, ["import", "llamaindex", str(CAPTURE / "docs"), "--prompt", str(prompt),
                                      "--out", str(out), "--limit", "100", *options])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("size,overlap", [(1024, 200), (40, 10), (16, 4)])
def test_cases_are_llamaindex_chunks(tmp_path: Path, size: int, overlap: int) -> None:
    options = [] if size == 1024 else ["--chunk-size", str(size), "--chunk-overlap", str(overlap)]
    suite = load_suite(_import(tmp_path, "SimpleLLMPathExtractor", *options))
    expected = [c for row in CHUNKS if row["chunk_size"] == size for c in row["chunks"]]
    assert [case.text for case in suite.cases] == expected


def test_the_suite_names_llamaindex_so_runs_score_the_triples_it_keeps(tmp_path: Path) -> None:
    from harness.run.plan import plan_variant

    suite = load_suite(_import(tmp_path, "DynamicLLMPathExtractor", "--chunk-size", "40", "--chunk-overlap", "10"))
    assert suite.spec.engine == "llamaindex"
    assert plan_variant(suite, "project").max_gleanings == 0


@pytest.mark.parametrize("extractor", ["SimpleLLMPathExtractor", "DynamicLLMPathExtractor"])
def test_prompt_renders_as_llamaindex_fills_it(tmp_path: Path, extractor: str) -> None:
    out = _import(tmp_path, extractor, "--chunk-size", "40", "--chunk-overlap", "10")
    suite = load_suite(out)
    messages = render_case(None, suite=out, case=suite.cases[0].id)
    captured = PROMPTS[extractor]
    expected = captured["template"].format(**{**captured["variables"], "text": suite.cases[0].text})
    assert [m["content"] for m in messages] == [expected]


# the extractor's own arguments, as the captures passed them: allowed_entity_types=["PERSON", "PLACE"],
# allowed_relation_types=["MET", "VISITED"]; allowed_entity_props=["born"], allowed_relation_props=["year"]
ARGUMENTS = {
    "DynamicLLMPathExtractor(allowed types)": ("--entity-types", "PERSON,PLACE", "--relation-types", "MET, VISITED"),
    "DynamicLLMPathExtractor(props)": ("--entity-properties", "born", "--relation-properties", "year"),
}


@pytest.mark.parametrize("extractor", sorted(ARGUMENTS))
def test_the_extractors_arguments_fill_the_prompt_as_llamaindex_fills_them(tmp_path: Path, extractor: str) -> None:
    # without them the project's own lists were rendered as "No entity types provided, You are free to define them."
    out = _import(tmp_path, extractor, "--chunk-size", "40", "--chunk-overlap", "10", *ARGUMENTS[extractor])
    suite = load_suite(out)
    messages = render_case(None, suite=out, case=suite.cases[0].id)
    captured = PROMPTS[extractor]
    expected = captured["template"].format(**{**captured["variables"], "text": suite.cases[0].text})
    assert [m["content"] for m in messages] == [expected]
    assert "No entity types provided" not in expected or extractor.endswith("(props)")
    if extractor.endswith("(allowed types)"):  # the types the prompt carries, read by type conformance
        from harness.run.plan import plan_variant

        assert plan_variant(suite, "project").entity_types == ["PERSON", "PLACE"]


def test_max_triplets_fills_the_count(tmp_path: Path) -> None:
    out = _import(tmp_path, "SimpleLLMPathExtractor", "--max-triplets", "25")
    messages = render_case(None, suite=out, case=load_suite(out).cases[0].id)
    assert "extract up to 25 knowledge triplets" in messages[0]["content"]


@pytest.mark.parametrize(("extractor", "options", "says"), [
    ("SimpleLLMPathExtractor", ("--entity-types", "PERSON"),
     "--entity-types: the llamaindex.kg_triplet_extract extractor fills no {allowed_entity_types}"),
    ("DynamicLLMPathExtractor", ("--relation-types", " , "), "--relation-types: give the values comma-separated"),
])
def test_an_argument_the_extractor_does_not_take_is_a_one_line_error(tmp_path: Path, extractor: str,
                                                                     options: tuple[str, ...], says: str, harness_cli,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(PROMPTS[extractor]["template"], encoding="utf-8")
    code = harness_cli(["import", "llamaindex", str(CAPTURE / "docs"), "--prompt", str(prompt),
                        "--out", str(tmp_path / "suites" / "li.yaml"), *options])
    err = capsys.readouterr().err
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_an_argument_the_prompt_never_shows_is_filled_and_said(tmp_path: Path) -> None:
    # DynamicLLMPathExtractor fills {allowed_entity_properties} whether or not the prompt shows it
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(PROMPTS["DynamicLLMPathExtractor"]["template"], encoding="utf-8")
    result = CliRunner().invoke(app, ["import", "llamaindex", str(CAPTURE / "docs"), "--prompt", str(prompt),
                                      "--out", str(tmp_path / "suites" / "li.yaml"), "--entity-properties", "born"])
    assert result.exit_code == 0, result.output
    assert "--entity-properties: the prompt never uses {allowed_entity_properties}" in result.output
