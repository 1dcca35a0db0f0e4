"""Resolution order (environment, builtin, paths, prompts/, bare built-ins) and the built-in catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.prompts import builtin_names, load_builtin, load_prompt, resolve_prompt, variant_env_name
from harness.prompts.builtin import builtin_from_path, canonical_name
from harness.run.variant_prompt import load_variant_prompt, resolve_variant_prompt
from harness.run.plan import plan_variant
from harness.suites import load_suite

PROMPT = "Types {entity_types} in {language}: {tuple_delimiter} {record_delimiter} {completion_delimiter}\n{input_text}\n"
VALUES = {"input_text": "T", "entity_types": "person", "tuple_delimiter": "<|>", "record_delimiter": "##",
          "completion_delimiter": "<|COMPLETE|>", "language": "English"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with prompts in several places and a suite in suites/."""
    (tmp_path / "suites").mkdir()
    (tmp_path / "prompts" / "tuned").mkdir(parents=True)
    (tmp_path / "prompts" / "tuned" / "extract.txt").write_text("project-prompts " + PROMPT)
    (tmp_path / "prompts" / "base.yaml").write_text(yaml.safe_dump({"user": "base-yaml " + PROMPT}))
    (tmp_path / "suites" / "local.txt").write_text("suite-folder " + PROMPT)
    (tmp_path / "root.txt").write_text("project " + PROMPT)
    suite = {
        "name": "r",
        "variants": {
            "default": {"prompt": "builtin:graphrag.extract_graph"},
            "tuned-v2": {"prompt": "prompts/tuned/extract.txt"},
        },
        "cases": [{"id": "c", "text": "Ana met Bo."}],
    }
    (tmp_path / "suites" / "r.yaml").write_text(yaml.safe_dump(suite))
    return tmp_path


def first_word(resolved) -> str:
    return resolved.load().render(VALUES)[-1]["content"].split()[0]


def test_order(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite_path, root = project / "suites" / "r.yaml", project
    monkeypatch.chdir(project / "prompts")
    kw = {"suite_path": suite_path, "root": root, "environ": {}}
    assert resolve_prompt("local.txt", **kw).found == "suite-folder"
    assert resolve_prompt("root.txt", **kw).found == "project"
    assert resolve_prompt("base.yaml", **kw).found == "cwd"
    monkeypatch.chdir(project)
    assert resolve_prompt("tuned/extract.txt", **kw).found == "project-prompts"
    assert resolve_prompt("tuned/extract", **kw).path == root / "prompts" / "tuned" / "extract.txt"  # suffix inferred
    assert resolve_prompt("base", **kw).path == root / "prompts" / "base.yaml"
    assert resolve_prompt(str(root / "root.txt"), **kw).found == "absolute"
    assert resolve_prompt("builtin:graphrag/extract_graph", **kw).builtin == "graphrag/extract_graph"
    assert resolve_prompt("graphrag/extract_graph_json", **kw).found == "builtin"  # bare built-in name, last
    with pytest.raises(InputError, match="nope.txt: prompt not found; looked in "):
        resolve_prompt("nope.txt", **kw)


def test_environment_overrides(project: Path) -> None:
    suite = load_suite(project / "suites" / "r.yaml")
    assert variant_env_name("tuned-v2") == "HARNESS_PROMPT_TUNED_V2"
    env = {"HARNESS_PROMPT_TUNED_V2": "builtin:graphrag/extract_graph_untyped"}
    resolved = resolve_variant_prompt(suite, "tuned-v2", environ=env)
    assert resolved.builtin == "graphrag/extract_graph_untyped" and resolved.overridden_by == "HARNESS_PROMPT_TUNED_V2"
    assert resolve_variant_prompt(suite, "tuned-v2", environ={}).found == "project"
    # a folder of replacement prompts, searched first, with or without the leading prompts/
    other = project / "other"
    (other / "tuned").mkdir(parents=True)
    (other / "tuned" / "extract.txt").write_text("other-dir " + PROMPT)
    resolved = resolve_variant_prompt(suite, "tuned-v2", environ={"HARNESS_PROMPTS_DIR": str(other)})
    assert resolved.found == "prompts-dir" and first_word(resolved) == "other-dir"
    assert load_variant_prompt(suite, "default", environ={}).source == "builtin:graphrag/extract_graph"
    with pytest.raises(InputError, match=r"missing\.txt: prompt not found \(from HARNESS_PROMPT_DEFAULT\)"):
        resolve_variant_prompt(suite, "default", environ={"HARNESS_PROMPT_DEFAULT": "missing.txt"})


def test_builtin_in_a_suite_loads_through_the_runner(project: Path) -> None:
    suite = load_suite(project / "suites" / "r.yaml")
    plan = plan_variant(suite, "default")
    messages = plan.render(suite.cases[0])
    assert plan.template.source == "builtin:graphrag/extract_graph"
    assert messages[-1]["content"].rstrip().endswith("Text: Ana met Bo.\n######################\nOutput:")


def test_builtin_spellings() -> None:
    assert canonical_name("builtin:graphrag.extract_graph") == "graphrag/extract_graph"
    assert canonical_name("builtin:graphrag/extract_graph.yaml") == "graphrag/extract_graph"
    assert canonical_name("prompts/x.txt") is None
    assert builtin_from_path(Path("/p/builtin:graphrag/extract_graph")) == "graphrag/extract_graph"
    assert builtin_from_path(Path("/p/builtin:lightrag.extract_graph")) == "lightrag/extract_graph"
    assert load_prompt(Path("/anywhere/builtin:graphrag.extract_claims")).format == "claims"
    with pytest.raises(InputError, match=r"no built-in prompt of that name \(built-ins: builtin:graphrag/community_report"):
        load_builtin("graphrag/nope")


def test_catalogue() -> None:
    assert builtin_names() == [
        "graphrag/community_report",
        "graphrag/extract_claims",
        "graphrag/extract_graph",
        "graphrag/extract_graph_json",
        "graphrag/extract_graph_untyped",
        "graphrag/global_search_map",
        "graphrag/stock_extract_graph_2x",
        "graphrag/stock_extract_graph_3x",
        "graphrag/summarize_descriptions",
        "harness/judge_match",
        "harness/judge_pairwise",
        "harness/judge_support",
        "lightrag/extract_graph",
    ]
    extract = load_builtin("graphrag/extract_graph")
    assert extract.continue_prompt and extract.loop_prompt and len(extract.examples) == 2
    assert {n: load_builtin(n).format for n in builtin_names()} == {
        "graphrag/community_report": "report",
        "graphrag/extract_claims": "claims",
        "graphrag/extract_graph": "graphrag",
        "graphrag/extract_graph_json": "json",
        "graphrag/extract_graph_untyped": "graphrag",
        "graphrag/global_search_map": "map_points",
        "graphrag/stock_extract_graph_2x": "graphrag",
        "graphrag/stock_extract_graph_3x": "graphrag",
        "graphrag/summarize_descriptions": "summary",
        # the template's default format: a judge's answer is read as a verdict (harness/judges/verdict.py)
        "harness/judge_match": "graphrag",
        "harness/judge_pairwise": "graphrag",
        "harness/judge_support": "graphrag",
        "lightrag/extract_graph": "lightrag",
    }


def test_builtin_examples_parse_in_their_format() -> None:
    """What a built-in shows the model parses cleanly with the format it declares."""
    from harness.formats.answer import parse
    from harness.prompts.examples import render_output

    for name in builtin_names():
        template = load_builtin(name)
        values = template.values({"input_text": "T"})
        for example in template.examples:
            result = parse(render_output(example, template.format, values), template.format,
                           tuple_delimiter=values.get("tuple_delimiter", "<|>"),
                           record_delimiter=values.get("record_delimiter", "##"),
                           completion_delimiter=values.get("completion_delimiter", "<|COMPLETE|>"))
            report = result.format_report
            assert report.records_dropped == 0 and report.records_parsed > 0, name
            assert report.completion == "present", name
            assert not [i.code for i in report.issues], (name, report.issues)


def test_cli_list_and_show(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "list"]) == 0
    out = capsys.readouterr().out
    assert "builtin:graphrag/extract_graph " in out and "builtin:lightrag/extract_graph" in out
    assert "builtin:graphrag/extract_claims" + " " * 10 + "graphrag.extract_claims " in out  # its declared kind
    assert harness_cli(["prompts", "show", "builtin:graphrag/extract_claims"]) == 0
    assert "format: claims" in capsys.readouterr().out
    assert harness_cli(["prompts", "show", "builtin:nope/x"]) == 2
