"""Lint: every defect in the fixtures is caught with its code and line; good prompts stay clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.prompts import LINT_CODES, LintFinding, builtin_names, lint_prompt, lint_text
from harness.prompts.lint import DEFAULT_TOKEN_BUDGET
from harness.suites import load_suite

REPO = Path(__file__).resolve().parents[2]
LINT = Path(__file__).resolve().parent / "fixtures" / "lint"
SHIPPED = [REPO / "prompts" / name / "extract_graph.txt" for name in ("default", "podcast", "biomed", "news-es")]


def codes(findings: list[LintFinding]) -> set[tuple[str, int]]:
    return {(f.code, f.line) for f in findings}


# fixture -> the finding it must produce (code, line); other findings may come along
DEFECTS = [
    ("missing_input.txt", "input-missing", 1),
    ("unknown_placeholder.txt", "placeholder-unknown", 2),
    ("unused_language.txt", "variable-unused", 1),
    ("malformed_placeholder.txt", "placeholder-malformed", 5),
    ("malformed_spaces.txt", "placeholder-malformed", 25),
    ("escaped_placeholder.txt", "placeholder-escaped", 2),
    ("lone_brace.txt", "brace-unescaped", 9),
    ("delimiter_mismatch.txt", "delimiter-mismatch", 5),
    ("asks_json.txt", "delimiter-mismatch", 9),
    ("example_unparsable.txt", "example-unparsable", 16),
    ("example_wrong_delimiter.txt", "example-delimiter", 16),
    ("example_no_completion.txt", "example-no-completion", 16),
    ("example_bad_types.txt", "example-type-undeclared", 16),
    ("example_refusal.txt", "example-not-extraction", 16),
    ("example_summary.txt", "example-not-extraction", 16),
    ("example_prose.txt", "example-prose", 16),
    ("language_sentence.txt", "language-sentence", 7),
    ("python_wrapper.txt", "python-wrapper", 1),
    ("examples_unused.yaml", "examples-unused", 22),
    ("gleaning_placeholder.yaml", "gleaning-placeholder", 20),
    ("template_invalid.yaml", "template-invalid", 21),
    ("yaml_bad_types.yaml", "example-type-undeclared", 24),
    ("yaml_dangling.yaml", "example-dangling-relationship", 24),
    ("yaml_language_sentence.yaml", "language-sentence", 5),
    ("yaml_raw_example_bad.yaml", "example-not-extraction", 26),
]


@pytest.mark.parametrize(("fixture", "code", "line"), DEFECTS, ids=[d[0] for d in DEFECTS])
def test_each_defect_is_caught_with_code_and_line(fixture: str, code: str, line: int) -> None:
    findings = lint_prompt(LINT / fixture)
    assert (code, line) in codes(findings), [str(f) for f in findings]
    finding = next(f for f in findings if f.code == code)
    assert finding.severity == LINT_CODES[code][0]
    assert finding.hint == LINT_CODES[code][2] and finding.hint
    assert finding.source == str(LINT / fixture)


def test_defect_fixtures_have_nothing_else_wrong() -> None:
    """Each fixture differs from good.txt/good.yaml by one defect, so findings stay focused."""
    allowed = {"example_unparsable.txt": {"example-dangling-relationship"},
               "language_sentence.txt": {"variable-unused"}}
    for fixture, code, _ in DEFECTS:
        found = {f.code for f in lint_prompt(LINT / fixture)}
        assert found - {code} <= allowed.get(fixture, set()), (fixture, found)


@pytest.mark.parametrize("name", ["good.txt", "good.yaml"])
def test_good_fixtures_are_clean(name: str) -> None:
    assert lint_prompt(LINT / name) == []


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.parent.name)
def test_shipped_prompts_are_clean(path: Path) -> None:
    assert lint_prompt(path) == []


@pytest.mark.parametrize("suite", ["podcast", "biomed", "news-es"])
def test_shipped_suites_lint_clean_with_their_variant_settings(suite: str) -> None:
    from harness.model import GoldCase
    from harness.run.plan import plan_variant

    loaded = load_suite(REPO / "suites" / f"{suite}.yaml")
    for name, spec in loaded.spec.variants.items():
        plan = plan_variant(loaded, name)  # the settings a run uses
        variables = plan.variables(GoldCase(id="lint", text=""))
        assert lint_prompt(loaded.resolve(spec.prompt), variables=variables, format=plan.format) == [], name


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_prompts_are_clean(name: str) -> None:
    assert lint_prompt(f"builtin:{name}") == []


def test_every_code_is_documented() -> None:
    doc = (REPO / "docs" / "prompts.md").read_text(encoding="utf-8")
    for code in LINT_CODES:
        assert f"`{code}`" in doc, code


def test_token_budget() -> None:
    assert lint_prompt(SHIPPED[2]) == []  # biomed: about 2,700 tokens, under the default budget
    found = lint_prompt(SHIPPED[2], max_tokens=1000)
    assert [f.code for f in found] == ["token-budget"]
    assert "1000" in found[0].message and "gpt-4o-mini" in found[0].message
    assert DEFAULT_TOKEN_BUDGET == 4000


def test_token_budget_from_the_template(tmp_path: Path) -> None:
    text = (LINT / "good.yaml").read_text().replace("format: graphrag", "format: graphrag\ntoken_budget: 50")
    (tmp_path / "p.yaml").write_text(text)
    assert [f.code for f in lint_prompt(tmp_path / "p.yaml")] == ["token-budget"]


@pytest.mark.parametrize(
    "wrapper",
    [
        'PROMPTS["entity_extraction"] = """\n{body}"""\n',
        "EXTRACT: str = '''\n{body}'''\n",
        'from graphrag.prompts import x\n\n{body}',
        '{body}\n"""\n',
    ],
)
def test_python_wrappers(tmp_path: Path, wrapper: str) -> None:
    path = tmp_path / "prompt.txt"
    path.write_text(wrapper.replace("{body}", (LINT / "good.txt").read_text()))
    assert "python-wrapper" in {f.code for f in lint_prompt(path)}


def test_language_value_from_the_suite_is_checked() -> None:
    found = lint_prompt(LINT / "good.txt", language="The primary language of the provided text is Chinese.")
    assert [f.code for f in found] == ["language-sentence"]
    assert found[0].line == 7  # where {language} is used
    assert lint_prompt(LINT / "good.txt", language="Chinese") == []


def test_delimiter_settings_change_what_agrees(tmp_path: Path) -> None:
    # the prompt hard-codes <|#|>: right for a LightRAG-style variant, wrong for the GraphRAG default
    assert "delimiter-mismatch" in {f.code for f in lint_prompt(LINT / "delimiter_mismatch.txt")}
    assert "delimiter-mismatch" not in {
        f.code for f in lint_prompt(LINT / "delimiter_mismatch.txt", tuple_delimiter="<|#|>")
    }


def test_json_format_with_tuple_instructions_is_a_mismatch() -> None:
    found = lint_prompt(LINT / "good.txt", format="json")
    assert "delimiter-mismatch" in {f.code for f in found}


def test_prompt_that_never_shows_its_delimiter(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("List the people in {language}, one per line, types [{entity_types}].\nText: {input_text}\n")
    messages = [f.message for f in lint_prompt(path) if f.code == "delimiter-mismatch"]
    assert any("never shows the tuple delimiter" in m for m in messages)
    assert any("never shows the completion delimiter" in m for m in messages)


def test_examples_are_checked_against_the_suite_delimiters() -> None:
    # a LightRAG-style prompt parsed as GraphRAG: its examples lose their delimiter
    found = lint_prompt(LINT / "good.txt", tuple_delimiter="<|#|>")
    assert found == []  # placeholders everywhere: the examples follow the variant
    found = lint_prompt("builtin:lightrag/extract_graph", tuple_delimiter="<|>", format="graphrag")
    assert "delimiter-mismatch" not in {f.code for f in found}


def test_ignore_list() -> None:
    assert lint_prompt(LINT / "unused_language.txt", ignore=["variable-unused"]) == []


def test_lint_text_for_generated_prompts() -> None:
    text = (LINT / "example_refusal.txt").read_text()
    found = lint_text(text, source="tuned")
    assert [(f.code, f.source) for f in found] == [("example-not-extraction", "tuned")]


def test_lint_a_loaded_template() -> None:
    from harness.prompts import load_prompt

    template = load_prompt(LINT / "good.yaml")
    assert lint_prompt(template) == []
    assert lint_prompt(template.partial_format(language="English")) == []


def test_missing_file_is_bad_input() -> None:
    with pytest.raises(InputError, match="not found"):
        lint_prompt(LINT / "nope.txt")
    with pytest.raises(InputError, match="no built-in prompt"):
        lint_prompt("builtin:graphrag/nope")


def test_finding_json_and_text() -> None:
    finding = lint_prompt(LINT / "unknown_placeholder.txt")[0]
    data = finding.to_json()
    assert set(data) == {"source", "line", "code", "severity", "message", "hint"}
    assert str(finding).startswith(f"{LINT / 'unknown_placeholder.txt'}:2: error placeholder-unknown: ")


# --------------------------------------------------------------------------- the command


def test_cli_lint_exit_codes(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "lint", str(LINT / "good.txt"), "builtin:graphrag/extract_graph"]) == 0
    assert "2 prompt(s) checked: 0 error(s), 0 warning(s)" in capsys.readouterr().out
    assert harness_cli(["prompts", "lint", str(LINT / "good.txt"), str(LINT / "example_refusal.txt")]) == 1
    out = capsys.readouterr().out
    assert "example_refusal.txt:16: error example-not-extraction:" in out
    assert "    hint: " in out
    # warnings alone pass, unless --strict
    assert harness_cli(["prompts", "lint", str(LINT / "unused_language.txt")]) == 0
    assert harness_cli(["prompts", "lint", "--strict", str(LINT / "unused_language.txt")]) == 1


def test_cli_lint_json(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "lint", "--json", str(LINT / "malformed_placeholder.txt")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["errors"] == 1 and data["warnings"] == 0
    assert data["findings"][0]["code"] == "placeholder-malformed" and data["findings"][0]["line"] == 5


def test_cli_lint_options_and_suite(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "lint", str(LINT / "delimiter_mismatch.txt"), "--tuple-delimiter", "<|#|>"]) == 0
    capsys.readouterr()
    assert harness_cli(["prompts", "lint", str(LINT / "good.txt"), "--max-tokens", "10", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["findings"][0]["code"] == "token-budget"
    assert harness_cli(["prompts", "lint", "--suite", str(REPO / "suites" / "podcast.yaml")]) == 0
    assert "3 prompt(s) checked: 0 error(s)" in capsys.readouterr().out  # default, tuned, auto


def test_cli_lint_bad_input_exits_2(harness_cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "lint", str(LINT / "nope.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harness: ") and err.count("\n") == 1
    assert harness_cli(["prompts", "lint"]) == 2
    assert harness_cli(["prompts", "lint", str(LINT / "good.txt"), "--format", "xml"]) == 2


def test_a_declared_variable_without_a_value_is_supplied_by_the_caller(tmp_path: Path) -> None:
    """`variables: {entity_name: null}` declares an input (GraphRAG fills it); it is not unknown."""
    path = tmp_path / "summarize.yaml"
    path.write_text(
        "format: report\nvariables: {entity_name: null}\n"
        "user: |\n  Describe {entity_name} in {language}.\n  {input_text}\n",
        encoding="utf-8",
    )
    assert [f.code for f in lint_prompt(path)] == []
    path.write_text(path.read_text().replace("{entity_name}", "{entity_nme}"), encoding="utf-8")
    assert "placeholder-unknown" in [f.code for f in lint_prompt(path)]


# A translated prompt labels its examples in its own language: the examples are found by holding
# records in the prompt's format (Vietnamese `Đầu ra:` in a public LightRAG project gave three
# false `example-not-extraction` errors, and an inline example under such a label was never checked).
TRANSLATED = [
    ("vi", "-Ví dụ-", "Văn bản:", "Đầu ra:"),
    ("zh", "-示例-", "文本：", "输出："),
    ("de", "-Beispiel-", "Text:", "Ausgabe:"),
    ("es", "-Ejemplo-", "<Texto>", "<Salida>"),
]


def _translated(heading: str, text_label: str, answer_label: str) -> str:
    good = (LINT / "good.txt").read_text(encoding="utf-8")
    example = good[good.index("-Example-"):good.index("-Real Data-")]
    local = (example.replace("-Example-", heading).replace("Text:\n", text_label + "\n")
             .replace("Output:\n", answer_label + "\n"))
    return good.replace(example, local)


@pytest.mark.parametrize(("language", "heading", "text_label", "answer_label"), TRANSLATED, ids=[t[0] for t in TRANSLATED])
def test_translated_example_labels_are_found_by_their_records(language: str, heading: str, text_label: str,
                                                              answer_label: str, tmp_path: Path) -> None:
    prompt = _translated(heading, text_label, answer_label)
    assert answer_label in prompt and "Output:\n(" not in prompt
    assert lint_text(prompt) == []
    # the example is read and checked: a type off its list is caught on the answer's first line
    bad = prompt.replace("OSLO{tuple_delimiter}geo", "OSLO{tuple_delimiter}city")
    assert codes(lint_text(bad)) == {("example-type-undeclared", 16)}


@pytest.mark.parametrize(("language", "heading", "text_label", "answer_label"), TRANSLATED, ids=[t[0] for t in TRANSLATED])
def test_a_translated_block_example_is_not_reported_as_no_answer(language: str, heading: str, text_label: str,
                                                                 answer_label: str, tmp_path: Path) -> None:
    good = (LINT / "good.txt").read_text(encoding="utf-8")
    example = good[good.index("-Example-"):good.index("-Real Data-")]
    block = _translated(heading, text_label, answer_label)
    block = block[block.index(heading):block.index("-Real Data-")]
    path = tmp_path / "translated.yaml"
    path.write_text(
        "name: translated\nformat: graphrag\nlanguage: English\nuser: |\n"
        + "".join("  " + line + "\n" for line in good.replace(example, "{examples}\n\n").splitlines())
        + "examples:\n  - block: " + json.dumps(block, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    assert lint_prompt(path) == []


def test_a_record_layout_in_the_instructions_is_no_example() -> None:
    # instructions showing a record's layout open with prose or fill it with <placeholders>
    prompt = ("Write each entity as:\n"
              '("entity"{tuple_delimiter}<name>{tuple_delimiter}<type>{tuple_delimiter}<description>)\n\n'
              "Format:\n"
              '("entity"{tuple_delimiter}<name>{tuple_delimiter}<type>{tuple_delimiter}<description>)\n'
              "Finish with {completion_delimiter}, put {record_delimiter} between records, types [{entity_types}], "
              "descriptions in {language}.\n\nText: {input_text}\nOutput:\n")
    assert lint_text(prompt) == []
