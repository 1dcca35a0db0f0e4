"""The `harness tune` command."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..atomicfile import atomic_write
from ..errors import InputError
from ..inputfiles import read_text
from .inputs import record_mode as checked_record_mode
from .options import TUNE_FORMAT_HELP

if TYPE_CHECKING:
    from ..suites import Suite

DEFAULT_CHUNK_TOKENS = 1200  # GraphRAG's default chunk size


def existing_variant(loaded: Suite, name: str, prompt: Path) -> bool:
    """Whether the suite already has variant `name` for this prompt (re-tuning into the same file:
    nothing to add). A variant of that name for another prompt is refused before any tuning call."""
    spec = loaded.spec.variants.get(name)
    if spec is None:
        return False
    current = (loaded.root / spec.prompt).resolve() if spec.prompt else None
    if current != prompt.resolve():
        raise InputError(f"--add-variant {name}: {loaded.path} already has a variant '{name}' "
                         f"({spec.prompt or 'no prompt file'}); choose another name, or tune into its prompt file")
    return True


def add_variant(suite_path: Path, name: str, prompt: Path, root: Path) -> None:
    """Add `name: {prompt: ...}` under the suite's `variants:` as one new line, so comments survive."""
    from ..suites import load_suite

    original = read_text(suite_path, what="suite")
    lines = original.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == "variants:"), None)
    if start is None:
        raise InputError(f"{suite_path}: no block-style `variants:` mapping to add {name} to")
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    indent = "  "
    if start + 1 < len(lines) and lines[start + 1].strip():
        indent = lines[start + 1][: len(lines[start + 1]) - len(lines[start + 1].lstrip())]
    try:
        reference = prompt.resolve().relative_to(root.resolve())
    except ValueError:
        reference = prompt.resolve()
    lines.insert(end, f"{indent}{name}: {{prompt: {reference.as_posix()}}}\n")
    atomic_write(suite_path, "".join(lines), roots=(root,))
    try:
        load_suite(suite_path)
    except InputError:
        atomic_write(suite_path, original, roots=(root,))
        raise


def input_chunks(folder: Path, chunk_tokens: int, model: str) -> tuple[list[str], list[str]]:
    """The chunks of every .txt and .md file below `folder`, as an indexing pipeline would cut them;
    named by relative path, with `#n` when a file makes several."""
    from ..llm.tokens import split_tokens
    from ..importers.common import find_files

    files = find_files(folder, re.compile(""), suffixes=(".txt", ".md"))
    texts: list[str] = []
    names: list[str] = []
    for file in files:
        text = read_text(file, what="input document")  # bounded, regular files only, strict UTF-8
        if not text.strip():
            continue
        pieces = split_tokens(text, chunk_tokens, model)
        name = file.relative_to(folder).as_posix()
        texts.extend(pieces)
        names.extend([name] if len(pieces) == 1 else [f"{name}#{i}" for i in range(1, len(pieces) + 1)])
    if not texts:
        raise InputError(f"{folder}: no .txt or .md files with text to tune from")
    return texts, names


def input_cassettes(folder: Path) -> Path:
    """`fixtures/cassettes/tune-<project>-<folder>`: named after the project holding the folder, so
    the `input/` folders of two projects do not share (and overwrite) their tuning cassettes."""
    from ..names import safe_name

    resolved = folder.resolve()
    project = safe_name(resolved.parent.name, fallback="project")
    return Path("fixtures") / "cassettes" / f"tune-{project}-{safe_name(resolved.name, fallback='input')}"


def tune_command(
    out: Annotated[Path, typer.Option("--out", help="Where to write the tuned YAML template (prompts/<name>.yaml).")],
    suite: Annotated[Optional[Path], typer.Option("--suite", help="Tune from a suite's chunks.")] = None,
    input_dir: Annotated[Optional[Path], typer.Option("--input", help="Tune from the .txt and .md files below a folder.")] = None,
    domain: Annotated[Optional[str], typer.Option("--domain", help="The domain (detected when not given).")] = None,
    language: Annotated[Optional[str], typer.Option("--language", help="The language (detected when not given).")] = None,
    persona: Annotated[Optional[str], typer.Option("--persona", help="The expert persona, 'You are ...' (asked for when not given).")] = None,
    selection: Annotated[str, typer.Option("--selection", help="random, top, all or diverse.")] = "diverse",
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many chunks to use.")] = 3,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=100, help="Token budget of the prompt without the chunk.")] = 4000,
    min_examples: Annotated[int, typer.Option("--min-examples", min=0, help="Fewest few-shot examples to keep.")] = 1,
    discover_entity_types: Annotated[bool, typer.Option("--discover-entity-types", help="Ask the model for the entity types (the default without --entity-types).")] = False,
    entity_types: Annotated[Optional[str], typer.Option("--entity-types", help="Comma-separated entity types to use instead.")] = None,
    output_format: Annotated[str, typer.Option("--format", help=TUNE_FORMAT_HELP)] = "graphrag",
    add_variant_name: Annotated[Optional[str], typer.Option("--add-variant", help="Add the tuned prompt to the suite as this variant.")] = None,
    record_mode: Annotated[Optional[str], typer.Option("--record-mode", help="none (replay), once, rewrite or all.")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible endpoint.")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Model for tuning calls (default: the suite's).")] = None,
    chunk_tokens: Annotated[int, typer.Option("--chunk-tokens", min=50, help="With --input: cut files into chunks of this many tokens.")] = DEFAULT_CHUNK_TOKENS,
    cassettes: Annotated[Optional[Path], typer.Option("--cassettes", help="Folder of tuning cassettes (default: fixtures/cassettes/<suite>/tune).")] = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Ask for the entity types N times (the same request; each sample its own cassette) and report how often each type recurs.")] = 1,
    model_max_tokens: Annotated[Optional[int], typer.Option("--model-max-tokens", min=1, help="Most tokens the model may write per answer (a suite's model.max_tokens; default: the suite's, else no limit).")] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help="Seconds a call may take, from its first byte sent to its answer's last (a suite's model.timeout_s; default: the suite's, else 120).")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", min=1, max=512, help="Most calls in flight (a suite's model.concurrency; default: the suite's, else 8).")] = None,
) -> None:
    """Generate a domain-tuned extraction prompt from sample chunks (calls recorded as cassettes)."""
    from ..llm.providers.registry import get_provider
    from ..llm.client import EndpointSettings, SettingNames
    from ..run.plan import endpoint_settings
    from ..suites import MAX_TIMEOUT_S, load_suite
    from ..tune.pipeline import TuneOptions, tune
    from ..tune.sampling import SELECTIONS

    if (suite is None) == (input_dir is None):
        raise InputError("give exactly one of --suite or --input")
    if timeout is not None and not 0 < timeout <= MAX_TIMEOUT_S:  # NaN fails too
        raise InputError(f"--timeout: {timeout:g} is no time for a call; give more than 0 and at most {MAX_TIMEOUT_S:g} seconds")
    if selection not in SELECTIONS:
        raise InputError(f"--selection: '{selection}' is not one of {', '.join(SELECTIONS)}")
    if discover_entity_types and entity_types:
        raise InputError("give --discover-entity-types or --entity-types, not both")
    if add_variant_name and suite is None:
        raise InputError("--add-variant needs --suite")
    mode = checked_record_mode(record_mode, "record")
    loaded = None
    already = False  # --add-variant names a variant the suite already has for this prompt
    if suite is not None:
        loaded = load_suite(suite)
        texts, names = [c.text for c in loaded.cases], [c.id for c in loaded.cases]
        folder = cassettes or loaded.cassette_dir() / "tune"
        endpoint = endpoint_settings(loaded.spec.model, model_name=model, base_url=base_url)
        already = add_variant_name is not None and bool(add_variant_name) and existing_variant(loaded, add_variant_name, out)
    else:
        assert input_dir is not None
        texts, names = input_chunks(input_dir, chunk_tokens, model or "gpt-4o-mini")
        folder = cassettes or input_cassettes(input_dir)
        endpoint = EndpointSettings(model=model or "gpt-4o-mini", base_url=base_url)
    types = [t.strip() for t in entity_types.split(",") if t.strip()] if entity_types else None
    if entity_types is not None and not types:
        raise InputError("--entity-types: no type given")
    if persona is not None and not persona.strip():
        raise InputError("--persona: empty")
    if model_max_tokens is not None:
        endpoint = dataclasses.replace(endpoint, max_tokens=model_max_tokens)
    if timeout is not None:
        endpoint = dataclasses.replace(endpoint, timeout_s=timeout)
    if concurrency is not None:
        endpoint = dataclasses.replace(endpoint, concurrency=concurrency)
    has_key = get_provider(endpoint.provider).find_key(endpoint) is not None
    if base_url and mode != "none" and not has_key:  # an endpoint was asked for: never replay instead
        raise InputError(f"--base-url {base_url}: no {endpoint.api_key_env} set, so nothing can be recorded; set it "
                         "(any value for a local server that takes no key), or pass --record-mode none to replay "
                         f"the cassettes in {folder}")
    if record_mode is None and mode != "none" and not has_key:
        mode = "none"  # nothing could be recorded without a key: replay what is there
        typer.echo(f"no {endpoint.api_key_env} set: replaying the tuning cassettes in {folder}", err=True)
    result = tune(TuneOptions(
        texts=texts, names=names, out=out, cassettes=folder, endpoint=endpoint,
        record_mode=mode, domain=domain, language=language, persona=persona, selection=selection, limit=limit,
        max_tokens=max_tokens, min_examples=min_examples, entity_types=types, format=output_format, repeat=repeat,
        setting_names=SettingNames(max_tokens="--model-max-tokens", timeout_s="--timeout", concurrency="--concurrency"),
    ))
    report = result.report
    typer.echo(f"domain: {report.domain}; language: {report.language}; entity types: {', '.join(report.entity_types)}")
    typer.echo(f"examples kept: {len(report.examples_kept)}; dropped for the token budget: "
               f"{len(report.examples_dropped_for_token_budget)}; rejected: {len(report.examples_rejected)}")
    for item in report.examples_rejected:
        typer.echo(f"  rejected {item.chunk}: {item.reason}")
    for kind, path in result.paths.items():
        typer.echo(f"{kind}: {path} ({report.tokens[kind]} tokens)")
    typer.echo(f"report: {result.report_path} and {result.report_path.with_suffix('.md')}")
    stability = report.entity_type_stability
    if stability is not None:
        typer.echo(f"entity types over {stability.samples} samples: "
                   + ", ".join(f"{t.type} {t.samples}/{stability.samples}" for t in stability.types))
    for note in report.notes:
        typer.echo(f"note: {note}")
    if add_variant_name and loaded is not None:
        if already:
            typer.echo(f"variant '{add_variant_name}' of {loaded.path} already measures {out}; measure it with:")
        else:
            add_variant(loaded.path, add_variant_name, result.template_path, loaded.root)
            typer.echo(f"added variant '{add_variant_name}' to {loaded.path}; measure it with:")
        typer.echo(f"  harness record {loaded.path} --variant {add_variant_name} && harness run {loaded.path}")
        if report.examples_kept:
            typer.echo(f"note: the prompt's examples are cases of the suite ({', '.join(report.examples_kept)}); "
                       "their scores will measure copying, and the gate warns (leakage)")
