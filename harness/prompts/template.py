"""Prompt templates: GraphRAG-style text files rendered into chat messages.

Placeholders are `{name}`; `{{` and `}}` stand for literal braces. Any other brace is
kept as written, so JSON examples in a prompt survive rendering (lint reports them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

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

TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")

Message = dict[str, str]


def placeholders(text: str) -> list[str]:
    """Names of the `{placeholders}` in text, in order of first use (escapes excluded)."""
    seen: dict[str, None] = {}
    for match in TOKEN.finditer(text):
        if match.group(1):
            seen.setdefault(match.group(1))
    return list(seen)


def fill(text: str, variables: dict[str, str], *, source: str = "<prompt>") -> str:
    """Replace placeholders; a placeholder with no value is an InputError naming the line."""

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = match.group(1)
        if name not in variables:
            line = text.count("\n", 0, match.start()) + 1
            raise InputError(f"{source}:{line}: placeholder {{{name}}} has no value (known: {', '.join(sorted(variables))})")
        return variables[name]

    return TOKEN.sub(replace, text)


@dataclass
class PromptTemplate:
    """One prompt version: what is sent for a chunk, and how gleaning continues."""

    user: str
    source: str = "<prompt>"
    system: str | None = None
    continue_prompt: str = CONTINUE_PROMPT
    loop_prompt: str = LOOP_PROMPT
    format: str = "graphrag"
    defaults: dict[str, str] = field(default_factory=dict)

    def render(self, variables: dict[str, str]) -> list[Message]:
        values = {**self.defaults, **variables}
        messages: list[Message] = []
        if self.system is not None:
            messages.append({"role": "system", "content": fill(self.system, values, source=self.source)})
        messages.append({"role": "user", "content": fill(self.user, values, source=self.source)})
        return messages


def load_text_prompt(path: Path) -> PromptTemplate:
    """A GraphRAG-style `.txt` prompt: the whole file is the user message."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: prompt file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read prompt: {exc}") from None
    if "{input_text}" not in text:
        raise InputError(f"{path}: the prompt has no {{input_text}} placeholder, so the chunk would never be sent")
    return PromptTemplate(user=text, source=str(path))


def load_prompt(path: Path) -> PromptTemplate:
    if path.suffix in (".yaml", ".yml"):
        from .yaml_template import load_yaml_prompt

        return load_yaml_prompt(path)
    return load_text_prompt(path)
