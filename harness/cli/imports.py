"""`harness import ...`: GraphRAG, LightRAG and LlamaIndex projects, and the benchmarks Text2KGBench
DocRED and WebNLG+ 2020, turned into suites (the importers: harness/importers/).

Errors in what the user gave are InputError (one line on stderr, exit 2).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import InputError
from .inputs import comma_list, split_list
from .options import ForceOpt



OutOpt = Annotated[Optional[Path], typer.Option("--out", help="Suite file to write (default: suites/<name>.yaml).")]
NameOpt = Annotated[Optional[str], typer.Option("--name", help="Suite name (default: the project folder's name).")]
LimitOpt = Annotated[int, typer.Option("--limit", "--max-cases", min=1,
                                       help="Most cases written (chunks, in the engine's order); what is left out is said.")]
DocumentsOpt = Annotated[Optional[list[str]], typer.Option(
    "--documents", help="Take the chunks of these documents only (file name, stem or glob; repeat the option).")]
EngineVersionOpt = Annotated[Optional[str], typer.Option(
    "--graphrag-version", help="The project's GraphRAG version (e.g. 0.5.0), where settings of versions look alike "
                               "(default: the last version of the settings' layout).")]
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


import_graphrag = _import_command(_draft_graphrag, "GraphRAG project folder (holding settings.yaml or settings.json).")
import_graphrag.__doc__ = "Turn a GraphRAG project's prompts, settings and input files into a suite skeleton."


LightRAGVersionOpt = Annotated[Optional[str], typer.Option(
    "--lightrag-version", help="The project's LightRAG release (e.g. 1.4.6), the suite's `engine:` (default: the "
                               "project's pin of lightrag-hku, else the release whose stock prompt its cache holds).")]


def import_lightrag(
    root: Annotated[Path, typer.Argument(help="LightRAG setup or working folder (prompt.py, .env, a script calling "
                                              "LightRAG(...), inputs/, rag_storage/ with kv_store_*.json).",
                                         show_default=False)],
    out: OutOpt = None, name: NameOpt = None, limit: LimitOpt = 10, lightrag_version: LightRAGVersionOpt = None,
    force: ForceOpt = False, cache: CacheOpt = False,
) -> None:
    """Turn a LightRAG setup's PROMPTS, settings (.env, its LightRAG(...) call), entity types and inputs into a suite skeleton."""
    if not root.exists():
        raise InputError(f"{root}: no such folder")
    target, suite_name = _default_out(out, name, root)
    draft, lint_results = _draft_lightrag(root, target, suite_name, limit, lightrag_version)
    _finish(draft, target, force, lint_results)
    if cache:
        _import_cache("lightrag", root, draft, target, lightrag_version, force)




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
    """Turn documents and a LlamaIndex extraction prompt into a suite: LlamaIndex's SentenceSplitter chunks, the prompt filled as its extractor fills it."""
    from ..importers.llamaindex import ExtractorArguments, llamaindex_draft
    from ..prompts.lint import lint_prompt

    if not docs.exists():
        raise InputError(f"{docs}: no such file or folder")
    target, suite_name = _default_out(out, name, docs)
    arguments = ExtractorArguments(
        entity_types=comma_list("--entity-types", entity_types), relation_types=comma_list("--relation-types", relation_types),
        entity_properties=comma_list("--entity-properties", entity_properties),
        relation_properties=comma_list("--relation-properties", relation_properties), max_triplets=max_triplets)
    draft = llamaindex_draft(docs, prompt, target, name=suite_name, limit=limit,
                             chunk_size=chunk_size, chunk_overlap=chunk_overlap, arguments=arguments)
    _finish(draft, target, force, {"extraction": lint_prompt(prompt, engine="llamaindex")})

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


def import_text2kgbench(
    data_dir: Annotated[Path, typer.Argument(help="The benchmark's data/dbpedia_webnlg or data/wikidata_tekgen folder.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="Folder the suites are written to (one <ontology>.yaml each).")] = Path("suites"),
    model: Annotated[str, typer.Option("--model", help="Model name written into the suites.")] = "gpt-4o-mini",
    force: ForceOpt = False,
) -> None:
    """Turn a Text2KGBench data folder into one suite per ontology, with its gold triples."""
    from ..importers.text2kgbench import text2kgbench_drafts

    if not data_dir.is_dir():
        raise InputError(f"{data_dir}: no such folder")
    _write_benchmark(text2kgbench_drafts(data_dir, out, model=model), force)


def import_webnlg(
    refs: Annotated[Path, typer.Argument(help="The challenge's semantic-parsing test data with references (XML).", show_default=False)],
    out: OutOpt = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Suite name (default: the --out file's name, else webnlg).")] = None,
    model: Annotated[str, typer.Option("--model", help="Model name written into the suite.")] = "gpt-4o-mini",
    force: ForceOpt = False,
) -> None:
    """Turn a WebNLG+ 2020 text-to-RDF references file into a suite: one case per entry (its eid), with its triples."""
    from ..names import safe_name
    from ..importers.webnlg import webnlg_draft

    if not refs.is_file():
        raise InputError(f"{refs}: no such file")
    suite_name = safe_name(name or (out.stem if out is not None else "webnlg"), fallback="webnlg")
    target = out or Path("suites") / f"{suite_name}.yaml"
    _write_benchmark([(target, webnlg_draft(refs, target, name=suite_name, model=model))], force)


def import_webnlg_candidates(
    cands: Annotated[Path, typer.Argument(help="A system's candidates XML.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="The outputs JSON Lines file to write.")],
    refs: Annotated[Optional[Path], typer.Option("--refs", help="The references XML: entries without an eid take its eids by position.")] = None,
    force: ForceOpt = False,
) -> None:
    """Turn a WebNLG+ 2020 candidates XML (<generatedtripleset>) into an outputs file for harness evaluate."""
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
    """Turn a DocRED or Re-DocRED file into a suite: one case per document, with its gold."""
    from ..names import safe_name
    from ..importers.docred import docred_draft

    if not file.is_file():
        raise InputError(f"{file}: no such file")
    suite_name = safe_name(name or (out.stem if out is not None else file.stem), fallback="docred")
    target = out or Path("suites") / f"{suite_name}.yaml"
    draft = docred_draft(file, target, name=suite_name, rel_info=rel_info, types=split_list(types), limit=limit, model=model)
    _write_benchmark([(target, draft)], force)


def _lint_lightrag(draft: Any) -> dict[str, list[Any]]:
    from ..prompts.lint import lint_prompt
    from ..prompts.yaml_template import load_yaml_text

    results: dict[str, list[Any]] = {}
    for path, content in draft.files.items():
        if path.suffix == ".yaml":
            template = load_yaml_text(content, str(path), strict=False)
            results["extract_graph"] = lint_prompt(template)
    return results
