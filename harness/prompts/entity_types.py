"""Which entity types fill a variant's prompt, and where they come from.

GraphRAG fills `{entity_types}` with its settings' `extract_graph.entity_types` (else its
defaults `organization,person,geo,event`) whatever prompt file is configured; a prompt written
by `graphrag prompt-tune` has the discovered types formatted into its text and no
`{entity_types}` left, so it keeps them. The harness follows the same rule:

1. a prompt that carries its own types keeps them (source `prompt`): a YAML template that
   declares `entity_types:` (what `harness tune` writes), or a prompt that never uses
   `{entity_types}` (types written into its text, as `graphrag prompt-tune` does);
2. otherwise the variant's `entity_types` (source `variant`),
3. else the suite's `entity_types` (source `suite`; an imported project's settings),
4. else the built-in defaults, GraphRAG's (source `default`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import InputError
from .template import PromptTemplate

DEFAULT_ENTITY_TYPES = ("organization", "person", "geo", "event")  # GraphRAG's DEFAULT_ENTITY_TYPES

TypesSource = Literal["variant", "suite", "prompt", "default"]

# "One of the following types: [person, org]" as graphrag prompt-tune writes it into the text
_WRITTEN_TYPES = re.compile(r"types?\s*:?\s*\[([^\[\]{}\n]+)\]", re.IGNORECASE)
_PROBES = ("\x00types-probe-a\x00", "\x00types-probe-b\x00")


@dataclass(frozen=True)
class EffectiveTypes:
    """The entity types a variant's prompt is filled with, and which setting gave them."""

    values: list[str]
    source: TypesSource
    ignored: list[str] | None = field(default=None)  # the variant's own types, when the prompt overrides them

    def to_json(self) -> dict[str, Any]:
        return {"values": list(self.values), "source": self.source}

    def describe(self) -> str:
        shown = ", ".join(self.values) if self.values else "none named"
        text = f"{shown} (from the {self.source})" if self.source != "default" else f"{shown} (built-in default)"
        if self.ignored:
            text += f"; the variant's entity_types ({', '.join(self.ignored)}) are ignored: the prompt carries its own"
        return text


def uses_entity_types(template: PromptTemplate) -> bool:
    """Whether what is sent depends on `{entity_types}` (directly, through a mapping, a function or examples)."""
    base = {name: "" for name in template.required_variables()}
    try:
        first, second = (template.render({**base, "entity_types": probe}) for probe in _PROBES)
    except InputError:  # a template that cannot be filled: judge by its placeholders
        return "entity_types" in template.required_variables() or "entity_types" in template.variable_mappings
    return first != second


def types_written_in(template: PromptTemplate) -> list[str]:
    """The type list a prompt states in its own text (`types: [a, b]`), empty when it names none."""
    for _, text in template.parts():
        match = _WRITTEN_TYPES.search(text)
        if match:
            return [t.strip().strip("'\"") for t in match.group(1).split(",") if t.strip().strip("'\"")]
    return []


def effective_entity_types(
    template: PromptTemplate,
    *,
    variant: Sequence[str] | None,
    suite: Sequence[str] | None,
) -> EffectiveTypes:
    """Apply the rule above; `suite` is None when the suite does not set `entity_types` itself."""
    own = list(variant) if variant else None
    if template.meta.entity_types:
        carried = list(template.meta.entity_types)
        return EffectiveTypes(carried, "prompt", ignored=own if own and own != carried else None)
    if not uses_entity_types(template):
        return EffectiveTypes(types_written_in(template), "prompt", ignored=own)
    if own:
        return EffectiveTypes(own, "variant")
    if suite:
        return EffectiveTypes(list(suite), "suite")
    return EffectiveTypes(list(DEFAULT_ENTITY_TYPES), "default")


def suite_entity_types(suite: Any) -> list[str] | None:
    """The suite's own `entity_types`, None when the file leaves them to the defaults."""
    spec = suite.spec
    return list(spec.entity_types) if "entity_types" in spec.model_fields_set else None


def variant_entity_types(suite: Any, variant: str, template: PromptTemplate) -> EffectiveTypes:
    """The effective types of one suite variant (what the runner renders with)."""
    return effective_entity_types(template, variant=suite.spec.variants[variant].entity_types,
                                  suite=suite_entity_types(suite))
