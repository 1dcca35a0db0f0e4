"""Built-in default prompts, shipped as package data in harness/builtin_prompts/.

A built-in is named `builtin:<family>/<name>` (for example `builtin:graphrag/extract_graph`);
`builtin:<family>.<name>` is the same prompt, spelled without a slash so that it can stand in a
suite's `prompt:` today (the suite loader insists that references with a slash are files).
Files are stored flat as `<family>.<name>.yaml` because the package data glob is one level deep.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ..errors import InputError
from .template import PromptTemplate
from .yaml_template import load_yaml_text

PREFIX = "builtin:"
_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class BuiltinPrompt:
    name: str  # canonical: family/name
    resource: Traversable

    @property
    def reference(self) -> str:
        return f"{PREFIX}{self.name}"

    def read(self) -> str:
        return self.resource.read_text(encoding="utf-8")


def _folder() -> Traversable:
    return resources.files("harness").joinpath("builtin_prompts")


def catalog() -> dict[str, BuiltinPrompt]:
    """Every built-in prompt by canonical name."""
    found: dict[str, BuiltinPrompt] = {}
    folder = _folder()
    if not folder.is_dir():
        return found
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        stem = entry.name
        for suffix in _SUFFIXES:
            if stem.endswith(suffix) and "." in stem[: -len(suffix)]:
                family, _, name = stem[: -len(suffix)].partition(".")
                found[f"{family}/{name}"] = BuiltinPrompt(f"{family}/{name}", entry)
    return found


def builtin_names() -> list[str]:
    return sorted(catalog())


def canonical_name(reference: str) -> str | None:
    """`builtin:graphrag.extract_graph`, `builtin:graphrag/extract_graph.yaml` -> `graphrag/extract_graph`.

    None when the reference does not start with `builtin:`.
    """
    if not reference.startswith(PREFIX):
        return None
    name = reference[len(PREFIX):].strip().strip("/")
    for suffix in _SUFFIXES:
        name = name.removesuffix(suffix)
    if "/" not in name and "." in name:
        family, _, rest = name.partition(".")
        name = f"{family}/{rest}"
    return name


def builtin_from_path(path: Path) -> str | None:
    """The built-in a path names, if one of its parts starts with `builtin:`.

    `Suite.resolve("builtin:graphrag/extract_graph")` turns the reference into
    `<root>/builtin:graphrag/extract_graph`; this undoes that.
    """
    parts = Path(path).parts
    for index, part in enumerate(parts):
        if part.startswith(PREFIX):
            return canonical_name("/".join(parts[index:]))
    return None


def get_builtin(name: str) -> BuiltinPrompt:
    canonical = canonical_name(name) if name.startswith(PREFIX) else canonical_name(PREFIX + name)
    prompts = catalog()
    if canonical not in prompts:
        known = ", ".join(PREFIX + n for n in sorted(prompts)) or "none"
        raise InputError(f"{PREFIX}{canonical}: no built-in prompt of that name (built-ins: {known})")
    return prompts[canonical]


def load_builtin(name: str, *, strict: bool = True) -> PromptTemplate:
    prompt = get_builtin(name)
    return load_yaml_text(prompt.read(), prompt.reference, strict=strict)
