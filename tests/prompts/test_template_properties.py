"""Property tests for prompt files: text prompts and YAML/JSON templates, generated and mutated
from the shipped ones, either load and render or raise one InputError naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import InputError
from harness.prompts.template import PromptTemplate, load_text_prompt
from harness.prompts.yaml_template import load_yaml_text

REPO = Path(__file__).resolve().parents[2]
YAML_FILES = sorted([*(REPO / "prompts").rglob("*.yaml"), *(REPO / "harness" / "builtin_prompts").glob("*.yaml")])
YAML_TEXTS = [path.read_text(encoding="utf-8") for path in YAML_FILES]
TEXT_PROMPTS = [path.read_text(encoding="utf-8") for path in sorted((REPO / "prompts").rglob("*.txt"))]

TOKENS = ["{input_text}", "{entity_types}", "{examples}", "{", "}", "{{", "}}", "{x}", "{0}", "{input_text!r}",
          "&a", "*a", "!!int", "!!float", "!!timestamp", "[", "]", ":", "- ", "|", ">", "#", "'", '"', "\n",
          "\t", "\x00", ".nan", "user:", "messages:", "examples:", "functions: {x: bullets(y)}", "format: xml",
          "variables: {x: null}", "partial: {input_text: a}"]
VARIABLES = {"input_text": "Ana met Bo in Lisbon.", "entity_types": "person,geo", "tuple_delimiter": "<|>",
             "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>", "language": "English"}


def mutate(text: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        at = data.draw(st.integers(0, len(text)), label="at")
        end = data.draw(st.integers(at, min(len(text), at + 40)), label="end")
        piece = data.draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), label="piece")
        text = text[:at] + piece + text[end:]
    return text


def renders_or_input_error(template: PromptTemplate, source: str) -> None:
    """Rendering a loaded template gives messages or one InputError naming the source."""
    try:
        messages = template.render(dict(VARIABLES), case="c")
        template.render_continue(VARIABLES)
        template.render_loop(VARIABLES)
    except InputError as exc:
        assert "\n" not in exc.message and exc.message.startswith(source), exc.message
        return
    assert messages and messages[-1]["role"] == "user"
    assert all(isinstance(m["content"], str) for m in messages)


def load_yaml_or_input_error(text: str, source: str) -> None:
    try:
        template = load_yaml_text(text, source)
    except InputError as exc:
        assert "\n" not in exc.message and exc.message.startswith(source), exc.message
        return
    renders_or_input_error(template, source)


@given(data=st.data())
def test_mutated_yaml_templates_load_and_render_or_fail_in_one_line(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(YAML_TEXTS), label="template")
    load_yaml_or_input_error(mutate(text, data), "prompts/t.yaml")


@given(data=st.data())
def test_mutated_templates_as_json_load_and_render_or_fail_in_one_line(data: st.DataObject) -> None:
    """The same templates written as JSON (a JSON template is read by the YAML loader)."""
    text = json.dumps(yaml.safe_load(data.draw(st.sampled_from(YAML_TEXTS), label="template")))
    load_yaml_or_input_error(mutate(text, data), "prompts/t.json")


@given(user=st.lists(st.sampled_from(list("ab {}_\n\x00é") + TOKENS[:8]), max_size=60).map("".join),
       values=st.dictionaries(st.sampled_from(list(VARIABLES) + ["x", "examples"]), st.text(max_size=20), max_size=8))
def test_generated_text_prompts_render_or_fail_in_one_line(user: str, values: dict[str, str]) -> None:
    template = PromptTemplate(user=user, source="prompts/p.txt")
    try:
        messages = template.render({**VARIABLES, **values})
    except InputError as exc:
        assert "\n" not in exc.message and exc.message.startswith("prompts/p.txt:"), exc.message
        return
    assert len(messages) == 1


@given(data=st.data())
def test_mutated_text_prompts_load_and_render_or_fail_in_one_line(data: st.DataObject, tmp_path_factory) -> None:
    text = mutate(data.draw(st.sampled_from(TEXT_PROMPTS), label="prompt"), data)
    path = tmp_path_factory.mktemp("p") / "p.txt"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        template = load_text_prompt(path)
    except InputError as exc:
        assert "\n" not in exc.message and exc.message.startswith(str(path)), exc.message
        return
    renders_or_input_error(template, str(path))
