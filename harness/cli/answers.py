"""`harness parse`, `harness score` and `harness citations`: commands that read one model answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional

import typer

from ..errors import InputError
from .inputs import check_format, entity_type_list, read_input
from .options import (
    CompletionOpt,
    FormatOpt,
    JsonOpt,
    ParseFormatOpt,
    RecordOpt,
    TupleOpt,
)
from .render import citation_lines, emit_json, parse_lines, query_lines, reference_free_lines, score_lines

if TYPE_CHECKING:
    from ..checks.query import QueryCheck
    from ..model import MatchingConfig, ParseResult, ReferenceFreeScores


def parse_command(
    source: Annotated[Optional[str], typer.Argument(help="Model output file, or - for stdin.")] = None,
    format: ParseFormatOpt = "auto",
    json_out: JsonOpt = False,
    jsonl: Annotated[Optional[Path], typer.Option("--jsonl", help="JSONL file: one object per line with `output` (and optional `id`, `format`).")] = None,
    tuple_delimiter: TupleOpt = "<|>",
    record_delimiter: RecordOpt = "##",
    completion_delimiter: CompletionOpt = "<|COMPLETE|>",
    entity: Annotated[Optional[list[str]], typer.Option("--entity", help="--format summary: the entity the summary is about (repeat for both ends of a relationship).")] = None,
    max_words: Annotated[int, typer.Option("--max-words", min=1, help="--format summary: the word limit (GraphRAG's max_length).")] = 500,
    context: Annotated[Optional[Path], typer.Option("--context", help="--format map: JSON {dataset: [ids]} or a list of ids the points may cite.")] = None,
) -> None:
    """Parse model output; exit 1 when it has format errors (a query-phase answer: any issue)."""
    from ..checks.query import QUERY_FORMATS
    from ..inputfiles import MAX_RUN_FILE_BYTES, jsonl_lines, parse_json
    from ..formats.answer import parse
    from ..parsing import has_format_errors, parse_result_to_json

    if format not in QUERY_FORMATS:
        from ..formats import AUTO, format_names, is_format

        if format != AUTO and not is_format(format):
            raise InputError(f"--format: '{format}' is not one of {', '.join((AUTO, *format_names(), *QUERY_FORMATS))}")
    if format != "summary" and (entity or max_words != 500):
        raise InputError("--entity and --max-words go with --format summary")
    if format != "map" and context is not None:
        raise InputError("--context goes with --format map (for citations in other answers: harness citations)")
    context_ids = parse_json(read_input(str(context)), str(context)) if context is not None else None
    query_options = {"names": entity or (), "max_words": max_words, "context_ids": context_ids}
    delimiters: dict[str, str] = {"tuple_delimiter": tuple_delimiter, "record_delimiter": record_delimiter,
                  "completion_delimiter": completion_delimiter}
    for key, value in delimiters.items():
        if not value:
            raise InputError(f"--{key.replace('_', '-')}: must not be empty")
    if jsonl is not None:
        if source is not None:
            raise InputError("give either FILE or --jsonl, not both")
        failed = False
        for number, line in jsonl_lines(read_input(str(jsonl), limit=MAX_RUN_FILE_BYTES)):  # "\n" only
            if not line.strip():
                continue
            row = parse_json(line, f"{jsonl}:{number}")
            if not isinstance(row, dict) or not isinstance(row.get("output"), str):
                raise InputError(f"{jsonl}:{number}: each line needs a string `output`")
            row_format = row.get("format", format)
            if row_format in QUERY_FORMATS:
                checked = _check_query(row["output"], row_format, query_options)
                failed |= not checked.ok
                sys.stdout.write(json.dumps({"id": row.get("id", number), **checked.to_json()}, ensure_ascii=False) + "\n")
                continue
            check_format(row_format)
            result = parse(row["output"], row_format, tuple_delimiter=tuple_delimiter, record_delimiter=record_delimiter,
                           completion_delimiter=completion_delimiter)
            failed |= has_format_errors(result)
            sys.stdout.write(json.dumps({"id": row.get("id", number), **parse_result_to_json(result)}, ensure_ascii=False) + "\n")
        raise typer.Exit(1 if failed else 0)
    if source is None:
        raise InputError("give a FILE, - for stdin, or --jsonl FILE")
    if format in QUERY_FORMATS:
        checked = _check_query(read_input(source), format, query_options)
        _checked_exit(json_out, checked.to_json, lambda: query_lines(checked), checked.ok)
    result = parse(read_input(source), format, tuple_delimiter=tuple_delimiter, record_delimiter=record_delimiter,
                   completion_delimiter=completion_delimiter)
    if json_out:
        emit_json(parse_result_to_json(result))
    else:
        for line in parse_lines(result):
            typer.echo(line)
    raise typer.Exit(1 if has_format_errors(result) else 0)


def _check_query(text: str, fmt: str, options: dict) -> QueryCheck:
    from ..checks.query import check_query_answer

    return check_query_answer(text, fmt, **options)


def score_command(
    pred: Annotated[str, typer.Option("--pred", help="Model output to score (file or -).")],
    gold: Annotated[Optional[Path], typer.Option("--gold", help="YAML file with one case: id, text or chunk, entities, relationships.")] = None,
    text: Annotated[Optional[str], typer.Option("--text", help="The chunk the output was extracted from (file or -; default: the gold case's text).")] = None,
    entity_types: Annotated[Optional[str], typer.Option("--entity-types", help="The prompt's entity types, comma-separated, for type conformance.")] = None,
    examples: Annotated[Optional[str], typer.Option("--examples", help="The prompt file (or builtin:<name>) whose example text names leaked entities.")] = None,
    format: FormatOpt = "auto",
    json_out: JsonOpt = False,
) -> None:
    """Score one model output: reference-free figures against its chunk, and against a gold case with --gold."""
    from ..formats.answer import parse
    from ..scoring import score_case, score_to_json

    check_format(format)
    if gold is None and text is None:
        raise InputError("give --text CHUNK.txt (the chunk the output was extracted from), --gold GOLD.yaml, or both")
    if pred == "-" and text == "-":
        raise InputError("--pred and --text cannot both read standard input")
    types = entity_type_list(entity_types)
    case = matching = None
    if gold is not None:
        from ..suites import load_gold_case

        case, matching = load_gold_case(gold)
    chunk = read_input(text) if text is not None else case.text  # type: ignore[union-attr]
    example_text = _example_text(examples, format, types) if examples is not None else None
    result = parse(read_input(pred), format)
    figures = _reference_free_of(result, chunk, types, matching, example_text)
    score = score_case(case, result.graph, matching) if case is not None else None
    if json_out:
        from ..parsing.parse_result_json import parse_summary
        from ..scoring import reference_free_to_json

        emit_json({**(score_to_json(score) if score is not None else {}), "reference_free": reference_free_to_json(figures),
                    "parse": parse_summary(result)})
        return
    from ..parsing.parse_result_json import parse_problem_line

    problem = parse_problem_line(result)  # first: a 0 below may mean "nothing was read"
    if problem is not None:
        typer.echo(problem)
    if score is not None:
        for line in score_lines(score):
            typer.echo(line)
    for line in reference_free_lines(figures):
        typer.echo(line)


def citations_command(
    source: Annotated[str, typer.Argument(help="Community report, global-search map answer ({\"points\": [...]}: the citations inside each point's description) or query answer (file or -).")],
    context: Annotated[Optional[Path], typer.Option("--context", help="JSON: {dataset: [ids]} or a list of ids the answer may cite.")] = None,
    datasets: Annotated[Optional[list[str]], typer.Option("--dataset", help="Allowed dataset names (repeatable; default Entities, Relationships, Claims, Reports, Sources).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Check [Data: ...] citations: at most five ids then +more, known datasets, ids in context."""
    from ..checks import check_citations
    from ..checks.citations import DEFAULT_DATASETS

    from ..inputfiles import parse_json

    context_ids = None
    if context is not None:
        context_ids = parse_json(read_input(str(context)), str(context))
    result = check_citations(read_input(source), tuple(datasets) if datasets else DEFAULT_DATASETS, context_ids)
    _checked_exit(json_out, result.to_json, lambda: citation_lines(result), result.ok)


def _checked_exit(json_out: bool, as_json: Callable[[], object], lines: Callable[[], Iterable[str]], ok: bool) -> NoReturn:
    """A check's result as JSON or as lines, then its exit code: 0 when it passed, 1 when not."""
    if json_out:
        emit_json(as_json())
    else:
        for line in lines():
            typer.echo(line)
    raise typer.Exit(0 if ok else 1)


def _example_text(prompt: str, fmt: str, types: list[str] | None) -> str:
    """The prompt's text with an empty chunk, filled as a run fills it: its own delimiters (else the
    format's), its entity types (else --entity-types, else the defaults), its language (else English)."""
    from ..formats import AUTO, DEFAULT_FORMAT, get_format
    from ..formats.base import DELIMITER_KEYS, resolve_delimiters
    from ..prompts.entity_types import effective_entity_types
    from ..prompts.leakage import prompt_without_chunk
    from ..prompts.loading import load_prompt

    template = load_prompt(Path(prompt))
    output_format = get_format(template.format or DEFAULT_FORMAT if fmt == AUTO else fmt)
    delimiters = resolve_delimiters(output_format, {key: getattr(template.meta, key) for key in DELIMITER_KEYS})
    filled_types = effective_entity_types(template, variant=types, suite=None).values
    return prompt_without_chunk(template, {
        "entity_types": ",".join(filled_types),
        **delimiters.as_variables(),
        "language": template.meta.language or "English",
    })


def _reference_free_of(result: ParseResult, chunk: str, types: list[str] | None, matching: MatchingConfig | None,
                       example_text: str | None) -> ReferenceFreeScores:
    from ..formats import DEFAULT_FORMAT, get_format, is_format
    from ..scoring.reference_free import reference_free

    # the scale the format's prompt asks for, as in runs (GraphRAG 1..10; LightRAG none)
    fmt = get_format(result.format if is_format(result.format) else DEFAULT_FORMAT)
    return reference_free(
        result.graph, chunk, entity_types=types,
        type_synonyms=matching.type_synonyms if matching is not None else None,
        examples=example_text,
        strength_scale=fmt.strength_scale,
        descriptions=fmt.writes_descriptions,
        types_optional=fmt.types_optional,
    )

