"""Prompt templates: GraphRAG-style text files and chat templates rendered into chat messages.

Placeholders are `{name}`; `{{` and `}}` stand for literal braces. Any other brace is kept as
written, so JSON examples in a prompt survive rendering (lint reports them, because GraphRAG's
and LightRAG's own `str.format` would fail on them).

A template can also carry what LlamaIndex users expect from its prompt classes:
partial formatting (`partial_format`), variable mappings (a supplied variable renamed to the
name the template uses) and function mappings (a variable computed from the others at render
time), plus few-shot examples kept as data and rendered into `{examples}`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..inputfiles import read_bytes, read_text, shown_path
from .examples import Example, ExampleLayout, render_examples
from .syntax import TOKEN, Missing, escape, fill, partial_fill, placeholders, rendered_length

# GraphRAG's gleaning prompts, sent after the first answer (see llm/gleaning).
CONTINUE_PROMPT = (
    "MANY entities and relationships were missed in the last extraction. "
    "Remember to ONLY emit entities that match any of the previously extracted types. "
    "Add them below using the same format:\n"
)
LOOP_PROMPT = (
    "It appears some entities and relationships may have still been missed. "
    "Answer Y if there are still entities or relationships that need to be added, "
    "or N if there are none. Please answer with a single letter Y or N.\n"
)

# The variables the runner supplies for every case (see run.plan.VariantPlan.variables).
RUNNER_VARIABLES = (
    "input_text",
    "entity_types",
    "tuple_delimiter",
    "record_delimiter",
    "completion_delimiter",
    "language",
)
INPUT_VARIABLE = "input_text"
EXAMPLES_VARIABLE = "examples"
# Most characters one rendered request may hold, all messages together: about two million
# tokens, beyond any model's context. Checked before the messages are built.
MAX_RENDERED_CHARS = 8_000_000

Message = dict[str, str]
# A function mapping computes one variable from all the others (LlamaIndex's function_mappings).
TemplateFunction = Callable[[Mapping[str, str]], str]

__all__ = [
    "CONTINUE_PROMPT", "LOOP_PROMPT", "RUNNER_VARIABLES", "TOKEN", "Message", "PromptMeta", "PromptTemplate",
    "escape", "fill", "load_text_prompt", "partial_fill", "placeholders",
]


@dataclass
class PromptMeta:
    """What a template declares about itself (YAML templates); text prompts declare nothing."""

    name: str = ""
    version: str = ""
    description: str = ""
    language: str | None = None
    entity_types: list[str] | None = None
    tuple_delimiter: str | None = None
    record_delimiter: str | None = None
    completion_delimiter: str | None = None
    token_budget: int | None = None
    declared_variables: list[str] = field(default_factory=list)
    kind: str | None = None  # the declared prompt kind (harness.prompts.kinds)
    format_declared: bool = False  # the template names its output format itself
    lint_ignore: list[str] = field(default_factory=list)
    raw_text: str | None = None  # the file as read, for checks on the file itself


@dataclass
class PromptTemplate:
    """One prompt version: what is sent for a chunk, and how gleaning continues.

    `history` holds chat turns sent between the system and the final user message (few-shot
    turns of a chat template). `origin` maps each part ("system", "user", "history.0",
    "continue_prompt", "loop_prompt", "examples.0", ...) to the file line it starts on.
    """

    user: str
    source: str = "<prompt>"
    system: str | None = None
    continue_prompt: str = CONTINUE_PROMPT
    loop_prompt: str = LOOP_PROMPT
    format: str = "graphrag"
    defaults: dict[str, str] = field(default_factory=dict)
    history: list[Message] = field(default_factory=list)
    variable_mappings: dict[str, str] = field(default_factory=dict)  # supplied name -> template name
    function_mappings: dict[str, TemplateFunction] = field(default_factory=dict)
    examples: list[Example] = field(default_factory=list)
    example_layout: ExampleLayout = field(default_factory=ExampleLayout)
    partials: dict[str, str] = field(default_factory=dict)  # values already bound by partial_format
    meta: PromptMeta = field(default_factory=PromptMeta)
    origin: dict[str, int] = field(default_factory=dict)

    # ------------------------------------------------------------------ structure

    def parts(self) -> list[tuple[str, str]]:
        """The message templates in sending order, each with its part name."""
        out: list[tuple[str, str]] = []
        if self.system is not None:
            out.append(("system", self.system))
        for index, message in enumerate(self.history):
            out.append((f"history.{index}", message["content"]))
        out.append(("user", self.user))
        return out

    def line_of(self, part: str) -> int:
        return self.origin.get(part, 1)

    def placeholders(self) -> list[str]:
        """Every placeholder the messages use, in order of first use."""
        seen: dict[str, None] = {}
        for _, text in self.parts():
            for name in placeholders(text):
                seen.setdefault(name)
        return list(seen)

    def computed_variables(self) -> set[str]:
        """Placeholders the template fills itself: functions, examples, mapped names."""
        computed = set(self.function_mappings) | set(self.variable_mappings.values())
        if self.examples:
            computed.add(EXAMPLES_VARIABLE)
        return computed

    def required_variables(self) -> list[str]:
        """Names a caller must supply (after defaults, mappings, functions and examples)."""
        reverse = {target: supplied for supplied, target in self.variable_mappings.items()}
        needed: dict[str, None] = {}
        for name in self.placeholders():
            if name in self.function_mappings or (name == EXAMPLES_VARIABLE and self.examples):
                continue
            supplied = reverse.get(name, name)
            if supplied not in self.defaults:
                needed.setdefault(supplied)
        return list(needed)

    # ------------------------------------------------------------------ rendering

    def values(self, variables: Mapping[str, str]) -> dict[str, str]:
        """Every value the messages are filled with: defaults, supplied, mapped, examples, functions."""
        values = {**self.defaults, **variables}
        for supplied, target in self.variable_mappings.items():
            if supplied in values:
                values[target] = values[supplied]
        if self.examples and EXAMPLES_VARIABLE not in variables:
            values[EXAMPLES_VARIABLE] = render_examples(
                self.examples, self.format, values, self.example_layout, source=self.source
            )
        for name, function in self.function_mappings.items():
            values[name] = function(values)
        return values

    def check_size(self, texts: list[str], values: Mapping[str, str], *, case: str | None = None,
                   missing: Missing = "error") -> None:
        """Refuse, before building anything, a rendering larger than MAX_RENDERED_CHARS."""
        size = sum(rendered_length(text, values, missing=missing) for text in texts)
        if size > MAX_RENDERED_CHARS:
            uses = sum(text.count("{" + INPUT_VARIABLE + "}") for text in texts)
            for_case = f" for case '{case}'" if case is not None else ""
            raise InputError(
                f"{self.source}: rendering{for_case} would make {size:,} characters, over the "
                f"{MAX_RENDERED_CHARS:,} limit ({{{INPUT_VARIABLE}}} used {uses} time(s), "
                f"the chunk is {len(values.get(INPUT_VARIABLE, '')):,} characters)"
            )

    def render(self, variables: dict[str, str], *, case: str | None = None) -> list[Message]:
        """The chat messages for these variables; `case` only names the case in errors."""
        values = self.values(variables)
        self.check_size([text for _, text in self.parts()], values, case=case)
        messages: list[Message] = []
        if self.system is not None:
            messages.append(
                {"role": "system", "content": fill(self.system, values, source=self.source, first_line=self.line_of("system"))}
            )
        for index, message in enumerate(self.history):
            content = fill(message["content"], values, source=self.source, first_line=self.line_of(f"history.{index}"))
            messages.append({"role": message["role"], "content": content})
        messages.append({"role": "user", "content": fill(self.user, values, source=self.source, first_line=self.line_of("user"))})
        return messages

    def render_continue(self, variables: Mapping[str, str]) -> str:
        """The continue prompt with its placeholders filled (gleaning currently sends it as stored)."""
        values = self.values(variables)
        self.check_size([self.continue_prompt], values, missing="keep")
        return fill(self.continue_prompt, values, source=self.source, missing="keep",
                    first_line=self.line_of("continue_prompt"))

    def render_loop(self, variables: Mapping[str, str]) -> str:
        values = self.values(variables)
        self.check_size([self.loop_prompt], values, missing="keep")
        return fill(self.loop_prompt, values, source=self.source, missing="keep",
                    first_line=self.line_of("loop_prompt"))

    def partial_format(self, **variables: str) -> PromptTemplate:
        """A copy with these placeholders filled now; the rest stay for `render` (LlamaIndex's partial_format).

        Bound values cannot be overridden later, unlike `defaults`.
        """
        return dataclasses.replace(
            self,
            user=partial_fill(self.user, variables),
            system=None if self.system is None else partial_fill(self.system, variables),
            history=[{"role": m["role"], "content": partial_fill(m["content"], variables)} for m in self.history],
            continue_prompt=partial_fill(self.continue_prompt, variables),
            loop_prompt=partial_fill(self.loop_prompt, variables),
            partials={**self.partials, **variables},
        )


def read_prompt_text(path: Path) -> str:
    """A prompt file's text: a regular UTF-8 file of bounded size (see inputfiles)."""
    return read_text(path, what="prompt file")


# how an engine turns a prompt file's bytes into the text it sends (bytes, the name for errors)
PromptReader = Callable[[bytes, str], str]


def load_text_prompt(path: Path, *, strict: bool = True, source: str | None = None,
                     reader: PromptReader | None = None) -> PromptTemplate:
    """A GraphRAG-style `.txt` prompt: the whole file is the user message.

    `strict=False` (lint) accepts a prompt without `{input_text}` so lint can report it. `reader`:
    read the file as the suite's engine version reads it (line ends, BOM; llm/engine_conversation.py)
    instead of as the harness reads files.
    """
    if reader is None:
        text = read_prompt_text(path)
    else:
        text = reader(read_bytes(path, what="prompt file"), shown_path(path))
    name = source or str(path)
    if strict and "{input_text}" not in text:
        raise InputError(f"{name}: the prompt has no {{input_text}} placeholder, so the chunk would never be sent")
    return PromptTemplate(user=text, source=name, meta=PromptMeta(raw_text=text), origin={"user": 1})
