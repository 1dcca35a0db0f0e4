"""`harness prompts ...` (lint, render, export, list, show) and `harness import ...` (graphrag, lightrag;
the benchmarks text2kgbench, docred and webnlg).

Errors in what the user gave are InputError (one line on stderr, exit 2); lint findings at
error severity exit 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..cli_output import emit_json
from ..errors import InputError

prompts_app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
import_app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _unescape(value: str | None) -> str | None:
    """Let delimiters be typed on a command line: `\\n` stands for a newline."""
    return None if value is None else value.replace("\\n", "\n").replace("\\t", "\t")


# --------------------------------------------------------------------------- prompts lint


@prompts_app.command("lint")
def lint(
    prompts: Annotated[Optional[list[str]], typer.Argument(help="Prompt files or builtin:<name> references.", show_default=False)] = None,
    suite: Annotated[Optional[list[Path]], typer.Option("--suite", help="Lint every variant of this suite, with its settings (repeatable).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    format: Annotated[Optional[str], typer.Option("--format", help="Output format the answers are parsed as: graphrag, lightrag, json, claims, report, llamaindex, function, json_triples, triple_table, summary, map_points.")] = None,
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
    from .kinds import ENGINE_NAMES, KINDS
    from .lint import LintFinding, LintReport, lint_report

    if not prompts and not suite:
        raise InputError("no prompt given (try: harness prompts lint prompts/default/extract_graph.txt, or --suite SUITE)")
    if format is not None and (format not in FORMATS or format == "auto"):
        raise InputError(f"--format: '{format}' is not one of {', '.join(f for f in FORMATS if f != 'auto')}")
    if kind is not None and kind not in KINDS:
        raise InputError(f"--kind: '{kind}' is not one of {', '.join(KINDS)}")
    if engine is not None and engine not in ENGINE_NAMES:
        raise InputError(f"--engine: '{engine}' is not one of {', '.join(ENGINE_NAMES)}")
    settings: dict[str, Any] = {
        "format": format,
        "entity_types": _split(entity_types),
        "language": language,
        "tuple_delimiter": _unescape(tuple_delimiter),
        "record_delimiter": _unescape(record_delimiter),
        "completion_delimiter": _unescape(completion_delimiter),
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
    from .lint import lint_report
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
        options.setdefault("model", spec.model or suite.spec.model.name)
        options.setdefault("engine", "harness")  # the runner fills a suite's prompts
        out.append((f"{suite.name}/{name}: {resolved.display}", lint_report(template, variables=variables, **options)))
    return out


# --------------------------------------------------------------------------- prompts render


@prompts_app.command("render")
def render(
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
    from .builtin import canonical_name
    from .entity_types import variant_entity_types
    from .resolve import resolve_prompt

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
        types = variant_entity_types(loaded, name, template)
        plan = dataclasses.replace(plan, template=template, entity_types=types.values, types=types)
    assert plan.types is not None
    return plan.render(chosen), plan.types, name


# --------------------------------------------------------------------------- prompts export


@prompts_app.command("export")
def export(
    prompt: Annotated[str, typer.Argument(help="Prompt file or builtin:<name> to export.", show_default=False)],
    out_dir: Annotated[Path, typer.Argument(help="The GraphRAG project folder (or LightRAG setup) to write into.", show_default=False)],
    to: Annotated[str, typer.Option("--to", help="graphrag (prompts/*.txt) or lightrag (lightrag_prompts.py).", show_default=False)],
    force: Annotated[bool, typer.Option("--force", help="Overwrite files that exist.")] = False,
) -> None:
    """Write a prompt as the files the engine reads (a tuned YAML back to GraphRAG's prompts/*.txt)."""
    from .builtin import canonical_name
    from .export import TARGETS, export_graphrag, export_lightrag, graphrag_engine, side_templates, write_exports
    from .resolve import resolve_prompt
    from .loading import load_prompt

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
    from .template import CONTINUE_PROMPT, LOOP_PROMPT

    if to == "graphrag" and (template.continue_prompt != CONTINUE_PROMPT or template.loop_prompt != LOOP_PROMPT):
        typer.echo("note: the template's own gleaning prompts are not exported; GraphRAG sends its built-in ones")


# --------------------------------------------------------------------------- prompts list / show


@prompts_app.command("list")
def list_builtins(json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the built-in prompts."""
    from .builtin import catalog, load_builtin

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


@prompts_app.command("kinds")
def list_kinds(
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    engine: Annotated[Optional[str], typer.Option("--engine", help="Only the variables this engine fills (graphrag-0..3, lightrag, lightrag-old).")] = None,
) -> None:
    """List the prompt kinds: per engine version, the variables it fills, and the answer format."""
    from .kinds import ENGINE_GROUPS, HARNESS_ENGINE, KINDS

    if engine is not None and engine not in ENGINE_GROUPS:
        raise InputError(f"--engine: '{engine}' is not one of {', '.join(ENGINE_GROUPS)}")
    rows = []
    for kind in KINDS.values():
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


@prompts_app.command("show")
def show(name: Annotated[str, typer.Argument(help="builtin:<family>/<name>", show_default=False)]) -> None:
    """Print a built-in prompt's template (copy it into prompts/ to start your own)."""
    from .builtin import get_builtin

    typer.echo(get_builtin(name).read(), nl=False)


# --------------------------------------------------------------------------- import


OutOpt = Annotated[Optional[Path], typer.Option("--out", help="Suite file to write (default: suites/<name>.yaml).")]
NameOpt = Annotated[Optional[str], typer.Option("--name", help="Suite name (default: the project folder's name).")]
LimitOpt = Annotated[int, typer.Option("--limit", "--max-cases", min=1,
                                       help="Most cases written (chunks, in the engine's order); what is left out is said.")]
DocumentsOpt = Annotated[Optional[list[str]], typer.Option(
    "--documents", help="Take the chunks of these documents only (file name, stem or glob; repeat the option).")]
EngineVersionOpt = Annotated[Optional[str], typer.Option(
    "--graphrag-version", help="The project's GraphRAG version (e.g. 0.5.0), where settings of versions look alike "
                               "(default: the last version of the settings' layout).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite files that exist.")]
CacheOpt = Annotated[bool, typer.Option(
    "--cache", help="Also turn the project's LLM cache (GraphRAG 0.x-3.x, a LightRAG working folder's) into "
                    "cassettes: a suite <name>-cache with one variant per cached model, each on the cases its "
                    "model covers, replayable with --record-mode none.")]


def _finish(draft: Any, out: Path, force: bool, lint_results: dict[str, list[Any]]) -> None:
    from ..run.plan import plan_variant
    from ..suites import load_suite
    from ..importers import write_draft

    written = write_draft(draft, out, force=force)
    for warning in draft.warnings:
        sys.stderr.write(f"harness: warning: {warning}\n")
    for kind, findings in lint_results.items():
        for finding in findings:
            sys.stderr.write(f"harness: lint ({kind}): {finding} [{finding.hint}]\n")
    try:
        suite = load_suite(out)
        for name in suite.variant_names():
            plan_variant(suite, name).render(suite.variant_cases(name)[0])
    except InputError as exc:
        raise InputError(f"{out}: written, but it does not load yet: {exc.message}") from None
    typer.echo(f"wrote {out}: {len(draft.variants)} variant(s) ({', '.join(draft.variants)}), "
               f"{len(draft.cases)} case(s) with empty gold")
    for path in written[1:]:
        typer.echo(f"wrote {path}")
    if draft.thresholds:
        limits = ", ".join(f"{k}: {v}" for k, v in draft.thresholds.items() if k != "variants")
        typer.echo(f"thresholds (reference-free starting points, no gold needed): {limits}")
    typer.echo(f"next: harness record {out}, then harness run {out} --gate; "
               "fill in the gold of each case to score recall and precision too")


def _default_out(out: Path | None, name: str | None, root: Path) -> tuple[Path, str]:
    """The suite file and name: --name, else the --out file's stem, else the project folder's name."""
    from ..names import safe_name

    folder = root if root.is_dir() else root.parent
    suite_name = safe_name(name or (out.stem if out is not None else folder.resolve().name), fallback="imported")
    return (out or Path("suites") / f"{suite_name}.yaml"), suite_name


def _draft_graphrag(root: Path, out: Path, suite_name: str, limit: int, documents: list[str] | None,
                    graphrag_version: str | None) -> tuple[Any, dict[str, list[Any]]]:
    from ..importers.graphrag import graphrag_draft, lint_project_prompts, read_graphrag_project

    project = read_graphrag_project(root, graphrag_version=graphrag_version)
    draft = graphrag_draft(project, out, name=suite_name, limit=limit, documents=documents)
    return draft, lint_project_prompts(project)


def _draft_lightrag(root: Path, out: Path, suite_name: str, limit: int,
                    lightrag_version: str | None) -> tuple[Any, dict[str, list[Any]]]:
    from ..importers.lightrag import lightrag_draft, read_lightrag_project

    draft = lightrag_draft(read_lightrag_project(root, lightrag_version=lightrag_version), out, name=suite_name,
                           max_cases=limit)
    return draft, _lint_lightrag(draft)


def _import_command(
    draft_of: Callable[..., tuple[Any, dict[str, list[Any]]]], root_help: str
) -> Callable[..., None]:
    """`harness import graphrag`: its options around `draft_of`, which reads the project and returns
    the suite draft and the lint findings of its prompts."""

    def command(root: Path, out: Path | None = None, name: str | None = None, limit: int = 10,
                documents: list[str] | None = None, graphrag_version: str | None = None, force: bool = False,
                cache: bool = False) -> None:
        if not root.exists():
            raise InputError(f"{root}: no such folder")
        target, suite_name = _default_out(out, name, root)
        draft, lint_results = draft_of(root, target, suite_name, limit, documents, graphrag_version)
        _finish(draft, target, force, lint_results)
        if cache:
            _import_cache("graphrag", root, draft, target, graphrag_version, force)

    # set as objects, not strings: typer reads them with get_type_hints, which cannot see `root_help`
    command.__annotations__ = {
        "root": Annotated[Path, typer.Argument(help=root_help, show_default=False)],
        "out": OutOpt, "name": NameOpt, "limit": LimitOpt, "documents": DocumentsOpt,
        "graphrag_version": EngineVersionOpt, "force": ForceOpt, "cache": CacheOpt, "return": None,
    }
    return command


def _import_cache(engine: str, root: Path, draft: Any, target: Path, version: str | None, force: bool) -> None:
    """Write `<suite>-cache`: every imported case some cached model covers, a variant per cached
    model listing the cases it covers (the project's extraction prompt, which must render to the
    cached requests), and each covered case's cassette; every model's coverage is printed, every
    case left out of a variant is named with its reason."""
    from ..importers import write_draft
    from ..importers.cache_cassettes import cache_draft, covered_draft, write_cache_cassettes

    if engine == "graphrag":
        from ..importers.graphrag import read_graphrag_project
        from ..importers.graphrag_cache import graphrag_cache_plan

        plan = graphrag_cache_plan(read_graphrag_project(root, graphrag_version=version), draft)
    else:
        from ..importers.lightrag import read_lightrag_project
        from ..importers.lightrag_cache import lightrag_cache_plan

        plan = lightrag_cache_plan(read_lightrag_project(root, lightrag_version=version), draft)
    for note in plan.notes:
        sys.stderr.write(f"harness: note: {note}\n")
    first = cache_draft(draft, plan)
    out = target.with_name(f"{first.name}.yaml")
    write_draft(first, out, force=True if force else False)
    coverage = write_cache_cassettes(out, plan.finders, plan.models, replace=force)
    total = len(draft.cases)
    for report in coverage:
        typer.echo(f"cache: {report.line(total)}")
        for case_id, reason in report.left_out.items():
            sys.stderr.write(f"harness: cache: {report.model}: case {case_id} left out: {reason}\n")
    final = covered_draft(first, coverage)
    if final is None:
        out.unlink(missing_ok=True)
        raise InputError(f"{plan.source}: --cache: the cache covers no case for any model; no cache suite written")
    write_draft(final, out, force=True)
    dropped = total - len(final.cases)
    lists = sum(1 for entry in final.variants.values() if "cases" in entry)
    typer.echo(f"wrote {out}: {len(final.variants)} variant(s) ({', '.join(final.variants)}), {len(final.cases)} "
               "case(s) from the cache" + (f" ({dropped} covered by no model, left out)" if dropped else "")
               + (f"; {lists} variant(s) run only the cases their model covers" if lists else ""))
    typer.echo(f"next: harness run {out} --record-mode none (no model call, no key)")


import_graphrag = import_app.command(
    "graphrag", help="Turn a GraphRAG project's prompts, settings and input files into a suite skeleton."
)(_import_command(_draft_graphrag, "GraphRAG project folder (holding settings.yaml or settings.json)."))
LightRAGVersionOpt = Annotated[Optional[str], typer.Option(
    "--lightrag-version", help="The project's LightRAG release (e.g. 1.4.6), the suite's `engine:` (default: the "
                               "project's pin of lightrag-hku, else the release whose stock prompt its cache holds).")]


@import_app.command("lightrag", help="Turn a LightRAG setup's PROMPTS, settings (.env, its LightRAG(...) call), entity "
                                     "types and inputs into a suite skeleton.")
def import_lightrag(
    root: Annotated[Path, typer.Argument(help="LightRAG setup or working folder (prompt.py, .env, a script calling "
                                              "LightRAG(...), inputs/, rag_storage/ with kv_store_*.json).",
                                         show_default=False)],
    out: OutOpt = None, name: NameOpt = None, limit: LimitOpt = 10, lightrag_version: LightRAGVersionOpt = None,
    force: ForceOpt = False, cache: CacheOpt = False,
) -> None:
    if not root.exists():
        raise InputError(f"{root}: no such folder")
    target, suite_name = _default_out(out, name, root)
    draft, lint_results = _draft_lightrag(root, target, suite_name, limit, lightrag_version)
    _finish(draft, target, force, lint_results)
    if cache:
        _import_cache("lightrag", root, draft, target, lightrag_version, force)




@import_app.command("llamaindex", help="Turn documents and a LlamaIndex extraction prompt into a suite: LlamaIndex's SentenceSplitter chunks, the prompt filled as its extractor fills it.")
def import_llamaindex(
    docs: Annotated[Path, typer.Argument(help="A document, or a folder of .txt/.md documents.", show_default=False)],
    prompt: Annotated[Path, typer.Option("--prompt", help="The extraction prompt (SimpleLLMPathExtractor's or DynamicLLMPathExtractor's, with {text}).", show_default=False)],
    chunk_size: Annotated[int, typer.Option("--chunk-size", min=1, help="SentenceSplitter's chunk_size (LlamaIndex's default 1024).")] = 1024,
    chunk_overlap: Annotated[int, typer.Option("--chunk-overlap", min=0, help="SentenceSplitter's chunk_overlap (LlamaIndex's default 200).")] = 200,
    entity_types: Annotated[Optional[str], typer.Option("--entity-types", help="The extractor's allowed_entity_types, comma-separated (DynamicLLMPathExtractor); filled into {allowed_entity_types} as LlamaIndex fills it.", show_default=False)] = None,
    relation_types: Annotated[Optional[str], typer.Option("--relation-types", help="The extractor's allowed_relation_types, comma-separated; fills {allowed_relation_types}.", show_default=False)] = None,
    entity_properties: Annotated[Optional[str], typer.Option("--entity-properties", help="The extractor's allowed_entity_props (names), comma-separated; fills {allowed_entity_properties}.", show_default=False)] = None,
    relation_properties: Annotated[Optional[str], typer.Option("--relation-properties", help="The extractor's allowed_relation_props (names), comma-separated; fills {allowed_relation_properties}.", show_default=False)] = None,
    max_triplets: Annotated[Optional[int], typer.Option("--max-triplets", min=1, help="The extractor's max_triplets_per_chunk (DynamicLLMPathExtractor) or max_paths_per_chunk (SimpleLLMPathExtractor); fills {max_knowledge_triplets} (default 10).", show_default=False)] = None,
    out: OutOpt = None, name: NameOpt = None, limit: LimitOpt = 10, force: ForceOpt = False,
) -> None:
    from ..importers.llamaindex import ExtractorArguments, llamaindex_draft
    from .lint import lint_prompt

    if not docs.exists():
        raise InputError(f"{docs}: no such file or folder")
    target, suite_name = _default_out(out, name, docs)
    arguments = ExtractorArguments(
        entity_types=_comma_list("--entity-types", entity_types), relation_types=_comma_list("--relation-types", relation_types),
        entity_properties=_comma_list("--entity-properties", entity_properties),
        relation_properties=_comma_list("--relation-properties", relation_properties), max_triplets=max_triplets)
    draft = llamaindex_draft(docs, prompt, target, name=suite_name, limit=limit,
                             chunk_size=chunk_size, chunk_overlap=chunk_overlap, arguments=arguments)
    _finish(draft, target, force, {"extraction": lint_prompt(prompt, engine="llamaindex")})

def _comma_list(option: str, value: str | None) -> list[str] | None:
    """A comma-separated option as its items (None: not given); given but empty is bad input."""
    if value is None:
        return None
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise InputError(f"{option}: give the values comma-separated, e.g. {option} PERSON,PLACE")
    return items


# --------------------------------------------------------------------------- import: benchmarks with gold


def _write_benchmark(drafts: list[tuple[Path, Any]], force: bool) -> None:
    """Write benchmark suites (gold included) and check that each loads; one line per suite."""
    from ..suites import load_suite
    from ..importers import write_draft

    existing = [p for out, draft in drafts for p in (out, *draft.files) if p.exists()]
    if existing and not force:  # checked for every suite first: nothing is written half-way
        shown = ", ".join(str(p) for p in existing[:3])
        raise InputError(f"{shown}: already exists (use --force to overwrite)")
    for out, draft in drafts:
        written = write_draft(draft, out, force=force)
        try:
            load_suite(out)
        except InputError as exc:
            raise InputError(f"{out}: written, but it does not load yet: {exc.message}") from None
        relationships = sum(len(case["relationships"]) for case in draft.cases)
        typer.echo(f"wrote {out}: {len(draft.cases)} case(s), {relationships} gold relationship(s), "
                   f"ontology of {len((draft.ontology or {}).get('relations', []))} relation(s)")
        for path in written[1:]:
            typer.echo(f"wrote {path}")
    for out, draft in drafts[:1]:
        for warning in draft.warnings:
            sys.stderr.write(f"harness: warning: {warning}\n")
    if drafts:
        typer.echo(f"next: harness record {drafts[0][0]}, then harness run {drafts[0][0]}; "
                   "or score another pipeline's answers with harness evaluate")


@import_app.command("text2kgbench", help="Turn a Text2KGBench data folder into one suite per ontology, with its gold triples.")
def import_text2kgbench(
    data_dir: Annotated[Path, typer.Argument(help="The benchmark's data/dbpedia_webnlg or data/wikidata_tekgen folder.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="Folder the suites are written to (one <ontology>.yaml each).")] = Path("suites"),
    model: Annotated[str, typer.Option("--model", help="Model name written into the suites.")] = "gpt-4o-mini",
    force: ForceOpt = False,
) -> None:
    from ..importers.text2kgbench import text2kgbench_drafts

    if not data_dir.is_dir():
        raise InputError(f"{data_dir}: no such folder")
    _write_benchmark(text2kgbench_drafts(data_dir, out, model=model), force)


@import_app.command("webnlg", help="Turn a WebNLG+ 2020 text-to-RDF references file into a suite: one case per entry (its eid), with its triples.")
def import_webnlg(
    refs: Annotated[Path, typer.Argument(help="The challenge's semantic-parsing test data with references (XML).", show_default=False)],
    out: OutOpt = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Suite name (default: the --out file's name, else webnlg).")] = None,
    model: Annotated[str, typer.Option("--model", help="Model name written into the suite.")] = "gpt-4o-mini",
    force: ForceOpt = False,
) -> None:
    from ..names import safe_name
    from ..importers.webnlg import webnlg_draft

    if not refs.is_file():
        raise InputError(f"{refs}: no such file")
    suite_name = safe_name(name or (out.stem if out is not None else "webnlg"), fallback="webnlg")
    target = out or Path("suites") / f"{suite_name}.yaml"
    _write_benchmark([(target, webnlg_draft(refs, target, name=suite_name, model=model))], force)


@import_app.command("webnlg-candidates", help="Turn a WebNLG+ 2020 candidates XML (<generatedtripleset>) into an outputs file for harness evaluate.")
def import_webnlg_candidates(
    cands: Annotated[Path, typer.Argument(help="A system's candidates XML.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="The outputs JSON Lines file to write.")],
    refs: Annotated[Optional[Path], typer.Option("--refs", help="The references XML: entries without an eid take its eids by position.")] = None,
    force: ForceOpt = False,
) -> None:
    import json

    from ..atomicfile import atomic_write
    from ..importers.webnlg import candidate_rows

    for path in (cands, refs):
        if path is not None and not path.is_file():
            raise InputError(f"{path}: no such file")
    if out.exists() and not force:
        raise InputError(f"{out}: already exists (use --force to overwrite)")
    rows, warnings = candidate_rows(cands, refs)
    atomic_write(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    typer.echo(f"wrote {out}: {len(rows)} row(s)")
    for warning in warnings:
        sys.stderr.write(f"harness: warning: {warning}\n")


@import_app.command("docred", help="Turn a DocRED or Re-DocRED file into a suite: one case per document, with its gold.")
def import_docred(
    file: Annotated[Path, typer.Argument(help="A DocRED or Re-DocRED JSON file (dev.json, test_revised.json, ...).", show_default=False)],
    rel_info: Annotated[Optional[Path], typer.Option("--rel-info", help="DocRED's rel_info.json: predicate names for the P-ids.")] = None,
    types: Annotated[Optional[str], typer.Option("--types", help="Keep only entities of these types, comma separated (PER,ORG,LOC,TIME,NUM,MISC).")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="Import only the first N documents.")] = None,
    out: OutOpt = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Suite name (default: the file's name).")] = None,
    model: Annotated[str, typer.Option("--model", help="Model name written into the suite.")] = "gpt-4o-mini",
    force: ForceOpt = False,
) -> None:
    from ..names import safe_name
    from ..importers.docred import docred_draft

    if not file.is_file():
        raise InputError(f"{file}: no such file")
    suite_name = safe_name(name or (out.stem if out is not None else file.stem), fallback="docred")
    target = out or Path("suites") / f"{suite_name}.yaml"
    draft = docred_draft(file, target, name=suite_name, rel_info=rel_info, types=_split(types), limit=limit, model=model)
    _write_benchmark([(target, draft)], force)


def _lint_lightrag(draft: Any) -> dict[str, list[Any]]:
    from .lint import lint_prompt
    from .yaml_template import load_yaml_text

    results: dict[str, list[Any]] = {}
    for path, content in draft.files.items():
        if path.suffix == ".yaml":
            template = load_yaml_text(content, str(path), strict=False)
            results["extract_graph"] = lint_prompt(template)
    return results
