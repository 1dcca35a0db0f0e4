"""Which entity types fill a variant's prompt (GraphRAG's rule), as runs, render and summaries show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.prompts.entity_types import DEFAULT_ENTITY_TYPES, effective_entity_types, types_written_in
from harness.prompts.template import PromptTemplate
from harness.run.plan import plan_variant
from harness.suites import load_suite

# What `graphrag prompt-tune` writes: the discovered types formatted into the text, no {entity_types}.
TUNED_TXT = (
    "-Goal-\nFind entities.\n- entity_type: One of the following types: [vessel, port, shipping company]\n"
    "Use {tuple_delimiter} between fields and {record_delimiter} between records, end with {completion_delimiter}.\n"
    "Text: {input_text}\nOutput:"
)
STOCK_TXT = (
    "Find entities of types [{entity_types}] with {tuple_delimiter}, {record_delimiter}, {completion_delimiter}.\n"
    "Text: {input_text}\nOutput:"
)
TUNED_YAML = (
    "name: tuned\nformat: graphrag\nentity_types: [drug, gene]\n"
    "user: 'Types [{entity_types}] {tuple_delimiter}{record_delimiter}{completion_delimiter} Text: {input_text}'\n"
)


def _suite(tmp_path: Path, *, suite_types: str | None, variants: dict[str, str]) -> Path:
    (tmp_path / "suites").mkdir(exist_ok=True)
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "prompts" / "tuned.txt").write_text(TUNED_TXT, encoding="utf-8")
    (tmp_path / "prompts" / "stock.txt").write_text(STOCK_TXT, encoding="utf-8")
    (tmp_path / "prompts" / "tuned.yaml").write_text(TUNED_YAML, encoding="utf-8")
    lines = ["name: types"]
    if suite_types is not None:
        lines.append(f"entity_types: {suite_types}")
    lines.append("variants:")
    lines += [f"  {name}: {spec}" for name, spec in variants.items()]
    lines += ["cases:", "  - id: one", "    text: The Maru docked at Rotterdam."]
    path = tmp_path / "suites" / "types.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_builtin_prompt_takes_the_suite_types_not_its_own_list(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, suite_types="[vessel, port]", variants={"default": "{prompt: builtin:graphrag.extract_graph}"}))
    plan = plan_variant(suite, "default")
    assert plan.entity_types == ["vessel", "port"]
    assert plan.types.source == "suite"
    assert "[vessel,port]" in plan.render(suite.cases[0])[-1]["content"]


def test_variant_types_win_over_the_suite_for_a_stock_prompt(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, suite_types="[vessel, port]", variants={
        "stock": "{prompt: prompts/stock.txt, entity_types: [person]}",
        "builtin": "{prompt: builtin:graphrag.extract_graph_json, entity_types: [person]}"}))
    for name in ("stock", "builtin"):
        plan = plan_variant(suite, name)
        assert (plan.entity_types, plan.types.source) == (["person"], "variant")


def test_without_suite_types_the_defaults_apply(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, suite_types=None, variants={
        "default": "{prompt: builtin:lightrag.extract_graph}", "stock": "{prompt: prompts/stock.txt}"}))
    for name in ("default", "stock"):
        plan = plan_variant(suite, name)
        assert (plan.entity_types, plan.types.source) == (list(DEFAULT_ENTITY_TYPES), "default")


def test_a_tuned_prompt_keeps_its_own_types(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, suite_types="[vessel, port]", variants={
        "txt": "{prompt: prompts/tuned.txt, entity_types: [person]}", "yaml": "{prompt: prompts/tuned.yaml}"}))
    txt = plan_variant(suite, "txt")
    assert (txt.types.values, txt.types.source, txt.types.ignored) == (["vessel", "port", "shipping company"], "prompt", ["person"])
    assert "ignored" in txt.types.describe()
    yaml = plan_variant(suite, "yaml")
    assert (yaml.entity_types, yaml.types.source) == (["drug", "gene"], "prompt")
    assert "Types [drug,gene]" in yaml.render(suite.cases[0])[-1]["content"]


def test_a_prompt_that_names_no_types_says_so() -> None:
    template = PromptTemplate(user="Extract everything. Text: {input_text}")
    found = effective_entity_types(template, variant=None, suite=["a"])
    assert (found.values, found.source) == ([], "prompt")
    assert types_written_in(template) == []


def test_render_shows_the_effective_types(tmp_path: Path, harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    path = _suite(tmp_path, suite_types="[vessel, port]", variants={"default": "{prompt: builtin:graphrag.extract_graph}"})
    assert harness_cli(["prompts", "render", "--suite", str(path)]) == 0
    captured = capsys.readouterr()
    assert "[vessel,port]" in json.loads(captured.out)[-1]["content"]
    # issue 27, item 10: the variant is named as one ("of default" read as the built-in default's types)
    assert "entity types of variant 'default': vessel, port (from the suite)" in captured.err


@pytest.mark.slow
def test_summary_and_run_header_show_each_variants_types(suite, api_key, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    from ..support.fake_server import FakeOpenAIServer
    from harness.finish import finish_outcome
    from harness.run.schedule import RunOptions, run_suite

    from ..conftest import REPO, script_for

    with FakeOpenAIServer(script_for(suite)) as srv:
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path, base_url=srv.base_url, progress=True))
    summary = finish_outcome(outcome, record_mode="once").summary
    header = capsys.readouterr().out
    for name in suite.variant_names():
        plan = plan_variant(suite, name)
        assert plan.types is not None
        assert summary.variants[name].entity_types.model_dump() == {"values": plan.entity_types, "source": plan.types.source}
        assert f"{suite.name}/{name}: entity types {plan.types.describe()}\n" in header
    schema = json.loads((REPO / "harness" / "schemas" / "summary.schema.json").read_text())
    jsonschema.validate(summary.to_json(), schema)
