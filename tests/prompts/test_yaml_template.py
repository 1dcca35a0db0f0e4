"""YAML templates: metadata, chat messages, examples as data; loaded by load_prompt and rendered by the runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.formats.answer import parse
from harness.prompts import load_prompt, load_yaml_prompt
from harness.run.plan import plan_variant
from harness.suites import load_suite

from .test_template import VALUES

LINT = Path(__file__).resolve().parent / "fixtures" / "lint"


def write_suite(root: Path, variants: dict, *, extra: dict | None = None) -> Path:
    (root / "suites").mkdir(parents=True, exist_ok=True)
    suite = {
        "name": "yaml-prompts",
        "entity_types": ["person", "geo", "organization"],
        "variants": variants,
        "cases": [{"id": "move", "text": "Mara Lind moved to Oslo.", "entities": [{"name": "Mara Lind", "type": "person"}]}],
        **(extra or {}),
    }
    path = root / "suites" / "s.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def test_metadata_and_defaults() -> None:
    template = load_prompt(LINT / "good.yaml")
    assert template.meta.name == "towns-extract" and template.meta.version == "3"
    assert template.meta.entity_types == ["person", "geo", "organization"]
    assert template.format == "graphrag"
    assert template.system is not None and template.system.startswith("You build")
    assert template.origin["user"] == 10 and template.origin["system"] == 8
    # declared metadata fills the prompt when nothing is supplied
    content = template.render({"input_text": "T"})[1]["content"]
    assert "[person,geo,organization]" in content and "in English" in content


def test_runner_path_renders_yaml_templates_with_the_variant_delimiters(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.yaml").write_text((LINT / "good.yaml").read_text())
    suite = load_suite(write_suite(tmp_path, {
        "default": {"prompt": "prompts/p.yaml"},
        "hashes": {"prompt": "prompts/p.yaml", "tuple_delimiter": "|", "record_delimiter": ";;"},
    }))
    case = suite.cases[0]
    for name, td in (("default", "<|>"), ("hashes", "|")):
        plan = plan_variant(suite, name)
        assert plan.template is not None
        messages = load_prompt(suite.resolve(suite.spec.variants[name].prompt)).render(plan.variables(case))
        assert messages == plan.render(case)
        user = messages[-1]["content"]
        assert user.endswith("Text: Mara Lind moved to Oslo.\nOutput:\n")
        # the structured example is written with this variant's delimiters, so it parses with them
        start = user.index(f'("entity"{td}MARA LIND{td}person')
        example = user[start:user.index("<|COMPLETE|>", start) + len("<|COMPLETE|>")]
        result = parse(example, "graphrag", tuple_delimiter=td, record_delimiter=plan.delimiters.record)
        assert len(result.graph.entities) == 3 and len(result.graph.relationships) == 2
        assert result.format_report.records_dropped == 0 and result.format_report.completion == "present"


def test_the_runner_gives_a_variant_the_delimiters_lint_and_the_examples_give_it(tmp_path: Path) -> None:
    # one order everywhere (harness.formats.base.resolve_delimiters): variant, prompt, then the
    # format's default; a LightRAG prompt that declares none is sent LightRAG's, not GraphRAG's
    from harness.formats import get_format
    from harness.formats.base import resolve_delimiters

    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.txt").write_text("Fields: {tuple_delimiter} Records: {record_delimiter}\n{input_text}")
    suite = load_suite(write_suite(tmp_path, {
        "light": {"prompt": "prompts/p.txt", "format": "lightrag"},
        "light_old": {"prompt": "prompts/p.txt", "format": "lightrag", "tuple_delimiter": "<|>"},
        "graph": {"prompt": "prompts/p.txt"},
    }))
    expected = {
        "light": {"tuple_delimiter": "<|#|>", "record_delimiter": "\n", "completion_delimiter": "<|COMPLETE|>"},
        "light_old": {"tuple_delimiter": "<|>", "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"},
        "graph": {"tuple_delimiter": "<|>", "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"},
    }
    for name, delimiters in expected.items():
        plan = plan_variant(suite, name)
        assert plan.delimiters.as_variables() == delimiters, name
        assert resolve_delimiters(get_format(plan.format), plan.spec.model_dump()).as_variables() == delimiters
        assert f"Fields: {delimiters['tuple_delimiter']} " in plan.render(suite.cases[0])[-1]["content"]


def test_messages_list_and_json_templates(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "Extract {entity_types}."},
        {"role": "user", "content": "Mara moved to Oslo."},
        {"role": "assistant", "content": '("entity"{tuple_delimiter}MARA LIND{tuple_delimiter}person{tuple_delimiter}x)\n{completion_delimiter}'},
        {"role": "user", "content": "{input_text}"},
    ]
    (tmp_path / "chat.json").write_text(json.dumps(messages))
    template = load_prompt(tmp_path / "chat.json")
    rendered = template.render(VALUES)
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "user"]
    assert rendered[2]["content"] == '("entity"<|>MARA LIND<|>person<|>x)\n<|COMPLETE|>'
    (tmp_path / "chat.yaml").write_text(yaml.safe_dump({"name": "chat", "messages": messages}))
    assert load_yaml_prompt(tmp_path / "chat.yaml").render(VALUES) == rendered


def test_declared_variables_partial_mappings_functions(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "variables: {claim_description: red flags, required_thing: null}\n"
        "partial: {domain: shipping}\n"
        "variable_mappings: {input_text: text}\n"
        "functions: {type_list: bullets(entity_types), loud: upper(language)}\n"
        "user: |\n"
        "  {domain} {claim_description} {required_thing}\n"
        "  {type_list}\n"
        "  {loud}: {text}\n"
    )
    template = load_prompt(tmp_path / "t.yaml")
    assert template.partials == {"domain": "shipping"}
    with pytest.raises(InputError, match=r"t\.yaml:6: placeholder \{required_thing\} has no value"):
        template.render(VALUES)
    content = template.render({**VALUES, "required_thing": "R"})[0]["content"]
    assert content == "shipping red flags R\n- person\n- geo\nENGLISH: Ana met Bo.\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("user: hi {input_text}\nloop_prompts: x\n", r"t\.yaml:2: loop_prompts: unknown key 'loop_prompts'"),
        ("system: only a system message\n", r"t\.yaml:1: a template needs a `user` message"),
        ("user: no chunk here\n", r"t\.yaml:1: user: no message has the \{input_text\} placeholder"),
        ("user: '{input_text}'\nformat: xml\n", r"t\.yaml:2: format: "),
        ("user: '{input_text}'\nfunctions: {x: 'eval(input_text)'}\n", r"t\.yaml:2: 'eval\(input_text\)' is not a function call"),
        ("user: '{input_text}'\nexamples:\n  - text: a\n    output: b\n    block: c\n", r"t\.yaml:3: examples\[0\]: an example has exactly one of"),
        ("user: [unclosed\n", r"t\.yaml:\d+: YAML error"),
        ("messages:\n  - {role: user, content: '{input_text}'}\n  - {role: assistant, content: x}\n", r"the last message of a chat template must be a user message"),
    ],
)
def test_schema_errors_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "t.yaml").write_text(text)
    with pytest.raises(InputError, match=message):
        load_prompt(tmp_path / "t.yaml")


def test_raw_and_block_examples(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "format: lightrag\n"
        "tuple_delimiter: '<|#|>'\n"
        "user: |\n"
        "  {examples}\n"
        "  Text: {input_text}\n"
        "example_separator: \"\\n--\\n\"\n"
        "examples:\n"
        "  - text: Mara moved.\n"
        "    output: |\n"
        "      entity{tuple_delimiter}MARA{tuple_delimiter}person{tuple_delimiter}x\n"
        "      {completion_delimiter}\n"
        "  - block: |\n"
        "      Output:\n"
        "      entity{tuple_delimiter}BO{tuple_delimiter}person{tuple_delimiter}y\n"
        "      {completion_delimiter}\n"
    )
    template = load_prompt(tmp_path / "t.yaml")
    content = template.render({"input_text": "T"})[0]["content"]
    assert "entity<|#|>MARA<|#|>person<|#|>x\n<|COMPLETE|>" in content
    assert "\n--\nOutput:\nentity<|#|>BO<|#|>person<|#|>y\n<|COMPLETE|>" in content
    assert template.examples[0].output_line == 10 and template.examples[1].output_line == 13


@pytest.mark.parametrize("fmt", ["json", "claims", "report", "lightrag"])
def test_structured_examples_render_in_every_format(fmt: str) -> None:
    from harness.prompts.builtin import load_builtin

    name = {"json": "graphrag/extract_graph_json", "claims": "graphrag/extract_claims",
            "report": "graphrag/community_report", "lightrag": "lightrag/extract_graph"}[fmt]
    template = load_builtin(name)
    assert template.format == fmt
    values = template.values({**VALUES, "tuple_delimiter": "<|#|>" if fmt == "lightrag" else "<|>"})
    assert values["examples"].count("Output:" if fmt not in ("json",) else "Answer:") == len(template.examples)


# --------------------------------------------------------------------------- growth (issue 28.10)


def loaded_user(text: str) -> int:
    from harness.prompts.yaml_template import load_yaml_text

    return len(load_yaml_text(text, "t.yaml", strict=False).user)


def many(kind: str, n: int) -> str:
    if kind == "variables":
        return "variables:\n" + "".join(f"  v{i}: value {i}\n" for i in range(n)) + "user: '{input_text}'\n"
    if kind == "examples":
        return ("user: '{examples} {input_text}'\nexamples:\n"
                + "".join(f"  - text: t{i}\n    entities: [{{name: A{i}, type: person}}]\n" for i in range(n)))
    turns = "".join(f"  - role: user\n    content: q{i}\n  - role: assistant\n    content: a{i}\n" for i in range(n))
    return "messages:\n" + turns + "  - role: user\n    content: '{input_text}'\n"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["variables", "examples", "messages"])
def test_a_template_of_many_values_loads_in_work_linear_in_them(kind: str) -> None:
    """Each value's line was looked up in a fresh copy of every value's line (quadratic)."""
    import functools

    from tests.support.growth import assert_linear

    assert_linear(loaded_user, functools.partial(many, kind), 2_000)
