"""Load any prompt file: a built-in, a YAML/JSON template or a GraphRAG-style text prompt.

Kept apart from harness.prompts.template (the value) so that the loaders of each kind can import
the value without the value importing them back.
"""

from __future__ import annotations

from pathlib import Path

from .builtin import builtin_from_path, load_builtin
from .template import PromptReader, PromptTemplate, load_text_prompt
from .yaml_template import load_yaml_prompt


def load_prompt(path: Path, *, strict: bool = True, reader: PromptReader | None = None) -> PromptTemplate:
    """Load a prompt file: `.yaml`/`.yml`/`.json` templates, anything else as GraphRAG-style text.

    A path with a `builtin:` part (what `Suite.resolve("builtin:graphrag/extract_graph")` gives)
    loads the built-in prompt of that name. `reader` reads a text prompt as an engine version
    does (templates are YAML, whose line ends YAML itself normalises).
    """
    name = builtin_from_path(path)
    if name is not None:
        return load_builtin(name, strict=strict)
    if path.suffix.lower() in (".yaml", ".yml", ".json"):
        return load_yaml_prompt(path, strict=strict)
    return load_text_prompt(path, strict=strict, reader=reader)
