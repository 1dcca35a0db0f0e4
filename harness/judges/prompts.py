"""Judge prompts: YAML prompt templates (name, version, kind, messages), rendered like any prompt.

Each decision's prompt is a prompt version of a registered kind (prompts.kinds:
`harness.judge_match`, `harness.judge_pairwise`, `harness.judge_support`), so `harness prompts
lint`, `render` and `kinds` treat it like any other prompt, and a suite's own judge prompt is
linted as its kind when the suite's judge is planned.

The shipped prompts are built-ins (`builtin:harness/judge_match`, `builtin:harness/judge_pairwise`,
`builtin:harness/judge_support`, in harness/builtin_prompts/); a suite's `judge.prompt`,
`judge.pairwise.prompt` or `judge.support_prompt` names its own file (or a built-in) instead. A
template must carry its kind's placeholders: {input_text} and {gold}, {predicted} (match);
{first}, {second} (pairwise); {statement} (support). Changing the text changes every request
hash, so its cassettes go stale, as an extraction prompt's do.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..prompts.syntax import placeholders
from ..prompts.template import PromptTemplate
from ..prompts.yaml_template import load_yaml_prompt

MATCH_KIND, PAIRWISE_KIND, SUPPORT_KIND = "harness.judge_match", "harness.judge_pairwise", "harness.judge_support"


def match_prompt(path: Path | None) -> PromptTemplate:
    """The matching prompt: the file at `path` (a suite's `judge.prompt`) or the shipped one."""
    return judge_prompt(path, MATCH_KIND)


def pairwise_prompt(path: Path | None) -> PromptTemplate:
    """The pairwise prompt: the file at `path` (`judge.pairwise.prompt`) or the shipped one."""
    return judge_prompt(path, PAIRWISE_KIND)


def support_prompt(path: Path | None) -> PromptTemplate:
    """(b) and (c)'s prompt: the file at `path` (`judge.support_prompt`) or the shipped one."""
    return judge_prompt(path, SUPPORT_KIND)


def judge_prompt(path: Path | None, kind: str) -> PromptTemplate:
    """A judge prompt of `kind`, loaded and linted as that kind (`harness prompts lint` does the
    same): a prompt declaring another kind, lacking one of its kind's placeholders or with any
    lint error stops the command before any call, in one line (exit 2)."""
    from ..prompts.kinds import HARNESS_ENGINE, PROMPT_KINDS
    from ..prompts.lint import lint_report

    from ..prompts.builtin import builtin_from_path, load_builtin

    if path is None:
        template = load_builtin(kind.replace(".", "/"))
    else:
        builtin = builtin_from_path(path)
        template = load_builtin(builtin) if builtin is not None else load_yaml_prompt(path)
    declared = template.meta.kind
    if declared is not None and declared != kind:
        raise InputError(f"{template.source}: a prompt of kind {declared}, where the judge needs one of kind {kind} "
                         "(docs/judges.md)")
    used: set[str] = set()
    for _, text in template.parts():
        used |= set(placeholders(text))
    missing = [name for name in PROMPT_KINDS[kind].filled[HARNESS_ENGINE] if name not in used]
    if missing:
        raise InputError(f"{template.source}: a judge prompt needs the placeholders "
                         f"{', '.join('{' + m + '}' for m in missing)} (docs/judges.md)")
    report = lint_report(template, kind=kind, engine=HARNESS_ENGINE)
    errors = [finding for finding in report.findings if finding.severity == "error"]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more: harness prompts lint {template.source})" if len(errors) > 1 else ""
        raise InputError(f"{template.source}:{first.line}: judge prompt: {first.code}: {first.message}{more}")
    return template
