"""Prompt versions: templates (text, YAML and chat), resolution, lint, built-ins and importers.

Public API:

- `PromptTemplate` (`.render(variables)`, `.partial_format(**values)`, `.continue_prompt`,
  `.loop_prompt`, `.format`), `load_prompt(path)`, `placeholders(text)`, `fill(text, values)`
- `load_yaml_prompt(path)` for YAML/JSON templates
- `resolve_prompt(reference, ...)`, `resolve_variant_prompt(suite, variant)`,
  `load_variant_prompt(suite, variant)` (environment overrides: HARNESS_PROMPT_<VARIANT>,
  HARNESS_PROMPTS_DIR)
- `lint_prompt(path_or_template, ...) -> list[LintFinding]`, `lint_text(text, ...)`, `LINT_CODES`
- `builtin_names()`, `load_builtin(name)`
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

# Names are bound on first use, so that importing one submodule (the CLI's `prompts.commands`)
# does not import lint's tokenizer and resolve's suite loader with it.
_EXPORTS = {
    "builtin_names": (".builtin", "builtin_names"),
    "load_builtin": (".builtin", "load_builtin"),
    "LINT_CODES": (".lint", "CODES"),
    "LintFinding": (".lint", "LintFinding"),
    "has_errors": (".lint", "has_errors"),
    "lint_prompt": (".lint", "lint_prompt"),
    "lint_text": (".lint", "lint_text"),
    "PROMPT_ENV_PREFIX": (".resolve", "PROMPT_ENV_PREFIX"),
    "PROMPTS_DIR_ENV": (".resolve", "PROMPTS_DIR_ENV"),
    "ResolvedPrompt": (".resolve", "ResolvedPrompt"),
    "load_variant_prompt": (".resolve", "load_variant_prompt"),
    "resolve_prompt": (".resolve", "resolve_prompt"),
    "resolve_variant_prompt": (".resolve", "resolve_variant_prompt"),
    "variant_env_name": (".resolve", "variant_env_name"),
    "fill": (".syntax", "fill"),
    "placeholders": (".syntax", "placeholders"),
    "CONTINUE_PROMPT": (".template", "CONTINUE_PROMPT"),
    "LOOP_PROMPT": (".template", "LOOP_PROMPT"),
    "PromptMeta": (".template", "PromptMeta"),
    "PromptTemplate": (".template", "PromptTemplate"),
    "load_prompt": (".loading", "load_prompt"),
    "load_yaml_prompt": (".yaml_template", "load_yaml_prompt"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .builtin import builtin_names, load_builtin
    from .lint import CODES as LINT_CODES
    from .lint import LintFinding, has_errors, lint_prompt, lint_text
    from .resolve import (
        PROMPT_ENV_PREFIX,
        PROMPTS_DIR_ENV,
        ResolvedPrompt,
        load_variant_prompt,
        resolve_prompt,
        resolve_variant_prompt,
        variant_env_name,
    )
    from .syntax import fill, placeholders
    from .loading import load_prompt
    from .template import CONTINUE_PROMPT, LOOP_PROMPT, PromptMeta, PromptTemplate
    from .yaml_template import load_yaml_prompt

__all__ = [
    "CONTINUE_PROMPT",
    "LINT_CODES",
    "LOOP_PROMPT",
    "PROMPTS_DIR_ENV",
    "PROMPT_ENV_PREFIX",
    "LintFinding",
    "PromptMeta",
    "PromptTemplate",
    "ResolvedPrompt",
    "builtin_names",
    "fill",
    "has_errors",
    "lint_prompt",
    "lint_text",
    "load_builtin",
    "load_prompt",
    "load_variant_prompt",
    "load_yaml_prompt",
    "placeholders",
    "resolve_prompt",
    "resolve_variant_prompt",
    "variant_env_name",
]
