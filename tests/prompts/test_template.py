"""Templates: placeholders and escapes, partial formatting, variable and function mappings, chat turns."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.prompts import PromptTemplate, fill, load_prompt, placeholders
from harness.prompts.template import CONTINUE_PROMPT, LOOP_PROMPT, load_text_prompt

VALUES = {
    "input_text": "Ana met Bo.",
    "entity_types": "person,geo",
    "tuple_delimiter": "<|>",
    "record_delimiter": "##",
    "completion_delimiter": "<|COMPLETE|>",
    "language": "English",
}


def test_placeholders_in_order_without_escapes() -> None:
    assert placeholders("{b} {{a}} {a} {b} {not valid} {1x}") == ["b", "a"]


def test_fill_escapes_and_json_braces() -> None:
    text = 'Answer {{"name": "{language}"}} and keep {"raw": 1}'
    assert fill(text, VALUES) == 'Answer {"name": "English"} and keep {"raw": 1}'


def test_fill_missing_names_the_line() -> None:
    with pytest.raises(InputError, match=r"^p\.txt:3: placeholder \{domain\} has no value"):
        fill("a\nb\nc {domain}", VALUES, source="p.txt")
    assert fill("x {domain}", VALUES, missing="keep") == "x {domain}"
    assert fill("x {domain}", VALUES, missing="empty") == "x "


def test_values_are_not_rescanned() -> None:
    assert fill("{input_text}", {"input_text": "{language} {{x}}"}) == "{language} {{x}}"


def test_text_prompt_must_send_the_chunk(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("No chunk here.")
    with pytest.raises(InputError, match="no {input_text} placeholder"):
        load_prompt(path)
    assert load_text_prompt(path, strict=False).user == "No chunk here."


def test_text_prompt_defaults() -> None:
    template = PromptTemplate(user="{input_text}")
    assert template.continue_prompt == CONTINUE_PROMPT and template.loop_prompt == LOOP_PROMPT
    assert template.format == "graphrag"
    assert template.render(VALUES) == [{"role": "user", "content": "Ana met Bo."}]


def test_partial_format_binds_now_and_keeps_the_rest() -> None:
    template = PromptTemplate(user="{domain}: {input_text} {{x}}", system="You read {domain}.")
    bound = template.partial_format(domain="news {in braces}")
    assert bound.partials == {"domain": "news {in braces}"}
    assert bound.render({"input_text": "T"}) == [
        {"role": "system", "content": "You read news {in braces}."},
        {"role": "user", "content": "news {in braces}: T {x}"},
    ]
    # bound values win over what is supplied later, unlike defaults
    assert bound.render({"input_text": "T", "domain": "sport"})[1]["content"].startswith("news")
    with_default = PromptTemplate(user="{domain}: {input_text}", defaults={"domain": "news"})
    assert with_default.render({"input_text": "T", "domain": "sport"})[0]["content"] == "sport: T"


def test_variable_mappings_rename_supplied_variables() -> None:
    # LlamaIndex's template_var_mappings: supplied name -> name the template uses
    template = PromptTemplate(user="Types: {types}\nText: {text}", variable_mappings={"input_text": "text", "entity_types": "types"})
    assert template.render(VALUES)[0]["content"] == "Types: person,geo\nText: Ana met Bo."
    assert template.required_variables() == ["entity_types", "input_text"]


def test_function_mappings_compute_variables() -> None:
    template = PromptTemplate(
        user="{type_list}\n{input_text}",
        function_mappings={"type_list": lambda v: "\n".join(f"- {t}" for t in v["entity_types"].split(","))},
    )
    assert template.render(VALUES)[0]["content"] == "- person\n- geo\nAna met Bo."
    assert template.required_variables() == ["input_text"]


def test_chat_history_between_system_and_user() -> None:
    template = PromptTemplate(
        system="sys {language}",
        history=[{"role": "user", "content": "Example: Mara moved."}, {"role": "assistant", "content": '("entity"{tuple_delimiter}MARA)'}],
        user="{input_text}",
    )
    assert [m["role"] for m in template.render(VALUES)] == ["system", "user", "assistant", "user"]
    assert template.render(VALUES)[2]["content"] == '("entity"<|>MARA)'


def test_gleaning_prompts_can_be_rendered() -> None:
    template = PromptTemplate(user="{input_text}", continue_prompt="Add more with {tuple_delimiter}.")
    assert template.render_continue(VALUES) == "Add more with <|>."
    assert template.continue_prompt == "Add more with {tuple_delimiter}."  # what gleaning sends today
