"""YAML (and JSON) prompt templates: metadata, chat messages, gleaning prompts and examples as data.

    name: podcast-extract            # metadata: name, version, description
    version: "2"
    kind: graphrag.extract_graph     # what the prompt is for (harness.prompts.kinds; `harness prompts kinds`)
    format: graphrag                 # graphrag | lightrag | json | claims | report | llamaindex | function | json_triples | triple_table | summary | map_points
    language: English                # defaults for {language}, {entity_types} and the delimiters
    entity_types: [person, organization]
    tuple_delimiter: "<|>"
    variables: {claim_description: "red flags"}   # declared variables (null: must be supplied)
    partial: {domain: podcasts}      # bound now, like LlamaIndex's partial_format
    variable_mappings: {input_text: text}         # supplied name -> name the template uses
    functions: {type_list: "bullets(entity_types)"}
    system: |
      ...
    user: |
      ... {examples} ... {input_text}
    continue_prompt: ...
    loop_prompt: ...
    examples:
      - text: ...
        entities: [{name: A, type: person, description: ...}]
        relationships: [{source: A, target: B, description: ..., strength: 7}]
    lint: {ignore: [variable-unused]}

`messages:` (a list of {role, content}) may replace `system`/`user` for chat templates with
few-shot turns; a file that is just such a list is a chat template too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from ..errors import InputError
from ..model import Value
from ..yamlfile import LineMap, Location, format_loc, line_of, parse_yaml, shown_key
from ..formats import format_names, get_format, is_format
from ..formats.base import DELIMITER_KEYS, resolve_delimiters
from .examples import Example, ExampleLayout
from .syntax import placeholders
from .template import (
    CONTINUE_PROMPT,
    INPUT_VARIABLE,
    LOOP_PROMPT,
    Message,
    PromptMeta,
    PromptTemplate,
    TemplateFunction,
    read_prompt_text,
)

Lines = LineMap | Mapping[Location, int]  # a parsed file's lines, shared (aliased) or not

# \A...\Z, not ^...$: `$` also matches before a trailing newline.
NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*\Z")
CALL = re.compile(r"\A\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*\Z")
BLOCK_SCALAR = re.compile(r"(?:^|:|-)\s*[|>][0-9+-]*\s*(?:#.*)?$")


def _items(value: str) -> list[str]:
    parts = value.split("\n") if "\n" in value else value.split(",")
    return [p.strip() for p in parts if p.strip()]


# Functions a YAML template may name in `functions:`; each takes one variable's value.
FUNCTIONS: dict[str, Callable[[str], str]] = {
    "upper": str.upper,
    "lower": str.lower,
    "title": str.title,
    "strip": str.strip,
    "bullets": lambda v: "\n".join(f"- {x}" for x in _items(v)),
    "lines": lambda v: "\n".join(_items(v)),
    "comma_space": lambda v: ", ".join(_items(v)),
    "quoted": lambda v: ", ".join(f'"{x}"' for x in _items(v)),
    "bracketed": lambda v: "[" + ", ".join(_items(v)) + "]",
    "json_list": lambda v: json.dumps(_items(v), ensure_ascii=False),
}


class MessageSpec(Value):
    role: Literal["system", "user", "assistant"]
    content: str


class LintSpec(Value):
    ignore: list[str] = Field(default_factory=list)


# TemplateSpec fields PromptMeta keeps as declared
_DECLARED_AS_IS = ("version", "description", "language", "entity_types", *DELIMITER_KEYS, "token_budget")


class TemplateSpec(Value):
    name: str = ""
    version: str = ""
    description: str = ""
    kind: str | None = None  # a registered prompt kind (harness.prompts.kinds)
    format: str = "graphrag"  # a registered output format (harness.formats)
    language: str | None = None
    entity_types: list[str] | None = None
    tuple_delimiter: str | None = None
    record_delimiter: str | None = None
    completion_delimiter: str | None = None
    token_budget: int | None = Field(None, gt=0)
    variables: dict[str, str | None] = Field(default_factory=dict)
    partial: dict[str, str] = Field(default_factory=dict)
    variable_mappings: dict[str, str] = Field(default_factory=dict)
    functions: dict[str, str] = Field(default_factory=dict)
    system: str | None = None
    user: str | None = None
    messages: list[MessageSpec] | None = None
    continue_prompt: str | None = None
    loop_prompt: str | None = None
    examples: list[Example] = Field(default_factory=list)  # validated as the example values themselves
    example_template: str | None = None
    example_separator: str | None = None
    example_block_ends: Literal["strip", "keep"] = "strip"  # see examples.ExampleLayout.block_ends
    lint: LintSpec = Field(default_factory=LintSpec)

    @field_validator("format")
    @classmethod
    def _registered_format(cls, value: str) -> str:
        if not is_format(value):
            raise ValueError(f"'{value}' is not one of {', '.join(format_names())}")
        return value

    @field_validator("kind")
    @classmethod
    def _registered_kind(cls, value: str | None) -> str | None:
        from .kinds import PROMPT_KINDS

        if value is not None and value not in PROMPT_KINDS:
            raise ValueError(f"'{value}' is not a prompt kind (kinds: {', '.join(PROMPT_KINDS)})")
        return value

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value

    @field_validator("variables", "partial", mode="before")
    @classmethod
    def _scalar_text(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v) for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _messages(self) -> TemplateSpec:
        if self.messages is not None:
            if self.user is not None or self.system is not None:
                raise ValueError("give either `messages` or `system`/`user`, not both")
            if not self.messages or self.messages[-1].role != "user":
                raise ValueError("the last message of a chat template must be a user message")
            if any(m.role == "system" for m in self.messages[1:]):
                raise ValueError("only the first message may be a system message")
        elif self.user is None:
            raise ValueError("a template needs a `user` message (or a `messages` list)")
        for name in (*self.variables, *self.partial, *self.functions, *self.variable_mappings.values()):
            if not NAME.match(name):
                raise ValueError(f"'{shown_key(name)}' is not a placeholder name (letters, digits and '_')")
        return self


def _fail(source: str, lines: Lines, loc: Location, message: str) -> InputError:
    line = line_of(lines, loc)
    where = f"{source}:{line}" if line else source
    name = format_loc(loc)
    text = f"{where}: {name + ': ' if name else ''}{message}"
    return InputError(text.replace("\r", "\\r").replace("\n", "\\n"))  # one line, whatever the values hold


def _content_line(raw_lines: list[str], lines: Lines, loc: Location) -> int:
    """The file line a string value starts on: the line after a `|` or `>` block indicator."""
    line = line_of(lines, loc) or 1
    raw = raw_lines[line - 1] if 0 < line <= len(raw_lines) else ""
    return line + 1 if BLOCK_SCALAR.search(raw.rstrip()) else line


class NamedFunction:
    """A YAML function mapping such as `bullets(entity_types)`; `inputs` names what it reads."""

    def __init__(self, name: str, argument: str) -> None:
        self.name = name
        self.argument = argument
        self.inputs = (argument,)

    def __call__(self, values: Mapping[str, str]) -> str:
        return FUNCTIONS[self.name](values.get(self.argument, ""))

    def __repr__(self) -> str:
        return f"{self.name}({self.argument})"


def compile_function(spec: str, *, where: str) -> TemplateFunction:
    """`bullets(entity_types)` -> a function of the template's values."""
    match = CALL.match(spec)
    if not match or match.group(1) not in FUNCTIONS:
        known = ", ".join(sorted(FUNCTIONS))
        raise InputError(f"{where}: '{shown_key(spec)}' is not a function call like bullets(entity_types) (functions: {known})")
    return NamedFunction(match.group(1), match.group(2))


def template_from_data(data: Any, lines: Lines, text: str, source: str, *, strict: bool = True) -> PromptTemplate:
    """Build a template from parsed YAML; every problem is an InputError naming the line."""
    if isinstance(data, list):
        data = {"messages": data}
    if not isinstance(data, dict):
        raise InputError(f"{source}: a prompt template is a mapping with at least `user` (or a list of messages)")
    try:
        spec = TemplateSpec.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):  # models, dataclasses
            message = f"unknown key '{shown_key(loc[-1])}'"
        elif error["type"] in ("missing", "missing_argument"):
            message, loc = f"missing required key '{loc[-1]}'", loc[:-1]
        else:
            message = error["msg"].removeprefix("Value error, ")
        raise _fail(source, lines, loc, message) from None

    raw_lines = text.split("\n")
    origin: dict[str, int] = {}
    system: str | None = spec.system
    user: str
    history: list[Message] = []
    if spec.messages is not None:
        body = list(spec.messages)
        if body[0].role == "system":
            system = body.pop(0).content
            origin["system"] = _content_line(raw_lines, lines, ("messages", 0, "content"))
        offset = 1 if system is not None else 0
        for index, turn in enumerate(body[:-1]):
            history.append({"role": turn.role, "content": turn.content})
            origin[f"history.{index}"] = _content_line(raw_lines, lines, ("messages", index + offset, "content"))
        user = body[-1].content
        origin["user"] = _content_line(raw_lines, lines, ("messages", len(spec.messages) - 1, "content"))
    else:
        assert spec.user is not None
        user = spec.user
        origin["user"] = _content_line(raw_lines, lines, ("user",))
        if system is not None:
            origin["system"] = _content_line(raw_lines, lines, ("system",))
    for key in ("continue_prompt", "loop_prompt", "language", "entity_types", "token_budget",
                "tuple_delimiter", "record_delimiter", "completion_delimiter", "format", "variables"):
        if (key,) in lines:
            origin[key] = _content_line(raw_lines, lines, (key,))
    for name in spec.variables:
        origin[f"variables.{name}"] = line_of(lines, ("variables", name)) or 1

    functions: dict[str, TemplateFunction] = {}
    for name, call in spec.functions.items():
        where = f"{source}:{line_of(lines, ('functions', name)) or 1}"
        functions[name] = compile_function(call, where=where)

    examples: list[Example] = list(spec.examples)
    for index, item in enumerate(examples):
        item.line = line_of(lines, ("examples", index)) or 1
        raw_key = "block" if item.block is not None else "output"
        if (item.block or item.output) is not None:
            item.output_line = _content_line(raw_lines, lines, ("examples", index, raw_key))
        origin[f"examples.{index}"] = item.line

    defaults = {name: value for name, value in spec.variables.items() if value is not None}
    if spec.language is not None:
        defaults.setdefault("language", spec.language)
    if spec.entity_types is not None:
        defaults.setdefault("entity_types", ",".join(spec.entity_types))
    output_format = get_format(spec.format)
    declared = {key: getattr(spec, key) for key in DELIMITER_KEYS}
    if output_format.delimited:  # a delimited format's own delimiters fill what is not declared
        declared = resolve_delimiters(output_format, declared).as_variables()
    for key, value in declared.items():
        if value is not None:
            defaults.setdefault(key, value)

    layout = ExampleLayout(template=spec.example_template, block_ends=spec.example_block_ends)
    if spec.example_separator is not None:
        layout.separator = spec.example_separator
    template = PromptTemplate(
        user=user,
        source=source,
        system=system,
        continue_prompt=spec.continue_prompt if spec.continue_prompt is not None else CONTINUE_PROMPT,
        loop_prompt=spec.loop_prompt if spec.loop_prompt is not None else LOOP_PROMPT,
        format=spec.format,
        defaults=defaults,
        history=history,
        variable_mappings=dict(spec.variable_mappings),
        function_mappings=functions,
        examples=examples,
        example_layout=layout,
        meta=PromptMeta(
            name=spec.name or Path(source).stem,
            **{key: getattr(spec, key) for key in _DECLARED_AS_IS},
            declared_variables=list(spec.variables),
            kind=spec.kind,
            format_declared="format" in data,
            lint_ignore=list(spec.lint.ignore),
            raw_text=text,
        ),
        origin=origin,
    )
    if spec.partial:
        template = template.partial_format(**spec.partial)
    if strict:
        _check_input(template, lines, source)
    return template


def _check_input(template: PromptTemplate, lines: Lines, source: str) -> None:
    """The template carries its kind's data ({input_text} unless its kind says otherwise)."""
    from .kinds import PROMPT_KINDS

    kind = PROMPT_KINDS.get(template.meta.kind or "")
    carried = kind.input_variable if kind is not None else INPUT_VARIABLE
    if carried is None:
        return
    wanted = template.variable_mappings.get(carried, carried)
    if carried != INPUT_VARIABLE and INPUT_VARIABLE in template.placeholders():
        return  # the harness's runner fills {input_text} with the same data
    if not any(wanted in placeholders(text) for _, text in template.parts()):
        loc: Location = ("user",) if ("user",) in lines else ("messages",)
        what = "the chunk" if carried == INPUT_VARIABLE else "its data"
        raise _fail(source, lines, loc, f"no message has the {{{wanted}}} placeholder, so {what} would never be sent")


def load_yaml_prompt(path: Path, *, strict: bool = True, source: str | None = None) -> PromptTemplate:
    """Load a YAML or JSON template file (JSON is read as YAML, which it is a subset of)."""
    text = read_prompt_text(path)
    return load_yaml_text(text, source or str(path), strict=strict)


def load_yaml_text(text: str, source: str, *, strict: bool = True) -> PromptTemplate:
    data, lines = parse_yaml(text, source)
    return template_from_data(data, lines, text, source, strict=strict)
