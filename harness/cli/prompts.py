"""`harness prompts ...`: lint, render, export, list, kinds, show.

Errors in what the user gave are InputError (one line on stderr, exit 2); lint findings at
error severity exit 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import InputError
from .inputs import split_list, unescape
from .options import LINT_FORMAT_HELP, ForceOpt, JsonOpt
from .render import emit_json

# --------------------------------------------------------------------------- prompts lint


def lint_command(
    prompts: Annotated[Optional[list[str]], typer.Argument(help="Prompt files or builtin:<name> references.", show_default=False)] = None,
    suite: Annotated[Optional[list[Path]], typer.Option("--suite", help="Lint every variant of this suite, with its settings (repeatable).")] = None,
    json_out: JsonOpt = False,
    format: Annotated[Optional[str], typer.Option("--format", help=LINT_FORMAT_HELP)] = None,
    entity_types: Annotated[Optional[str], typer.Option("--entity-types", help="Declared entity types, comma separated.")] = None,
    language: Annotated[Optional[str], typer.Option("--language", help="The {language} value.")] = None,
    tuple_delimiter: Annotated[Optional[str], typer.Option("--tuple-delimiter")] = None,
    record_delimiter: Annotated[Optional[str], typer.Option("--record-delimiter", help="\\n for a newline.")] = None,
    completion_delimiter: Annotated[Optional[str], typer.Option("--completion-delimiter")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Model whose tokenizer counts the budget (default: the suite's, else gpt-4o-mini).")] = None,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", min=1, help="Token budget of the prompt without the chunk (default 4000).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    kind: Annotated[Optional[str], typer.Option("--kind", help="Check every prompt as this kind (harness prompts kinds); default: declared, from the file name, or detected.")] = None,
    engine: Annotated[Optional[str], typer.Option("--engine", help="Engine that fills the prompt: graphrag-0..graphrag-3, graphrag (any version), lightrag, lightrag-old, lightrag-any, llamaindex, harness; default: the GraphRAG project's settings.yaml, else the kind's default.")] = None,
) -> None:
    """Check prompt files; exit 1 when any finding is an error."""
    from ..formats.answer import FORMATS
    from ..prompts.kinds import ENGINE_NAMES, PROMPT_KINDS
    from ..prompts.lint import LintFinding, LintReport, lint_report

    if not prompts and not suite:
        raise InputError("no prompt given (try: harness prompts lint prompts/default/extract_graph.txt, or --suite SUITE)")
    if format is not None and (format not in FORMATS or format == "auto"):
        raise InputError(f"--format: '{format}' is not one of {', '.join(f for f in FORMATS if f != 'auto')}")
    if kind is not None and kind not in PROMPT_KINDS:
        raise InputError(f"--kind: '{kind}' is not one of {', '.join(PROMPT_KINDS)}")
    if engine is not None and engine not in ENGINE_NAMES:
        raise InputError(f"--engine: '{engine}' is not one of {', '.join(ENGINE_NAMES)}")
    settings: dict[str, Any] = {
        "format": format,
        "entity_types": split_list(entity_types),
        "language": language,
        "tuple_delimiter": unescape(tuple_delimiter),
        "record_delimiter": unescape(record_delimiter),
        "completion_delimiter": unescape(completion_delimiter),
        "model": model,
        "max_tokens": max_tokens,
    }
    checked: list[str] = []
    reports: list[LintReport] = []
    for prompt in prompts or []:
        checked.append(prompt)
        options = {**settings, "model": model or "gpt-4o-mini", "kind": kind, "engine": engine}
        reports.append(lint_report(prompt if prompt.startswith("builtin:") else Path(prompt), **options))
    for suite_path in suite or []:
        for name, report in _lint_suite(suite_path, {**settings, "kind": kind, "engine": engine}):
            checked.append(name)
            reports.append(report)
    findings: list[LintFinding] = [f for report in reports for f in report.findings]
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors
    if json_out:
        emit_json({"prompts": checked, "errors": errors, "warnings": warnings,
                   "kinds": [{"prompt": name, "kind": r.kind, "kind_from": r.kind_from, "engine": r.engine,
                              "engine_from": r.engine_from} for name, r in zip(checked, reports)],
                   "findings": [f.to_json() for f in findings]})
    else:
        for name, report in zip(checked, reports):
            typer.echo(f"{name}: {_kind_line(report)}")
            for finding in report.findings:
                typer.echo(f"  {finding}")
                typer.echo(f"      hint: {finding.hint}")
        typer.echo(f"{len(checked)} prompt(s) checked: {errors} error(s), {warnings} warning(s)")
    if errors or (strict and warnings):
        raise typer.Exit(1)


def _kind_line(report: Any) -> str:
    """`kind graphrag.extract_graph (file name), engine graphrag-2 (ragtest/settings.yaml)`."""
    if report.kind is None:
        return "not a template"
    return f"kind {report.kind} ({report.kind_from}), engine {report.engine} ({report.engine_from})"


def _lint_suite(path: Path, settings: dict[str, Any]) -> list[tuple[str, Any]]:
    """Each variant's prompt, linted with the variables and delimiters the runner would use."""
    from ..model import GoldCase
    from ..run.plan import plan_variant
    from ..suites import load_suite
    from ..prompts.lint import lint_report
    from ..run.variant_prompt import resolve_variant_prompt

    suite = load_suite(path)
    out: list[tuple[str, Any]] = []
    for name, spec in suite.spec.variants.items():
        resolved = resolve_variant_prompt(suite, name)
        template = resolved.load(strict=False)
        plan = plan_variant(suite, name)  # the same settings a run uses
        variables = plan.variables(GoldCase(id="lint", text=""))
        options = {k: v for k, v in settings.items() if v is not None}
        options.setdefault("format", plan.format)
        options.setdefault("model", spec.model or suite.model_settings(name).name)
        options.setdefault("engine", "harness")  # the runner fills a suite's prompts
        out.append((f"{suite.name}/{name}: {resolved.display}", lint_report(template, variables=variables, **options)))
    return out


# --------------------------------------------------------------------------- prompts render


def render_command(
    suite: Annotated[Path, typer.Option("--suite", help="Suite whose case and variant settings fill the prompt.", show_default=False)],
    prompt: Annotated[Optional[str], typer.Argument(help="Prompt file or builtin:<name> (default: the variant's own prompt).", show_default=False)] = None,
    case: Annotated[Optional[str], typer.Option("--case", help="Case id (default: the first case).")] = None,
    variant: Annotated[Optional[str], typer.Option("--variant", help="Variant whose settings are used (default: the baseline).")] = None,
    text: Annotated[bool, typer.Option("--text", help="Print plain text instead of the JSON messages.")] = False,
) -> None:
    """Print exactly the messages the first call of a case sends (the effective entity types on stderr)."""
    messages, types, variant_name = rendered_case(prompt, suite=suite, case=case, variant=variant)
    # name the variant as one: "entity types of default" read as the built-in default types
    sys.stderr.write(f"harness: entity types of variant '{variant_name}': {types.describe()}\n")
    if text:
        for index, message in enumerate(messages):
            if index:
                typer.echo("")
            typer.echo(f"[{message['role']}]")
            typer.echo(message["content"], nl=not message["content"].endswith("\n"))
    else:
        emit_json(messages)


def render_case(prompt: str | None, *, suite: Path, case: str | None = None, variant: str | None = None) -> list[dict[str, str]]:
    """The messages for one case: the suite's variables, this prompt (or the variant's own)."""
    return rendered_case(prompt, suite=suite, case=case, variant=variant)[0]


def rendered_case(prompt: str | None, *, suite: Path, case: str | None = None,
                  variant: str | None = None) -> tuple[list[dict[str, str]], Any, str]:
    """The messages for one case, the entity types they were filled with, and the variant's name.

    Another prompt than the variant's own gets the variant's settings, and its entity types by
    the same rule the runner applies (harness.prompts.entity_types).
    """
    import dataclasses

    from ..run.plan import plan_variant
    from ..suites import load_suite
    from ..prompts.builtin import canonical_name
    from ..prompts.entity_types import variant_entity_types
    from ..prompts.resolve import resolve_prompt

    loaded = load_suite(suite)
    name = variant or loaded.baseline
    if name not in loaded.spec.variants:
        raise InputError(f"{suite}: no variant named '{name}' (have {', '.join(loaded.variant_names())})")
    cases = {c.id: c for c in loaded.cases}
    if case is not None and case not in cases:
        raise InputError(f"{suite}: no case named '{case}' (have {', '.join(cases)})")
    chosen = cases[case] if case is not None else loaded.cases[0]
    plan = plan_variant(loaded, name)  # exactly what a run supplies (run.plan.VariantPlan.variables)
    if prompt is not None:
        if canonical_name(prompt) is not None:
            template = resolve_prompt(prompt).load()
        else:
            template = resolve_prompt(prompt, root=loaded.root, suite_path=loaded.path).load()
        from ..prompts.kinds import JUDGE_KINDS, detect_kind

        detected = detect_kind("\n".join(text for _, text in template.parts()))
        kind = template.meta.kind or (detected.name if detected is not None else None)
        if kind in JUDGE_KINDS:  # a judge prompt (declared, or known by its placeholders): the case's first question
            from ..run.judge_question import question_values

            values = question_values(loaded, name, chosen, kind)
            assert plan.types is not None
            return template.render(values, case=chosen.id), plan.types, name
        types = variant_entity_types(loaded, name, template)
        plan = dataclasses.replace(plan, template=template, entity_types=types.values, types=types)
    assert plan.types is not None
    return plan.render(chosen), plan.types, name


# --------------------------------------------------------------------------- prompts export


def export_command(
    prompt: Annotated[str, typer.Argument(help="Prompt file or builtin:<name> to export.", show_default=False)],
    out_dir: Annotated[Path, typer.Argument(help="The GraphRAG project folder (or LightRAG setup) to write into.", show_default=False)],
    to: Annotated[str, typer.Option("--to", help="graphrag (prompts/*.txt) or lightrag (lightrag_prompts.py).", show_default=False)],
    force: ForceOpt = False,
) -> None:
    """Write a prompt as the files the engine reads (a tuned YAML back to GraphRAG's prompts/*.txt)."""
    from ..prompts.builtin import canonical_name
    from ..prompts.export import TARGETS, export_graphrag, export_lightrag, graphrag_engine, side_templates, write_exports
    from ..prompts.resolve import resolve_prompt
    from ..prompts.loading import load_prompt

    if to not in TARGETS:
        raise InputError(f"--to: '{to}' is not one of {', '.join(TARGETS)}")
    resolved = resolve_prompt(prompt) if canonical_name(prompt) is not None else resolve_prompt(prompt, root=Path.cwd())
    template = resolved.load()
    if to == "graphrag":
        engine, settings = graphrag_engine(out_dir)
        typer.echo(f"GraphRAG version: {engine}, from {settings}" if settings is not None else
                   f"GraphRAG version: {engine} (no GraphRAG settings file in {out_dir}: its names and keys are written)")
        files = [export_graphrag(template, out_dir, "extract_graph", engine)]
        for kind, path in side_templates(resolved.path).items():
            files.append(export_graphrag(load_prompt(path), out_dir, kind, engine))
    else:
        files = [export_lightrag(template, out_dir)]
    write_exports(files, force=force)
    for exported in files:
        filled = ", ".join(exported.engine_variables) or "nothing"
        where = f"; settings: {exported.settings_key}: {exported.path.relative_to(out_dir).as_posix()}" if exported.settings_key else ""
        typer.echo(f"wrote {exported.path} ({exported.kind}; the engine fills {filled}{where})")
    meta = template.meta
    if meta.entity_types:
        typer.echo(f"note: entity types written into the prompt ({', '.join(meta.entity_types)}); "
                   "the engine's entity_types setting no longer reaches it")
    from ..formats import get_format

    defaults = get_format(to).default_delimiters().as_variables()  # the engine's own (harness.formats)
    for key, default in defaults.items():
        value = getattr(meta, key)
        if value and value != default and not (to == "lightrag" and key == "record_delimiter"):
            typer.echo(f"note: the prompt declares {key} {value!r}; the engine's default is {default!r}: set it to match")
    from ..prompts.template import CONTINUE_PROMPT, LOOP_PROMPT

    if to == "graphrag" and (template.continue_prompt != CONTINUE_PROMPT or template.loop_prompt != LOOP_PROMPT):
        typer.echo("note: the template's own gleaning prompts are not exported; GraphRAG sends its built-in ones")


# --------------------------------------------------------------------------- prompts list / show


def list_command(json_out: JsonOpt = False) -> None:
    """List the built-in prompts."""
    from ..prompts.builtin import catalog, load_builtin

    rows = []
    for name, prompt in sorted(catalog().items()):
        template = load_builtin(name)
        rows.append({"name": prompt.reference, "kind": template.meta.kind, "format": template.format,
                     "description": template.meta.description})
    if json_out:
        emit_json(rows)
        return
    for row in rows:
        typer.echo(f"{row['name']:<40} {row['kind'] or '-':<32} {row['format']:<9} {row['description']}")


def kinds_command(
    json_out: JsonOpt = False,
    engine: Annotated[Optional[str], typer.Option("--engine", help="Only the variables this engine fills (graphrag-0..3, lightrag, lightrag-old).")] = None,
) -> None:
    """List the prompt kinds: per engine version, the variables it fills, and the answer format."""
    from ..prompts.kinds import ENGINE_GROUPS, HARNESS_ENGINE, PROMPT_KINDS

    if engine is not None and engine not in ENGINE_GROUPS:
        raise InputError(f"--engine: '{engine}' is not one of {', '.join(ENGINE_GROUPS)}")
    rows: list[dict[str, Any]] = []
    for kind in PROMPT_KINDS.values():
        runner = [(HARNESS_ENGINE, kind.harness)] if kind.harness is not None else []
        for version, variables in [*kind.filled.items(), *runner]:
            if engine is not None and version not in ENGINE_GROUPS[engine]:
                continue
            rows.append({"kind": kind.name, "engine": version, "variables": list(variables),
                         "files": list(kind.files.get(version, ())), "settings": list(kind.settings_keys.get(version, ())),
                         "format": kind.format, "answer": kind.answer})
    if json_out:
        emit_json(rows)
        return
    typer.echo(f"{'kind':<40} {'engine':<13} {'format':<9} variables")
    for row in rows:
        typer.echo(f"{row['kind']:<40} {row['engine']:<13} {row['format'] or '-':<9} {', '.join(row['variables']) or '-'}")


def show_command(name: Annotated[str, typer.Argument(help="builtin:<family>/<name>", show_default=False)]) -> None:
    """Print a built-in prompt's template (copy it into prompts/ to start your own)."""
    from ..prompts.builtin import get_builtin

    typer.echo(get_builtin(name).read(), nl=False)
