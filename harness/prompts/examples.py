"""Few-shot examples: kept as data and rendered into a prompt, or found inside prompt text.

Structured examples (a text plus its entities and relationships) are rendered with the
delimiters of the call being made, so an example can never disagree with the format the
answer is parsed with. Raw examples (`output:` or a whole `block:`) are templates filled the
same way. Examples written inline in a prompt file are found by their `Output:` markers or,
in any language, by holding records in the prompt's format, so lint can parse them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..formats import get_format
from ..formats.base import resolve_delimiters
from .syntax import fill

@dataclass
class ExampleEntity:
    name: str
    type: str = ""
    description: str = ""


@dataclass
class ExampleRelationship:
    source: str
    target: str
    description: str = ""
    strength: float | None = None
    keywords: str = ""


@dataclass
class ExampleClaim:
    subject: str
    object: str = "NONE"
    type: str = ""
    status: Literal["TRUE", "FALSE", "SUSPECTED"] = "TRUE"
    start_date: str = "NONE"
    end_date: str = "NONE"
    description: str = ""
    source_text: str = ""


@dataclass
class Example:
    """One few-shot example: structured records, a raw `output` template, or a whole raw `block`."""

    text: str | None = None
    entity_types: list[str] | None = None
    entities: list[ExampleEntity] = field(default_factory=list)
    relationships: list[ExampleRelationship] = field(default_factory=list)
    claims: list[ExampleClaim] = field(default_factory=list)
    report: dict[str, Any] | None = None
    output: str | None = None
    block: str | None = None
    line: int = field(default=1, init=False)  # file line the example starts on (set by the loader)
    output_line: int | None = field(default=None, init=False)  # file line its raw output (or block) starts on

    def __post_init__(self) -> None:
        """Template files are validated into this value directly (pydantic), so the rules of an
        example live here."""
        structured = bool(self.entities or self.relationships or self.claims or self.report is not None)
        kinds = sum((structured, self.output is not None, self.block is not None))
        if kinds != 1:
            raise ValueError("an example has exactly one of: records (entities/relationships/claims/report), `output`, or `block`")
        if self.block is None and self.text is None:
            raise ValueError("an example needs the `text` its answer was extracted from")

    @property
    def kind(self) -> Literal["structured", "output", "block"]:
        if self.block is not None:
            return "block"
        if self.output is not None:
            return "output"
        return "structured"

    def declared_types(self) -> list[str]:
        """The types the example says it extracts: its own list, else the types its entities use."""
        if self.entity_types is not None:
            return list(self.entity_types)
        seen: dict[str, None] = {}
        for entity in self.entities:
            if entity.type:
                seen.setdefault(entity.type)
        return list(seen)


@dataclass
class ExampleLayout:
    """How each example is laid out (slots `{n}`, `{entity_types}`, `{text}`, `{output}`) and joined."""

    template: str | None = None
    separator: str = "\n\n"
    # a `block:` example's leading and trailing newlines: "strip" (a YAML `|` block's last newline
    # is not meant), or "keep" (an engine's examples joined as the engine joins them: LightRAG
    # 1.4.8+'s stock examples end with a blank line that it sends)
    block_ends: Literal["strip", "keep"] = "strip"


def render_records(example: Example, fmt: str, values: Mapping[str, str]) -> str:
    """A structured example's answer, written exactly as the format expects it (by the format's
    own example writer, in the call's delimiters: harness.formats.base.resolve_delimiters)."""
    output_format = get_format(fmt)
    return output_format.write_example(example, resolve_delimiters(output_format, values))


def render_output(example: Example, fmt: str, values: Mapping[str, str], *, source: str = "<prompt>") -> str:
    """What the example shows the model as the right answer (blocks: the whole block)."""
    if example.block is not None:
        return fill(example.block, values, source=source, first_line=example.output_line or example.line)
    if example.output is not None:
        return fill(example.output, values, source=source, first_line=example.output_line or example.line)
    return render_records(example, fmt, values)


def render_example(
    example: Example, number: int, fmt: str, values: Mapping[str, str], layout: ExampleLayout, *, source: str = "<prompt>"
) -> str:
    if example.block is not None:
        block = render_output(example, fmt, values, source=source)
        return block if layout.block_ends == "keep" else block.strip("\n")
    template = layout.template or get_format(fmt).example_template
    slots = {
        **values,
        "n": str(number),
        "entity_types": ",".join(example.declared_types()),
        "text": (example.text or "").strip("\n"),
        "output": render_output(example, fmt, values, source=source).strip("\n"),
    }
    return fill(template, slots, source=source, first_line=example.line)


def render_examples(
    examples: list[Example], fmt: str, values: Mapping[str, str], layout: ExampleLayout, *, source: str = "<prompt>"
) -> str:
    return layout.separator.join(
        render_example(example, index, fmt, values, layout, source=source) for index, example in enumerate(examples, 1)
    )


# --------------------------------------------------------------------------- examples inside prompt text


@dataclass
class InlineExample:
    """An example answer written inside a prompt's text: a block under an `Output:` (or
    `<Output>`) label, or, in any language, a block that holds records in the prompt's format."""

    output: str  # the answer as written (placeholders unfilled)
    line: int  # file line of the first line of the answer
    entity_types: list[str] | None  # from the example's own `Entity_types:` line (None: none, or a placeholder)


_REAL_DATA = re.compile(r"^\W*real\s+data\W*$", re.I)
# `Output:` (GraphRAG, LightRAG <= 1.4.7) or a `<Output>` line (LightRAG >= 1.4.8's examples)
_OUTPUT = re.compile(r"^\s*(?:(?:\*\*)?(?:output|answer|response)(?:\*\*)?\s*:|<(?:output|answer|response)>)\s*(.*)$", re.I)
# `Entity_types: [...]`, or a `<Entity_types>` line with the list on the next line
_TYPES = re.compile(r"^\s*(?:(?:\*\*)?entity[_ ]types(?:\*\*)?\s*:|<entity[_ ]types>)\s*(.*)$", re.I)
_STOP = re.compile(
    r"^\s*(?:#{3,}|-{3,}|={3,}|<?(?:-+\s*)?example\b|(?:\*\*)?(?:entity[_ ]types|text|input)(?:\*\*)?\s*:"
    r"|<(?:entity[_ ]types|input[_ ]text)>)",
    re.I,
)
# A label line in any language and script: a few words (letters first) and a colon, or a tag
# line: `Đầu ra:`, `Ví dụ 2:`, `输出：`, `<Ausgabe>`. Group 1 is what follows the label on its line.
_LABEL = re.compile(r"^\s*(?:(?:\*\*)?[^\W\d_][\w '’.-]{0,40}?(?:\*\*)?\s*[:：]|<[^\W\d_][\w '’-]{0,40}>)\s*(.*)$")


def _types_from(value: str) -> list[str] | None:
    value = value.strip().strip("[]").strip()
    if not value or "{" in value:
        return None
    return [t.strip().strip("'\"`") for t in value.split(",") if t.strip()]


def find_inline_examples(text: str, first_line: int = 1,
                         holds_records: Callable[[str], bool] | None = None) -> list[InlineExample]:
    """Example answers in a prompt, before its real-data section.

    The example section is cut into blocks at separators (`####`, `---`), example headings,
    `Text:`/`Entity_types:` lines and label lines of any language (`Đầu ra:`, `<Ausgabe>`; a label
    followed by text on its line starts a block with that text when the text holds records). A
    block is an answer when an English answer label (`Output:`, `<Output>`) opens it, whatever it
    holds (so a refusal written as an example is still checked), or when `holds_records` says it
    holds records in the prompt's format: a translated prompt's examples are found by what they
    are, not by what their label says. Empty blocks (the final `Output:` the model is asked to
    complete) are skipped.
    """
    lines = text.split("\n")
    end = len(lines)
    for index, line in enumerate(lines):
        if _REAL_DATA.match(line) or "{input_text}" in line:
            end = index
            break
    found: list[InlineExample] = []
    types: list[str] | None = None
    body: list[tuple[int, str]] = []
    labelled = False

    def close() -> None:
        nonlocal body, labelled, types
        content = [(n, line) for n, line in body if line.strip()]
        if content:
            first, last = content[0][0], content[-1][0]
            output = "\n".join(line for n, line in body if first <= n <= last)
            if labelled or (holds_records is not None and holds_records(output)):
                found.append(InlineExample(output, first_line + first, types))
                types = None
        body, labelled = [], False

    index = 0
    while index < end:
        line = lines[index]
        type_match = _TYPES.match(line)
        if type_match:
            close()
            value = type_match.group(1)
            if not value.strip() and index + 1 < end:  # `<Entity_types>` with the list below it
                index += 1
                value = lines[index]
            types = _types_from(value)
            index += 1
            continue
        output = _OUTPUT.match(line)
        label = None if output else _LABEL.match(line)
        if output or _STOP.match(line):
            close()
            labelled = output is not None
            rest = output.group(1) if output else ""
            if rest.strip():
                body.append((index, rest))
        elif label and (not label.group(1).strip()
                        or (holds_records is not None and holds_records(label.group(1)))):
            close()
            if label.group(1).strip():
                body.append((index, label.group(1)))
        else:
            body.append((index, line))
        index += 1
    close()
    return found
