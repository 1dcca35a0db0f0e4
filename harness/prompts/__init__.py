"""Prompt versions: templates (text, YAML and chat), resolution, lint, built-ins and importers.

Public API:

- `PromptTemplate` (`.render(variables)`, `.partial_format(**values)`, `.continue_prompt`,
  `.loop_prompt`, `.format`), `load_prompt(path)`, `placeholders(text)`, `fill(text, values)`
- `load_yaml_prompt(path)` for YAML/JSON templates
- `resolve_prompt(reference, ...)` (environment overrides: HARNESS_PROMPT_<VARIANT>,
  HARNESS_PROMPTS_DIR); a suite variant's prompt is `harness.run.variant_prompt`
  (`resolve_variant_prompt(suite, variant)`, `load_variant_prompt(suite, variant)`), since it
  reads the suite
- `lint_prompt(path_or_template, ..., kind=None, engine=None) -> list[LintFinding]`,
  `lint_report(...) -> LintReport` (also the kind and engine it was checked as), `lint_text(text, ...)`, `LINT_CODES`
- `PROMPT_KINDS`, `get_kind(name)`, `detect_kind(text)`, `PromptKind` (harness.prompts.kinds, docs/prompt-kinds.md)
- `builtin_names()`, `load_builtin(name)`
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_facade

# The names below are the package's public API, bound on first use, so that importing one
# submodule (`prompts.kinds`, for the CLI's `harness prompts kinds`) does not import lint's tokenizer with it.
# `lazy_facade` reads this block: it is the only list of the names.
if TYPE_CHECKING:
    from .builtin import builtin_names, load_builtin
    from .lint import LINT_CODES
    from .kinds import PROMPT_KINDS, PromptKind, detect_kind, get_kind
    from .lint import LintFinding, LintReport, has_errors, lint_prompt, lint_report, lint_text
    from .resolve import (
        PROMPT_ENV_PREFIX,
        PROMPTS_DIR_ENV,
        ResolvedPrompt,
        resolve_prompt,
        variant_env_name,
    )
    from .syntax import fill, placeholders
    from .loading import load_prompt
    from .template import CONTINUE_PROMPT, LOOP_PROMPT, PromptMeta, PromptTemplate
    from .yaml_template import load_yaml_prompt

__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)
