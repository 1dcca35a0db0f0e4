"""Where a prompt reference leads: environment override, explicit path, suite folder, project
`prompts/`, built-in defaults.

Order, first match wins:

1. `HARNESS_PROMPT_<VARIANT>` replaces the reference of that variant (variant name upper-cased,
   every character other than a letter or digit turned into `_`: `tuned-v2` -> `HARNESS_PROMPT_TUNED_V2`).
2. `builtin:<family>/<name>` (or `builtin:<family>.<name>`) is a built-in prompt.
3. An absolute path.
4. `HARNESS_PROMPTS_DIR`: a folder searched before the project, for the reference as written
   and with a leading `prompts/` removed (swap a whole set of prompts without editing suites).
5. The suite's folder, then the project folder, then the working directory (as suite paths are).
6. The project's `prompts/` folder.
7. A built-in named without the prefix (`graphrag/extract_graph`).

A reference without a suffix also matches `<ref>.yaml`, `<ref>.yml` and `<ref>.txt`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import InputError
from .builtin import PREFIX, canonical_name, catalog
from .loading import load_prompt
from .template import PromptReader, PromptTemplate


PROMPT_ENV_PREFIX = "HARNESS_PROMPT_"
PROMPTS_DIR_ENV = "HARNESS_PROMPTS_DIR"
SUFFIXES = (".yaml", ".yml", ".txt")

Found = Literal["env", "builtin", "absolute", "prompts-dir", "suite-folder", "project", "cwd", "project-prompts"]


def variant_env_name(variant: str) -> str:
    """`tuned-v2` -> `HARNESS_PROMPT_TUNED_V2`."""
    return PROMPT_ENV_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", variant).upper()


@dataclass(frozen=True)
class ResolvedPrompt:
    """A prompt reference and what it resolved to: a file or a built-in."""

    reference: str  # what was asked for (after any environment override)
    found: Found
    path: Path | None = None
    builtin: str | None = None  # canonical built-in name
    overridden_by: str | None = None  # the environment variable that replaced the reference

    @property
    def display(self) -> str:
        return f"{PREFIX}{self.builtin}" if self.builtin else str(self.path)

    def load(self, *, strict: bool = True, reader: PromptReader | None = None) -> PromptTemplate:
        if self.builtin is not None:
            from .builtin import load_builtin

            return load_builtin(self.builtin, strict=strict)
        assert self.path is not None
        return load_prompt(self.path, strict=strict, reader=reader)


def _candidates(path: Path) -> list[Path]:
    if path.suffix:
        return [path]
    return [path, *(path.with_name(path.name + suffix) for suffix in SUFFIXES)]


def _existing(path: Path) -> Path | None:
    for candidate in _candidates(path):
        if candidate.is_file():
            return candidate
    return None


def resolve_prompt(
    reference: str,
    *,
    suite_path: Path | None = None,
    root: Path | None = None,
    variant: str | None = None,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> ResolvedPrompt:
    """Resolve one prompt reference; InputError listing every place looked at when nothing matches."""
    env = os.environ if environ is None else environ
    overridden: str | None = None
    if variant is not None:
        name = variant_env_name(variant)
        if env.get(name, "").strip():
            reference, overridden = env[name].strip(), name
    if not reference.strip():
        raise InputError("empty prompt reference")

    builtin = canonical_name(reference)
    if builtin is not None:
        if builtin not in catalog():
            known = ", ".join(PREFIX + n for n in sorted(catalog()))
            raise InputError(f"{reference}: no built-in prompt of that name (built-ins: {known})")
        return ResolvedPrompt(reference, "builtin", builtin=builtin, overridden_by=overridden)

    ref = Path(reference).expanduser()
    looked: list[Path] = []
    if ref.is_absolute():
        hit = _existing(ref)
        if hit:
            return ResolvedPrompt(reference, "absolute", path=hit, overridden_by=overridden)
        raise InputError(f"{reference}: prompt file not found" + (f" (from {overridden})" if overridden else ""))

    bases: list[tuple[Found, Path]] = []
    prompts_dir = env.get(PROMPTS_DIR_ENV, "").strip()
    if prompts_dir:
        folder = Path(prompts_dir).expanduser()
        bases.append(("prompts-dir", folder))
        stripped = Path(*ref.parts[1:]) if ref.parts[:1] == ("prompts",) and len(ref.parts) > 1 else None
        if stripped is not None:
            hit = _existing(folder / stripped)
            if hit:
                return ResolvedPrompt(reference, "prompts-dir", path=hit, overridden_by=overridden)
            looked.append(folder / stripped)
    if suite_path is not None:
        bases.append(("suite-folder", Path(suite_path).resolve().parent))
    if root is not None:
        bases.append(("project", Path(root)))
    bases.append(("cwd", cwd or Path.cwd()))
    if root is not None:
        bases.append(("project-prompts", Path(root) / "prompts"))
    for found, base in bases:
        hit = _existing(base / ref)
        if hit:
            return ResolvedPrompt(reference, found, path=hit, overridden_by=overridden)
        looked.append(base / ref)

    bare = canonical_name(PREFIX + reference)
    if bare in catalog():
        return ResolvedPrompt(reference, "builtin", builtin=bare, overridden_by=overridden)
    where = ", ".join(str(p) for p in dict.fromkeys(looked))
    source = f" (from {overridden})" if overridden else ""
    raise InputError(f"{reference}: prompt not found{source}; looked in {where} and the built-ins")
