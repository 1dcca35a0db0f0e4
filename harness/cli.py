"""The `harness` command.

Exit codes, the same everywhere: 0 all good; 1 a gate, lint or check failed; 2 bad input
or configuration (one line, no traceback); 3 a cassette is missing or stale while
replaying; 4 model calls still failing after retries.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from . import __version__
from .cli_output import emit_json as _emit_json
from .errors import HarnessError, InputError
from .names import check_name

if TYPE_CHECKING:
    from .checks.query import QueryCheck

app = typer.Typer(
    name="harness",
    help="Regression testing for knowledge-graph extraction prompts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SuitesArg = Annotated[list[Path], typer.Argument(help="Suite files (suites/*.yaml).", show_default=False)]
ModeOpt = Annotated[
    Optional[str],
    typer.Option("--record-mode", help="none (replay only), once, rewrite or all. Default: none for run; once for record (none when CI is set)."),
]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", help="Only these variants (repeatable).")]
CaseOpt = Annotated[Optional[list[str]], typer.Option("--case", help="Only these cases (repeatable).")]
ReportsOpt = Annotated[Path, typer.Option("--reports", help="Folder for run outputs.")]
RunIdOpt = Annotated[Optional[str], typer.Option("--run-id", help="Name the run folder, reports/<suite>/<run-id>/, of every suite given (resumes it if unfinished).")]
FreshOpt = Annotated[bool, typer.Option("--fresh", help="Start a new run instead of resuming an unfinished one.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
ShardOpt = Annotated[Optional[str], typer.Option("--shard", help="Run shard i of n (i/n, 1-based): the cases at positions i, i+n, ...; join shards with `harness merge`.")]
GateOpt = Annotated[bool, typer.Option("--gate", help="Exit 1 when a variant breaks a threshold or regresses against the baseline.")]
BaselineOpt = Annotated[Optional[Path], typer.Option("--baseline", help="Baseline file or folder for --gate (default: <reports>/baselines/<suite>.json).")]
RepeatOpt = Annotated[int, typer.Option("--repeat", min=1, help="Samples per case and variant: the same requests N times, each sample in its own cassette; the summary adds the spread across samples (docs/reports.md).")]
WorkersOpt = Annotated[Optional[int], typer.Option("--workers", min=0, help="Processes replaying cases: by default every usable CPU when the run has 100 rows or more; 1: all in this process (also HARNESS_WORKERS; see the README).")]
OutsideChunksOpt = Annotated[bool, typer.Option("--allow-outside-chunks", help="Read chunk and variant prompt files that resolve outside the project folder (refused by default: both are sent to the model and written to cassettes and reports).")]


# how the shipped suites' notes say their cassettes hold the team's answers (a suite copied from
# one keeps the words after its cassettes hold a real model's)
HAND_WRITTEN = "written by hand"


def _evaluate(
    suites: list[Path],
    *,
    command: str,
    record_mode: str | None,
    variants: list[str] | None,
    cases: list[str] | None,
    reports: Path,
    run_id: str | None,
    fresh: bool,
    base_url: str | None = None,
    concurrency: int | None = None,
    shard: str | None = None,
    allow_outside_chunks: bool = False,
    baseline: Path | None = None,
    repeat: int = 1,
    workers: int | None = None,
) -> list:
    from .llm.record_modes import RECORD_MODES, default_record_mode
    from .reports.commands import parse_shard
    from .finish import finish_outcome
    from .reports.console import print_run_table
    from .run.schedule import RunOptions, check_outcome, run_suite
    from .suites import check_base_url, load_suite

    mode = record_mode or default_record_mode(command)
    if run_id is not None:
        check_name(run_id, "--run-id", "run id")  # it names a folder: nothing outside --reports
    if mode not in RECORD_MODES:
        raise InputError(f"--record-mode: '{mode}' is not one of {', '.join(RECORD_MODES)}")
    if base_url is not None:
        try:
            check_base_url(base_url)
        except ValueError as exc:
            raise InputError(f"--base-url: {exc}") from None
    if not suites:
        raise InputError("no suite given (try: harness run suites/*.yaml)")
    shard_of = parse_shard(shard)
    unique: dict[Path, Path] = {}
    for path in suites:  # a file given twice (suites/a.yaml suites/*.yaml) runs once
        unique.setdefault(path.resolve(), path)
    suites = list(unique.values())
    loaded = [load_suite(path, allow_outside_chunks=allow_outside_chunks) for path in suites]  # validate every suite before any call
    first_file: dict[str, Path] = {}
    for suite in loaded:  # reports/<suite>/<run-id>/ is per suite name: two files of one name would share it
        if suite.name in first_file:
            raise InputError(f"{suite.path}: suite '{suite.name}' is also {first_file[suite.name]}; "
                             "give one file per suite name")
        first_file[suite.name] = suite.path
    outcomes = []
    for suite in loaded:
        options = RunOptions(
            record_mode=mode,
            reports_dir=reports,
            run_id=run_id,  # each suite's own folder: reports/<suite>/<run-id>/
            fresh=fresh,
            variants=variants,
            cases=cases,
            base_url=base_url,
            concurrency=concurrency,
            progress=True,
            shard=shard_of,
            hold_lock=True,
            repeat=repeat,
            workers=workers,
        )
        outcome = run_suite(suite, options)
        try:
            for note in outcome.notes:
                typer.echo(f"harness: note: {note}", err=True)
            if outcome.recorded and HAND_WRITTEN in suite.spec.notes:
                typer.echo(f"harness: note: {suite.path}: its notes say the answers were {HAND_WRITTEN}, but "
                           f"{outcome.recorded} case(s) were just recorded from the endpoint: update `notes:`", err=True)
            check_outcome(outcome)
            finished = finish_outcome(outcome, record_mode=mode, baseline=baseline)
        finally:
            outcome.release()  # after summary.json: the run is finished before anyone else may take it
        print_run_table(finished.summary, outcome.run_dir, finished.verdict)
        outcomes.append(finished)
    return outcomes


@app.command()
def run(
    suites: SuitesArg,
    record_mode: ModeOpt = None,
    variant: VariantOpt = None,
    case: CaseOpt = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    fresh: FreshOpt = False,
    shard: ShardOpt = None,
    gate: GateOpt = False,
    baseline: BaselineOpt = None,
    allow_outside_chunks: OutsideChunksOpt = False,
    repeat: RepeatOpt = 1,
    workers: WorkersOpt = None,
) -> None:
    """Evaluate suites: render, replay (or call), parse, score, report."""
    outcomes = _evaluate(suites, command="run", record_mode=record_mode, variants=variant, cases=case,
                         reports=reports, run_id=run_id, fresh=fresh, shard=shard,
                         allow_outside_chunks=allow_outside_chunks, baseline=baseline if gate else None,
                         repeat=repeat, workers=workers)
    if gate:
        from .reports.commands import gate_outcomes

        raise typer.Exit(gate_outcomes(outcomes))


@app.command()
def record(
    suites: SuitesArg,
    record_mode: ModeOpt = None,
    variant: VariantOpt = None,
    case: CaseOpt = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    fresh: FreshOpt = False,
    shard: ShardOpt = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible endpoint (overrides the suite and OPENAI_BASE_URL).")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Most calls in flight.")] = None,
    allow_outside_chunks: OutsideChunksOpt = False,
    repeat: RepeatOpt = 1,
    batch: Annotated[bool, typer.Option("--batch", help="Send the calls through the OpenAI Batch API (half the price, answers within 24 h), then record what failed live; resumable (docs/batch.md).")] = False,
    batch_id: Annotated[Optional[str], typer.Option("--batch-id", help="With --batch: attach to this batch (created earlier) instead of creating one.")] = None,
    batch_poll: Annotated[float, typer.Option("--batch-poll", help="With --batch: seconds before the first check of a batch (1 to 300; doubling, at most 300).")] = 10.0,
) -> None:
    """Run against the live endpoint and write cassettes (needs an API key)."""
    if batch_id is not None and not batch:
        raise InputError("--batch-id: only with --batch")
    from .run.batch import MAX_POLL_S, MIN_POLL_S

    if not MIN_POLL_S <= batch_poll <= MAX_POLL_S:  # NaN fails too
        raise InputError(f"--batch-poll: {batch_poll:g} s between checks of a batch; give {MIN_POLL_S:g} to "
                         f"{MAX_POLL_S:g} seconds (a batch takes minutes to hours)")
    if batch:
        record_mode = _record_batch(suites, record_mode=record_mode, variants=variant, cases=case, shard=shard,
                                    base_url=base_url, allow_outside_chunks=allow_outside_chunks, repeat=repeat,
                                    batch_id=batch_id, poll_s=batch_poll)
    _evaluate(suites, command="record", record_mode=record_mode, variants=variant, cases=case,
              reports=reports, run_id=run_id, fresh=fresh, base_url=base_url, concurrency=concurrency, shard=shard,
              allow_outside_chunks=allow_outside_chunks, repeat=repeat)


def _record_batch(suites: list[Path], *, record_mode: str | None, variants: list[str] | None,
                  cases: list[str] | None, shard: str | None, base_url: str | None, allow_outside_chunks: bool,
                  repeat: int, batch_id: str | None, poll_s: float) -> str:
    """`record --batch`: every suite's calls through the Batch API; the record mode of the live
    run that follows (once: it replays what the batch recorded and records the failed cases)."""
    from .run.batch import plan_batch, record_batch
    from .llm.record_modes import RECORD_MODES, default_record_mode
    from .reports.commands import parse_shard
    from .suites import check_base_url, load_suite

    mode = record_mode or default_record_mode("record")
    if mode not in RECORD_MODES:
        raise InputError(f"--record-mode: '{mode}' is not one of {', '.join(RECORD_MODES)}")
    if mode == "none":
        raise InputError("--batch records, but the record mode is none (CI is set, or --record-mode none): nothing may be sent")
    if base_url is not None:
        try:
            check_base_url(base_url)
        except ValueError as exc:
            raise InputError(f"--base-url: {exc}") from None
    if batch_id is not None and len(suites) != 1:
        raise InputError("--batch-id: give exactly one suite (a batch holds one suite's calls)")
    for path in suites:
        suite = load_suite(path, allow_outside_chunks=allow_outside_chunks)
        todo, skipped = plan_batch(suite, mode=mode, variants=variants, cases=cases, base_url=base_url,
                                   shard=parse_shard(shard), repeat=repeat)
        report = record_batch(suite, todo, replace=mode != "once", poll_s=poll_s, batch_id=batch_id)
        report.skipped = skipped
        typer.echo(report.line(), err=True)
    return "once"


def _read_input(source: str, *, limit: int | None = None) -> str:
    """Text of FILE, or standard input for `-`; unreadable input is exit 2."""
    if source == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        from .inputfiles import MAX_INPUT_BYTES, read_bytes

        data = read_bytes(Path(source), limit=limit or MAX_INPUT_BYTES)  # regular files of bounded size only
        name = source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None


FormatOpt = Annotated[str, typer.Option("--format", help="auto, graphrag, lightrag, json, claims, report, llamaindex, function, json_triples, triple_table, summary or map_points.")]
ParseFormatOpt = Annotated[str, typer.Option("--format", help="auto, graphrag, lightrag, json, claims, report, llamaindex, function, json_triples, triple_table, summary or map_points; or a query-phase answer: map (global-search map points), drift (DRIFT primer or local answer), rate (rate-query answer).")]
TupleOpt = Annotated[str, typer.Option("--tuple-delimiter", help="Field delimiter of delimited output.")]
RecordOpt = Annotated[str, typer.Option("--record-delimiter", help="Record delimiter of delimited output.")]
CompletionOpt = Annotated[str, typer.Option("--completion-delimiter", help="Completion delimiter.")]


def _check_format(fmt: str) -> None:
    from .formats import AUTO, format_names

    known = (AUTO, *format_names())
    if fmt not in known:
        raise InputError(f"--format: '{fmt}' is not one of {', '.join(known)}")


@app.command("parse")
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
    from .checks.query import QUERY_FORMATS
    from .inputfiles import MAX_RUN_FILE_BYTES, jsonl_lines, parse_json
    from .parsing import has_format_errors, parse_result_to_json
    from .formats.answer import parse

    if format not in QUERY_FORMATS:
        from .formats import AUTO, format_names

        if format not in (AUTO, *format_names()):
            raise InputError(f"--format: '{format}' is not one of {', '.join((AUTO, *format_names(), *QUERY_FORMATS))}")
    if format != "summary" and (entity or max_words != 500):
        raise InputError("--entity and --max-words go with --format summary")
    if format != "map" and context is not None:
        raise InputError("--context goes with --format map (for citations in other answers: harness citations)")
    context_ids = parse_json(_read_input(str(context)), str(context)) if context is not None else None
    query_options = {"names": entity or (), "max_words": max_words, "context_ids": context_ids}
    delimiters = {"tuple_delimiter": tuple_delimiter, "record_delimiter": record_delimiter,
                  "completion_delimiter": completion_delimiter}
    for key, value in delimiters.items():
        if not value:
            raise InputError(f"--{key.replace('_', '-')}: must not be empty")
    if jsonl is not None:
        if source is not None:
            raise InputError("give either FILE or --jsonl, not both")
        failed = False
        for number, line in jsonl_lines(_read_input(str(jsonl), limit=MAX_RUN_FILE_BYTES)):  # "\n" only
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
            _check_format(row_format)
            result = parse(row["output"], row_format, **delimiters)
            failed |= has_format_errors(result)
            sys.stdout.write(json.dumps({"id": row.get("id", number), **parse_result_to_json(result)}, ensure_ascii=False) + "\n")
        raise typer.Exit(1 if failed else 0)
    if source is None:
        raise InputError("give a FILE, - for stdin, or --jsonl FILE")
    if format in QUERY_FORMATS:
        checked = _check_query(_read_input(source), format, query_options)
        if json_out:
            _emit_json(checked.to_json())
        else:
            for line in _query_lines(checked):
                typer.echo(line)
        raise typer.Exit(0 if checked.ok else 1)
    result = parse(_read_input(source), format, **delimiters)
    if json_out:
        _emit_json(parse_result_to_json(result))
    else:
        report = result.format_report
        typer.echo(f"format: {result.format}; entities {len(result.graph.entities)}, "
                   f"relationships {len(result.graph.relationships)}, claims {len(result.graph.claims)}; "
                   f"records {report.records_parsed}/{report.records_seen} parsed, {report.records_dropped} dropped; "
                   f"completion {report.completion}")
        for issue in report.issues:
            typer.echo(f"  {issue.code}{' (dropped)' if issue.dropped else ''}: {issue.message}"
                       + (f"  [{issue.excerpt[:80]!r}]" if issue.excerpt else ""))
    raise typer.Exit(1 if has_format_errors(result) else 0)


def _check_query(text: str, fmt: str, options: dict) -> QueryCheck:
    from .checks.query import check_query_answer

    return check_query_answer(text, fmt, **options)


def _query_lines(checked: QueryCheck) -> list[str]:
    """The plain-text view of a query-phase answer: what was read, then the issues."""
    from .checks.query import SummaryAnswer

    fmt, answer = checked.format, checked.answer
    if isinstance(answer, SummaryAnswer):
        head = f"format: summary; {answer.words} word(s)"
        body: list[str] = []
    elif fmt == "map":
        points = answer.get("points") if isinstance(answer, dict) else None
        points = points if isinstance(points, list) else []
        head = f"format: map; {len(points)} point(s)"
        body = [f"  point {n} (score {p.get('score')!s}): {str(p.get('description', ''))[:100]}"
                if isinstance(p, dict) else f"  point {n}: {str(p)[:100]}" for n, p in enumerate(points, 1)]
    elif fmt == "drift":
        value = answer if isinstance(answer, dict) else {}
        text = value.get("intermediate_answer", value.get("response", ""))
        queries = value.get("follow_up_queries")
        head = (f"format: drift ({'primer' if 'intermediate_answer' in value else 'local'}); score {value.get('score')!s}; "
                f"{len(queries) if isinstance(queries, list) else 0} follow-up quer(ies)")
        body = [f"  answer: {str(text)[:100]}"] if text else []
    else:
        value = answer if isinstance(answer, dict) else {}
        head = f"format: rate; rating {value.get('rating')!s}"
        body = [f"  reason: {str(value.get('reason'))[:100]}"] if "reason" in value else []
    lines = [f"{head}; {len(checked.issues)} issue(s)", *body]
    for issue in checked.issues:
        lines.append(f"  {issue.code}: {issue.message}" + (f"  [{issue.excerpt[:80]!r}]" if issue.excerpt else ""))
    return lines


@app.command("score")
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
    from .formats.answer import parse
    from .scoring import rate_text, score_case, score_to_json

    _check_format(format)
    if gold is None and text is None:
        raise InputError("give --text CHUNK.txt (the chunk the output was extracted from), --gold GOLD.yaml, or both")
    if pred == "-" and text == "-":
        raise InputError("--pred and --text cannot both read standard input")
    types = _entity_type_list(entity_types)
    case = matching = None
    if gold is not None:
        from .suites import load_gold_case

        case, matching = load_gold_case(gold)
    chunk = _read_input(text) if text is not None else case.text  # type: ignore[union-attr]
    example_text = _example_text(examples, format, types) if examples is not None else None
    result = parse(_read_input(pred), format)
    figures = _reference_free_of(result, chunk, types, matching, example_text)
    score = score_case(case, result.graph, matching) if case is not None else None
    if json_out:
        from .parsing.parse_result_json import parse_summary
        from .scoring import reference_free_to_json

        _emit_json({**(score_to_json(score) if score is not None else {}), "reference_free": reference_free_to_json(figures),
                    "parse": parse_summary(result)})
        return
    from .parsing.parse_result_json import parse_problem_line

    problem = parse_problem_line(result)  # first: a 0 below may mean "nothing was read"
    if problem is not None:
        typer.echo(problem)
    if score is not None:
        ent, rel = score.entities, score.relationships
        typer.echo(f"entities:      P {rate_text(ent.precision)}  R {rate_text(ent.recall)}  F1 {rate_text(ent.f1)}  "
                   f"({ent.tp} of {ent.gold} gold, {ent.pred} predicted; {ent.exact} exact, {ent.fuzzy} fuzzy)")
        typer.echo(f"relationships: P {rate_text(rel.precision)}  R {rate_text(rel.recall)}  F1 {rate_text(rel.f1)}  "
                   f"({rel.tp} of {rel.gold} gold, {rel.pred} predicted; endpoints only)")
        typed = score.typed
        if typed is not None:  # typed gold: the predicate must match too
            typer.echo(f"  typed:       P {rate_text(typed.precision)}  R {rate_text(typed.recall)}  "
                       f"F1 {rate_text(typed.f1)}  ({typed.tp} of {typed.gold} gold, {typed.pred} predicted; "
                       "endpoints and predicate)")
        if ent.missed:
            typer.echo("missed entities: " + ", ".join(ent.missed))
        if rel.missed:
            typer.echo("missed relationships: " + ", ".join(" — ".join(pair) for pair in rel.missed))
        if typed is not None and typed.missed:
            typer.echo("missed typed relationships: " + ", ".join(f"({s}, {p}, {o})" for s, p, o in typed.missed))
    for line in _reference_free_lines(figures):
        typer.echo(line)


@app.command("evaluate")
def evaluate_command(
    suite: Annotated[Path, typer.Argument(help="The suite whose cases the outputs answer.")],
    outputs: Annotated[Path, typer.Option("--outputs", help="JSONL: one {\"id\": CASE_ID, \"output\": TEXT} a line (or `response` for `output`), or {\"id\": CASE_ID, \"rounds\": [FIRST, CONTINUATION, ...]} for a conversation with gleaning.")],
    variant: Annotated[Optional[str], typer.Option("--variant", help="Name of the variant the outputs are (default: the file's name); a suite variant's name uses its prompt's format and examples.")] = None,
    format: Annotated[Optional[str], typer.Option("--format", help="Format the outputs are parsed in (default: the variant's, else auto).")] = None,
    conventions: Annotated[str, typer.Option("--conventions", help="harness (default), text2kgbench or webnlg: also score exactly as Text2KGBench's run_eval.py or the WebNLG+ 2020 text-to-RDF scorer (docs/benchmarks.md).")] = "harness",
    examples: Annotated[Optional[str], typer.Option("--examples", help="The prompt the outputs answered (file or builtin:<name>): example leaks and copies are read against its text, type conformance against its entity types (default: the suite variant's prompt when --variant names one; else n/a).")] = None,
    reports: ReportsOpt = Path("reports"),
    run_id: RunIdOpt = None,
    gate: GateOpt = False,
    baseline: BaselineOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Score answers another pipeline produced (no model, no cassettes) into a normal run folder."""
    from .evaluate import evaluate_outputs
    from .reports.console import print_run_table
    from .suites import load_suite

    if run_id is not None:
        check_name(run_id, "--run-id", "run id")
    loaded = load_suite(suite)
    result = evaluate_outputs(loaded, outputs, variant=variant, fmt=format, conventions=conventions,
                              reports_dir=reports, run_id=run_id, baseline=baseline, examples=examples)
    for note in result.notes:
        typer.echo(f"harness: note: {note}", err=True)
    if json_out:
        _emit_json(result.to_json())
    else:
        print_run_table(result.finished.summary, result.finished.run_dir, result.finished.verdict)
        if result.conventions != "harness":
            from .scoring import rate_text

            typer.echo(f"{result.conventions} conventions, {result.cases} sentences: " + "  ".join(
                f"{name} {rate_text(value)}" for name, value in result.metrics.items()))
    if gate:
        raise typer.Exit(result.finished.gate_exit_code())


def _entity_type_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    types = [t.strip() for t in value.split(",") if t.strip()]
    if not types:
        raise InputError("--entity-types: give the types comma-separated, e.g. person,organization,geo")
    return types


def _example_text(prompt: str, fmt: str, types: list[str] | None) -> str:
    """The prompt's text with an empty chunk, filled as a run fills it: its own delimiters (else the
    format's), its entity types (else --entity-types, else the defaults), its language (else English)."""
    from .formats import AUTO, DEFAULT_FORMAT, get_format
    from .formats.base import DELIMITER_KEYS, resolve_delimiters
    from .prompts.entity_types import effective_entity_types
    from .prompts.leakage import prompt_without_chunk
    from .prompts.loading import load_prompt

    template = load_prompt(Path(prompt))
    output_format = get_format(template.format or DEFAULT_FORMAT if fmt == AUTO else fmt)
    delimiters = resolve_delimiters(output_format, {key: getattr(template.meta, key) for key in DELIMITER_KEYS})
    filled_types = effective_entity_types(template, variant=types, suite=None).values
    return prompt_without_chunk(template, {
        "entity_types": ",".join(filled_types),
        **delimiters.as_variables(),
        "language": template.meta.language or "English",
    })


def _reference_free_of(result, chunk: str, types: list[str] | None, matching, example_text: str | None):
    from .formats import DEFAULT_FORMAT, format_names, get_format
    from .scoring.reference_free import reference_free

    # the scale the format's prompt asks for, as in runs (GraphRAG 1..10; LightRAG none)
    fmt = get_format(result.format if result.format in format_names() else DEFAULT_FORMAT)
    return reference_free(
        result.graph, chunk, entity_types=types,
        type_synonyms=matching.type_synonyms if matching is not None else None,
        examples=example_text,
        strength_scale=fmt.strength_scale,
        descriptions=fmt.writes_descriptions,
        types_optional=fmt.types_optional,
    )


def _reference_free_lines(rf) -> list[str]:
    """The plain-text block of `harness score`: one figure family a line."""
    from .scoring import rate_text

    def count(n: int | None, word: str) -> str:
        return f"{word}s n/a" if n is None else f"{n} {word}{'' if n == 1 else 's'}"

    lines = [f"reference-free: {rf.entities} {'entity' if rf.entities == 1 else 'entities'}, "
             f"{rf.grounded} grounded in the chunk; {count(rf.relationships, 'relationship')}"]
    if rf.ungrounded:
        lines.append("  ungrounded: " + ", ".join(rf.ungrounded))
    lines.append(f"  type conformance {rate_text(rf.type_conformance)}"
                 + (" (no --entity-types)" if rf.type_conformance is None and rf.conforming_records is None else "")
                 + f"; {count(rf.duplicate_records, 'duplicate record')}, {count(rf.type_conflicts, 'type conflict')}")
    lines.append(f"  {rf.dangling} dangling, {count(rf.self_loops, 'self-loop')}, "
                 f"{count(rf.empty_descriptions, 'empty description')}, "
                 f"{count(rf.strengths_out_of_scale, 'strength')} out of scale")
    if rf.example_leaks is None:
        lines.append("  example leaks: n/a (no --examples)")
    else:
        lines.append(f"  example leaks: {rf.example_leaks}"
                     + (f" ({', '.join(rf.example_leak_names)})" if rf.example_leak_names else ""))
    if rf.type_word_names:  # a finding only when there is one: no line for 0 or n/a
        lines.append(f"  names that are type words (name and type swapped): {rf.type_word_names} "
                     f"({', '.join(rf.type_word_names_found)})")
    if rf.example_relationships:
        lines.append(f"  {count(rf.example_relationships, 'relationship')} with an endpoint from the examples "
                     f"({', '.join(rf.example_endpoint_names)})")
    if rf.example_descriptions:
        lines.append(f"  {count(rf.example_descriptions, 'description')} copied from the prompt's text")
    if rf.ungrounded_endpoints:
        lines.append(f"  {count(rf.ungrounded_endpoints, 'relationship')} with an endpoint not in the chunk")
    return lines


@app.command("citations")
def citations_command(
    source: Annotated[str, typer.Argument(help="Community report, global-search map answer ({\"points\": [...]}: the citations inside each point's description) or query answer (file or -).")],
    context: Annotated[Optional[Path], typer.Option("--context", help="JSON: {dataset: [ids]} or a list of ids the answer may cite.")] = None,
    datasets: Annotated[Optional[list[str]], typer.Option("--dataset", help="Allowed dataset names (repeatable; default Entities, Relationships, Claims, Reports, Sources).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Check [Data: ...] citations: at most five ids then +more, known datasets, ids in context."""
    from .checks import check_citations
    from .checks.citations import DEFAULT_DATASETS

    from .inputfiles import parse_json

    context_ids = None
    if context is not None:
        context_ids = parse_json(_read_input(str(context)), str(context))
    result = check_citations(_read_input(source), tuple(datasets) if datasets else DEFAULT_DATASETS, context_ids)
    if json_out:
        _emit_json(result.to_json())
    else:
        read_as = {"report": "a community report", "map": "a global-search map answer", "text": "a query answer"}[result.mode]
        typer.echo(f"{len(result.citations)} citation(s), {len(result.issues)} issue(s); read as {read_as}")
        for issue in result.issues:
            typer.echo(f"  {issue.code}: {issue.message}" + (f"  [{issue.excerpt[:80]!r}]" if issue.excerpt else ""))
    raise typer.Exit(0 if result.ok else 1)


@app.command("audit-cache")
def audit_cache_command(
    folder: Annotated[Path, typer.Argument(help="A GraphRAG cache folder (0.x to 3.x) or a LightRAG kv_store_llm_response_cache.json (or a folder holding them).")],
    engine: Annotated[Optional[str], typer.Option("--engine", help="Force the engine and version instead of reading it from the layout: graphrag-0.x, graphrag-1.x, graphrag-2.x, graphrag-3.x or lightrag.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON row per entry (JSON lines), then one line of totals.")] = False,
) -> None:
    """Classify every cached call by kind, read it with its kind's parser, and show what the engine's own parser kept and lost."""
    from .cache_audit import ENGINES, audit_cache
    from .cache_audit.totals import render

    if engine is not None and engine not in ENGINES:
        raise InputError(f"--engine: '{engine}' is not one of {', '.join(ENGINES)}")
    if not folder.exists():
        raise InputError(f"{folder}: not found")
    result = audit_cache(folder, engine=engine)
    if not result.rows and not result.skipped.empty_stores:
        skipped = result.skipped.line()
        raise InputError(f"{folder}: no cache entry here" + (f" ({skipped})" if skipped else ""))
    if json_out:
        for row in result.rows:
            sys.stdout.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
        sys.stdout.write(json.dumps({"totals": result.totals.to_json(), "skipped": dict(result.skipped.reasons),
                                     "empty_stores": result.skipped.empty_stores, "notes": result.notes},
                                    ensure_ascii=False) + "\n")
        return
    for line in render(result.rows, result.totals, result.skipped.line(), str(folder), result.notes,
                       result.skipped.empty_stores):
        typer.echo(line)


def _load_run_rows(path: Path) -> tuple[list, str]:
    from .runfolder import RESULTS, read_results

    results = path / RESULTS if path.is_dir() else path
    if not results.exists():
        raise InputError(f"{path}: no {RESULTS} here (give a run folder or a results file)")
    rows = read_results(results)
    if not rows:
        raise InputError(f"{results}: no result rows")
    return rows, str(path)


@app.command("compare")
def compare_command(
    run_a: Annotated[Path, typer.Argument(help="Baseline run folder (or its results.jsonl).")],
    run_b: Annotated[Path, typer.Argument(help="Run folder to compare against it.")],
    variant_a: Annotated[Optional[str], typer.Option("--variant-a", help="Variant of RUN_A (default: each variant both runs have).")] = None,
    variant_b: Annotated[Optional[str], typer.Option("--variant-b", help="Variant of RUN_B (default: same as --variant-a).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Compare two runs case by case: deltas with 95% paired bootstrap intervals, per-case diffs."""
    from .compare import compare

    rows_a, _ = _load_run_rows(run_a)
    rows_b, _ = _load_run_rows(run_b)
    names_a = list(dict.fromkeys(r.variant for r in rows_a))
    names_b = list(dict.fromkeys(r.variant for r in rows_b))
    if variant_a or variant_b:
        pairs = [(variant_a or variant_b, variant_b or variant_a)]
    else:
        pairs = [(n, n) for n in names_a if n in names_b]
    if not pairs:
        raise InputError(f"{run_a} and {run_b} share no variant; name them with --variant-a/--variant-b")
    output = {}
    for va, vb in pairs:
        if va not in names_a:
            raise InputError(f"{run_a}: no variant '{va}' (have {', '.join(names_a)})")
        if vb not in names_b:
            raise InputError(f"{run_b}: no variant '{vb}' (have {', '.join(names_b)})")
        comparison = compare([r for r in rows_a if r.variant == va], [r for r in rows_b if r.variant == vb],
                             label_a=f"{run_a}:{va}", label_b=f"{run_b}:{vb}")
        output[vb if va == vb else f"{va}..{vb}"] = comparison
    if json_out:
        _emit_json({"comparisons": {k: c.to_json() for k, c in output.items()}})
        return
    for key, comparison in output.items():
        alone = [f"{len(cases)} only in {label}" for cases, label in
                 ((comparison.only_in_a, comparison.label_a), (comparison.only_in_b, comparison.label_b)) if cases]
        typer.echo(f"{comparison.label_a} -> {comparison.label_b}  ({len(comparison.cases)} paired cases; "
                   + (f"{', '.join(alone)}: left out; " if alone else "") + "changes are B minus A)")
        spread = comparison.repeat_spread
        if spread is not None:  # both runs repeated (--repeat N): per metric, beyond the repeat spread or not
            typer.echo(f"  repeats: spread {spread.rule}")
        for name, delta in comparison.metrics.items():
            if delta.delta is None:
                continue
            verdict = spread.metrics[name].exceeds if spread is not None and name in spread.metrics else None
            beyond = "" if spread is None else "  spread: " + ("n/a" if verdict is None else
                                                              "exceeded" if verdict else "within")
            typer.echo(f"  {name:24s} {_compare_line(name, delta)}{beyond}")
        for case in comparison.worst_regressions(5):
            lost = ", ".join(case.newly_missed_entities) or "—"
            typer.echo(f"  regressed: {case.case_id} ({case.f1_changes_text()}); newly missed: {lost}")


def _compare_line(name: str, delta) -> str:
    """One metric of `harness compare`: macro a -> b in the metric's unit (a rate in %, a count per
    case), the change with its interval, p, whether it is real, and cases better/worse/same in the
    metric's direction (fewer dangling edges is better)."""
    from .metrics import get as get_metric

    spec = get_metric(name)
    assert spec is not None  # compare reports registered metrics only
    unit = " per case" if spec.is_count else ""
    real = "  real" if delta.significant else ""
    return (f"{spec.format(delta.macro_a):>7} -> {spec.format(delta.macro_b):>7}{unit}  "
            f"Δ {spec.format_change(delta.delta)} [{spec.format_change(delta.ci_low)}, "
            f"{spec.format_change(delta.ci_high)}]  p={delta.p_value:.3f}{real}  "
            f"better {delta.improved} · worse {delta.regressed} · same {delta.unchanged}")


cassettes_app = typer.Typer(help="Inspect recorded cassettes.", no_args_is_help=True)
app.add_typer(cassettes_app, name="cassettes")


def _default_suites(suites: list[Path] | None) -> list[Path]:
    if suites:
        return suites
    found = sorted(Path("suites").glob("*.yaml"))
    if not found:
        raise InputError("no suite given and no suites/*.yaml here")
    return found


@cassettes_app.command("audit")
def cassettes_audit(
    suites: Annotated[Optional[list[Path]], typer.Argument(help="Suites to audit (default: suites/*.yaml).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Credentials, orphaned cassettes, and per case cassettes missing, stale or holding unused recordings; exit 1 on any."""
    from .run.audit import audit_suites
    from .suites import load_suite

    loaded = [load_suite(p) for p in _default_suites(suites)]
    findings = audit_suites(loaded)
    if json_out:
        _emit_json({"findings": [f.to_json() for f in findings], "suites": [s.name for s in loaded]})
    else:
        for finding in findings:
            typer.echo(f"{finding.kind}: {finding.path}: {finding.detail}")
        typer.echo(f"{len(findings)} finding(s) in {len(loaded)} suite(s)")
    corrupt = [f for f in findings if f.kind == "corrupt"]
    if corrupt:  # a damaged cassette is bad input (exit 2), named on stderr after the full list
        more = f" (and {len(corrupt) - 1} more corrupt)" if len(corrupt) > 1 else ""
        raise InputError(corrupt[0].detail + more)
    raise typer.Exit(1 if findings else 0)


def _register_subcommands() -> None:
    """Command groups that live beside the stage they drive."""
    from .prompts.commands import import_app, prompts_app

    app.add_typer(prompts_app, name="prompts", help="Check and render prompt files.")
    app.add_typer(import_app, name="import", help="Turn GraphRAG or LightRAG projects, or benchmarks (Text2KGBench, DocRED), into suites.")


from .reports.commands import register as _register_report_commands  # noqa: E402

_register_report_commands(app)  # gate, baseline update, merge, inspect, report
_register_subcommands()  # prompts, import


def _register_tune() -> None:
    from .tune.commands import tune_command

    app.command("tune")(tune_command)


_register_tune()


def _register_annotate() -> None:
    from .annotate.command import annotate_command

    app.command("annotate")(annotate_command)


_register_annotate()


def _register_export() -> None:
    from .export.command import export_command

    app.command("export")(export_command)


_register_export()


def _register_diff() -> None:
    from .graph_diff.command import diff_command

    app.command("diff")(diff_command)


_register_diff()


def _register_view() -> None:
    from .viewer.command import view_command

    app.command("view")(view_command)


_register_view()


@app.command("version")
def version() -> None:
    """Print the harness version."""
    typer.echo(__version__)


def _usage_error_line(exc: Exception) -> str:
    """A Typer/Click usage error as one line: the command, then the message without its box."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path.removeprefix("harness").strip() if ctx is not None else ""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    return f"harness: {command + ': ' if command else ''}{' '.join(message.split())}"


def _unknown_option_line(exc: Exception) -> str:
    """An option the command does not take, as our own line: the command, the option, and every
    option the command does take, in its declared order (Click's own text suggests only the
    close matches, which can leave out the options the user needs)."""
    ctx = getattr(exc, "ctx", None)
    name = getattr(exc, "option_name", "") or "?"
    if ctx is None:
        return f"harness: unknown option {name}"
    command = ctx.command_path.removeprefix("harness").strip()
    options: list[str] = []
    for param in ctx.command.get_params(ctx):
        if getattr(param, "param_type_name", "") == "option" and not getattr(param, "hidden", False):
            names = [*param.opts, *param.secondary_opts]
            longest = [n for n in names if n.startswith("--")] or names
            options.extend(n for n in longest if n not in options)
    where = f"{command}: " if command else ""
    return (f"harness: {where}unknown option {name}; "
            f"{'`harness ' + command + '`' if command else '`harness`'} takes {', '.join(options) or 'no option'}")


INTERRUPTED = 130  # the shell's code for a Ctrl-C; no harness command returns it otherwise


def main(argv: list[str] | None = None) -> int:
    """Entry point: every HarnessError becomes one line on stderr and its exit code.

    Usage errors (unknown option, bad value, missing argument) are one line too, exit 2: Typer
    runs in non-standalone mode so its boxed, multi-line error never prints. Whatever the command
    prints, these lines included, passes through the one redaction of known keys (scrubbed_output).
    """
    from .scrubbed_output import scrubbed_std_streams

    with scrubbed_std_streams():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, NoSuchOption, UsageError

    try:
        result = app(args=argv, prog_name="harness", standalone_mode=False)
    except NoArgsIsHelpError as exc:  # `harness` or `harness prompts` alone: the help, exit 2
        sys.stdout.write(exc.ctx.get_help() + "\n" if exc.ctx is not None else "")
        return 2
    except NoSuchOption as exc:
        sys.stderr.write(_unknown_option_line(exc) + "\n")
        return 2
    except UsageError as exc:
        sys.stderr.write(_usage_error_line(exc) + "\n")
        return 2
    except ClickException as exc:
        sys.stderr.write(f"harness: {' '.join(exc.format_message().split())}\n")
        return exc.exit_code if exc.exit_code in (0, 1, 2, 3, 4) else 2
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except HarnessError as exc:
        # one line even when the message quotes a path or value holding a newline
        message = exc.message.replace("\r", "\\r").replace("\n", "\\n")
        sys.stderr.write(f"harness: {message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("harness: interrupted; rerun the same command to resume\n")
        return INTERRUPTED
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A path the user gave that the system refuses (name too long, a loop of symlinks ...),
        # met by a probe such as Path.is_dir() outside the readers: bad input, one line.
        from .inputfiles import shown_path

        name = shown_path(exc.filename) if exc.filename is not None else "input"
        message = " ".join(f"{name}: {exc.strerror or exc}".split())
        sys.stderr.write(f"harness: {message}\n")
        return 2
    if result == INTERRUPTED:  # Typer catches KeyboardInterrupt itself and returns 130
        sys.stderr.write("harness: interrupted; rerun the same command to resume\n")
        return INTERRUPTED
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


if __name__ == "__main__":
    sys.exit(main())
