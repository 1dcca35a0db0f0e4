"""A suite variant's prompt: the file or built-in its `prompt:` names, honouring the environment
overrides (HARNESS_PROMPT_<VARIANT>, HARNESS_PROMPTS_DIR), kept inside the project, and read as
the engine the suite names reads prompt files. Planning asks it (`plan.plan_variant`); how a
reference is resolved is `harness.prompts.resolve`, which knows no suite."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InputError
from ..prompts.resolve import ResolvedPrompt, resolve_prompt
from ..prompts.template import PromptTemplate
from ..suites import Suite


def resolve_variant_prompt(suite: Suite, variant: str, *, environ: Mapping[str, str] | None = None) -> ResolvedPrompt:
    """The prompt a suite's variant uses, honouring the environment overrides."""
    spec = suite.spec.variants[variant]
    # a matrix cell's prompt is its variant's: HARNESS_PROMPT_<VARIANT> names the variant, not the cell
    resolved = resolve_prompt(spec.prompt, suite_path=suite.path, root=suite.root, variant=suite.prompt_variant(variant),
                              environ=environ)
    # what the suite file names must stay in the project, as load_suite checks for paths: a bare
    # name found only in the current folder is no exception (HARNESS_PROMPT_<VARIANT> and
    # HARNESS_PROMPTS_DIR are the user's own choice, and may point anywhere)
    from_environment = resolved.overridden_by is not None or resolved.found == "prompts-dir"
    if resolved.path is not None and not from_environment and not suite.holds(resolved.path):
        raise InputError(f"{suite.path}: variant '{variant}': prompt {spec.prompt!r} resolves to {resolved.path}, "
                         f"outside the project folder {suite.root} (pass --allow-outside-chunks to read it anyway)")
    return resolved


def load_variant_prompt(suite: Suite, variant: str, *, environ: Mapping[str, str] | None = None) -> PromptTemplate:
    """Resolve and load a variant's prompt (what planning calls; see docs/prompts.md), a
    text prompt read as the engine the suite names reads it (`engine:`; llm/engine_conversation.py)."""
    reader = None
    if suite.spec.engine is not None:
        from ..llm.engine_conversation import conversation_for

        reader = conversation_for(suite.spec.engine).read_prompt_bytes
    return resolve_variant_prompt(suite, variant, environ=environ).load(reader=reader)
