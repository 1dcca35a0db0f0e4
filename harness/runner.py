"""Suite x variants -> results: render, call (or replay), parse, score, append.

Results are appended to results.jsonl as each case finishes, so an interrupted run
loses nothing; a rerun resumes the newest unfinished run of the suite that was started with
the same variants and cases and that no other process is writing (see runfolder.py), and
recomputes only the rows whose request changed. When every case is done the file is rewritten in
suite order, so the same cassettes give the same bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import shlex
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path

from .artifacts import EntityTypesUsed
from .errors import CassetteMissingError, HarnessError, InputError, ModelCallError
from .formats import AUTO, DEFAULT_FORMAT, format_names, get_format
from .formats.base import DELIMITER_KEYS, resolve_delimiters
from .llm.cassette_store import replaying
from .llm.client import ModelClient, call_label
from .llm.engine_conversation import HARNESS, Conversation, conversation_for
from .llm.gleaning import extract_with_gleaning
from .llm.providers.base import EndpointSettings
from .llm.request_digest import request_hash
from .model import (
    CaseResult, CaseScore, ExtractedGraph, FormatIssue, FormatReport, GoldCase, MatchingConfig, RecoveredResult,
    ReferenceFreeScores, Round, Usage,
)
from .parsing import parse
from .prompts.entity_types import EffectiveTypes, variant_entity_types
from .prompts.resolve import load_variant_prompt
from .prompts.leakage import chunk_in_prompt, fold, prompt_without_chunk
from .prompts.template import PromptMeta, PromptTemplate
from .runfolder import RESULTS, ResultsWriter, RunFolder, RunLock, new_run_id, open_run_folder, read_results, selection_of
from .scoring import score_case
from .scoring.engine_reading import read_as_engine
from .scoring.ontology import ontology_types
from .scoring.reference_free import reference_free
from .kinds.registry import DEFAULT_KIND, get_kind
from .kinds.spec import KindSpec, ScoreInput
from .suites import ModelSettings, Suite, VariantSpec


@dataclass
class VariantPlan:
    """Everything needed to render and parse one variant's calls."""

    name: str
    spec: VariantSpec
    template: PromptTemplate
    entity_types: list[str]
    language: str
    endpoint: EndpointSettings
    max_gleanings: int
    format: str
    delimiters: dict[str, str]  # tuple_delimiter, record_delimiter, completion_delimiter (variant_delimiters)
    types: EffectiveTypes | None = None  # where entity_types came from (docs/prompts.md)
    # the types type conformance checks against: the suite ontology's (`ontology_types`) when it
    # has one, else None and the prompt's `entity_types` (docs/scoring.md, "Ontology conformance")
    conformance_types: list[str] | None = None
    # the suite's kind (harness/kinds/): the variables its prompt is filled with and its scoring
    kind: KindSpec = field(default_factory=lambda: get_kind(DEFAULT_KIND))
    # how gleaning goes: the conversation of the engine version the suite names (`engine:`)
    conversation: Conversation = HARNESS
    _prompt_without_chunk: str | None = field(default=None, init=False, repr=False, compare=False)
    _folded_prompt_without_chunk: str | None = field(default=None, init=False, repr=False, compare=False)

    def variables(self, case: GoldCase) -> dict[str, str]:
        """What the prompt is filled with, as the engine fills it for the suite's kind: the case's
        and the variant's values, then the engine's defaults for what the template declares not."""
        engine = {k: v for k, v in self.kind.engine_defaults.items() if k not in self.template.defaults}
        filled = {**engine, **self.kind.variables(self, case)}
        if self.kind.builds_graph and self.conversation.strips_chunk:
            filled["input_text"] = self.conversation.chunk(filled["input_text"])
        return filled

    def render(self, case: GoldCase) -> list[dict[str, str]]:
        """The case's first request as the engine version the suite names sends it."""
        return self.conversation.send(self.template.render(self.variables(case), case=case.id))

    def examples_text(self, case: GoldCase) -> str:
        """The prompt as sent without the case's chunk: its instructions and few-shot examples
        (the same for every case: only the chunk differs, so it is rendered once)."""
        if self._prompt_without_chunk is None:
            self._prompt_without_chunk = prompt_without_chunk(self.template, self.variables(case))
        return self._prompt_without_chunk

    def prompt_contains_chunk(self, case: GoldCase) -> bool:
        """Whether the prompt, without the case's chunk, already holds a passage of it (few-shot examples)."""
        if self._folded_prompt_without_chunk is None:
            self._folded_prompt_without_chunk = fold(self.examples_text(case))
        return chunk_in_prompt(case.text, self._folded_prompt_without_chunk, folded=True)

    def reference_free(self, case: GoldCase, graph: ExtractedGraph, read_format: str,
                       matching: MatchingConfig, answers: list[int] | None = None) -> ReferenceFreeScores:
        """The case's reference-free figures as this variant's prompt asks: its effective type list
        (none: untyped; the suite ontology's types when it has one), the suite's type synonyms, its
        example text and the strength scale of the format its answer was read in (harness.formats,
        `strength_scale`). `answers`: the call index of each answer (extraction and gleaning, loop
        checks left out), so the gleaning yield counts an answer that added nothing."""
        fmt = get_format(read_format if read_format in format_names() else DEFAULT_FORMAT)
        return reference_free(
            graph, case.text,
            entity_types=self.conformance_types or [t for t in self.entity_types if t.strip()] or None,
            type_synonyms=matching.type_synonyms,
            examples=self.examples_text(case),
            strength_scale=fmt.strength_scale,
            descriptions=fmt.writes_descriptions,
            rounds=answers,
            types_optional=fmt.types_optional,
        )


def variant_delimiters(spec: VariantSpec, meta: PromptMeta, fmt: str) -> dict[str, str]:
    """Each delimiter as the variant sets it, else as the prompt declares it, else the format's
    default (harness.formats.base.resolve_delimiters: the one order, also lint's and the examples')."""
    output_format = get_format(DEFAULT_FORMAT if fmt == AUTO else fmt)
    layers = ({key: getattr(source, key) for key in DELIMITER_KEYS} for source in (spec, meta))
    return resolve_delimiters(output_format, *layers).as_variables()


def endpoint_settings(model: ModelSettings, *, model_name: str | None = None,
                      base_url: str | None = None) -> EndpointSettings:
    """How a suite's `model:` settings call the endpoint (runs and tuning alike): every
    setting of the same name, then the model name and base URL a variant or command line gives."""
    shared = {f.name: getattr(model, f.name) for f in fields(EndpointSettings) if f.name in type(model).model_fields}
    return EndpointSettings(**{**shared, "model": model_name or model.name, "base_url": base_url or model.base_url})


def plan_variant(suite: Suite, name: str) -> VariantPlan:
    spec = suite.spec.variants[name]
    model = suite.spec.model
    template = load_variant_prompt(suite, name)  # honours HARNESS_PROMPT_<VARIANT>, HARNESS_PROMPTS_DIR
    endpoint = endpoint_settings(model, model_name=spec.model)
    types = variant_entity_types(suite, name, template)
    kind = get_kind(suite.spec.kind)
    declared = template.meta.kind
    if declared is not None and declared not in kind.prompt_kinds:
        raise InputError(f"{suite.path}: variant '{name}': its prompt says `kind: {declared}`, "
                         f"which is no prompt for a {suite.spec.kind} suite ({', '.join(kind.prompt_kinds)})")
    conversation = conversation_for(suite.spec.engine)
    if conversation.engine is not None and conversation.gleaning_prompts == "engine":
        # GraphRAG's continue and loop prompts are constants of its code: a suite that names the
        # version sends that version's, whatever a template declares (docs/suites.md, `engine:`);
        # LightRAG's are PROMPTS entries, so its suites send the template's
        template = dataclasses.replace(
            template, continue_prompt=conversation.continue_prompt, loop_prompt=conversation.loop_prompt,
            user=conversation.as_sent(template.user),
            system=None if template.system is None else conversation.as_sent(template.system),
            history=[{**m, "content": conversation.as_sent(m["content"])} for m in template.history])
    # the variant's format, else the kind's (summaries, reports, claims), else the template's
    output_format = spec.format or kind.answer_format or template.format or DEFAULT_FORMAT
    return VariantPlan(
        name=name,
        spec=spec,
        template=template,
        entity_types=types.values,
        language=spec.language or suite.spec.language,
        endpoint=endpoint,
        # GraphRAG gleans extraction and claims only: a summary or a report is one call
        max_gleanings=_gleanings(model.max_gleanings, conversation) if kind.gleans else 0,
        format=output_format,
        delimiters=variant_delimiters(spec, template.meta, output_format),
        types=types,
        conformance_types=ontology_types(suite.spec.ontology) if suite.spec.ontology is not None else None,
        kind=kind,
        conversation=conversation,
    )


def _gleanings(asked: int, conversation: Conversation) -> int:
    """The gleanings the engine version makes when asked for `asked` (LightRAG 1.4.8+: one at most)."""
    return asked if conversation.max_gleanings is None else min(asked, conversation.max_gleanings)


def calls_hash(plan: VariantPlan, first_payload: dict, variables: dict[str, str], *,
               continue_prompt: str | None = None, loop_prompt: str | None = None) -> str:
    """Identifies the calls a case makes: the first request and how gleaning continues it.

    Parsing and scoring are recomputed from the stored rounds, so they are not part of it.
    The continue and loop prompts are rendered here unless the caller already has them.
    """
    calls = {
        "first": first_payload,
        "continue": plan.template.render_continue(variables) if continue_prompt is None else continue_prompt,
        "loop": plan.template.render_loop(variables) if loop_prompt is None else loop_prompt,
        "max_gleanings": plan.max_gleanings,
    }
    engine = plan.conversation.identity()  # None for the harness's own: hashes as before
    if engine is not None:
        calls["conversation"] = engine
    return request_hash(calls)


@dataclass(frozen=True)
class CaseRequest:
    """One case of one variant, its first request rendered and built once: the runner and
    `harness cassettes audit` both send it with `converse`."""

    plan: VariantPlan
    case: GoldCase
    variables: dict[str, str]
    messages: list[dict[str, str]]
    payload: dict
    calls_digest: str  # results.jsonl's request_hash: the row is reused while it is unchanged
    sample: int = 0  # which repeat (`--repeat N`): every sample sends the same requests
    # rendered and hashed once with the rest (None: computed where needed): the first request's
    # hash (replay looks its answer up by it) and the gleaning prompts
    digest: str | None = None
    continue_prompt: str | None = None
    loop_prompt: str | None = None

    @property
    def label(self) -> str:
        sample = f"sample {self.sample} of " if self.sample else ""
        return f"{sample}case '{self.case.id}' of variant '{self.plan.name}'"

    def cassette_path(self, suite: Suite) -> Path:
        return cassette_path(suite, self.plan.name, self.case.id, self.sample)

    def for_sample(self, sample: int) -> CaseRequest:
        """The same request, as sample `sample` (its own cassette, its own row)."""
        return dataclasses.replace(self, sample=sample)


SAMPLE_FOLDER = "sample-{}"


def cassette_path(suite: Suite, variant: str, case_id: str, sample: int = 0) -> Path:
    """Where a case's cassette is: `<variant>/<case>.json` for sample 0 (the only one without
    `--repeat`), `<variant>/sample-<k>/<case>.json` for sample k >= 1. Case ids cannot hold '/',
    so a sample's folder never collides with a case's file."""
    folder = suite.cassette_dir() / variant
    if sample:
        folder = folder / SAMPLE_FOLDER.format(sample)
    return folder / f"{case_id}.json"


def case_request(plan: VariantPlan, client: ModelClient, case: GoldCase) -> CaseRequest:
    """The case's requests, rendered and hashed here once (`plan.render` is this render)."""
    variables = plan.variables(case)
    conversation = plan.conversation
    messages = conversation.send(plan.template.render(variables, case=case.id))
    payload = client.payload(messages)
    continue_prompt = plan.template.render_continue(variables)
    loop_prompt = plan.template.render_loop(variables)
    if conversation.sent is not None:  # LightRAG 1.4.8+ sanitizes every text it sends
        continue_prompt, loop_prompt = conversation.sent(continue_prompt), conversation.sent(loop_prompt)
    digest = calls_hash(plan, payload, variables, continue_prompt=continue_prompt, loop_prompt=loop_prompt)
    return CaseRequest(plan, case, variables, messages, payload, digest, digest=request_hash(payload),
                       continue_prompt=continue_prompt, loop_prompt=loop_prompt)


async def converse(client: ModelClient, request: CaseRequest) -> list[Round]:
    """Every call of the case (the first request, then gleaning), in order."""
    plan = request.plan
    with call_label(request.label):
        return await extract_with_gleaning(client, request.messages, plan.template, plan.max_gleanings,
                                           request.variables, first_payload=request.payload,
                                           first_digest=request.digest, continue_prompt=request.continue_prompt,
                                           loop_prompt=request.loop_prompt, conversation=plan.conversation)


def clients_for(plans: dict[str, VariantPlan], *, replay: bool) -> dict[str, ModelClient]:
    """A client per variant, shared by variants calling the same endpoint so that its adaptive
    limit covers every call to it."""
    shared: dict[tuple, ModelClient] = {}
    by_variant: dict[str, ModelClient] = {}
    for name, plan in plans.items():
        endpoint = plan.endpoint
        key = (endpoint.provider, endpoint.base_url, endpoint.base_url_env, endpoint.api_key_env, endpoint.concurrency)
        if key not in shared:
            shared[key] = ModelClient(endpoint, replay=replay)
        by_variant[name] = shared[key]
    return by_variant


# --------------------------------------------------------------------------- parsing one case


def merge_rounds(rounds: list[Round], plan: VariantPlan) -> tuple[ExtractedGraph, FormatReport, list[FormatReport]]:
    """Parse each extraction round on its own and combine them; loop checks are not parsed."""
    graph = ExtractedGraph()
    reports: list[FormatReport] = []
    for rnd in rounds:
        if rnd.kind == "loop":
            continue
        result = parse(
            rnd.output,
            plan.format,
            **plan.delimiters,
            round=rnd.index,
        )
        if rnd.finish_reason == "length":
            result.format_report.issues.append(truncated_issue(rnd))
        graph.entities.extend(result.graph.entities)
        graph.relationships.extend(result.graph.relationships)
        graph.claims.extend(result.graph.claims)
        graph.report = graph.report or result.graph.report
        reports.append(result.format_report)
    combined = FormatReport(
        format=reports[0].format if reports else plan.format,
        records_seen=sum(r.records_seen for r in reports),
        records_parsed=sum(r.records_parsed for r in reports),
        records_dropped=sum(r.records_dropped for r in reports),
        completion=_worst_completion(r.completion for r in reports),
        issues=[issue for r in reports for issue in r.issues],
    )
    return graph, combined, reports


def truncated_issue(rnd: Round) -> FormatIssue:
    """The finding for an answer the model stopped at its token limit: its own code, so a cut-off
    answer is told apart from one that merely forgot the completion delimiter."""
    return FormatIssue(code="truncated", round=rnd.index, excerpt=rnd.output[-80:],
                       message=f"answer {rnd.index} was cut off at the token limit (finish_reason length)")


def _worst_completion(statuses: Iterable[str]) -> str:
    statuses = list(statuses)
    for status in ("misplaced", "missing"):
        if status in statuses:
            return status
    return "present" if statuses else "missing"


def suite_citation_datasets(suite: Suite) -> list[str] | None:
    """The datasets a suite's answers may cite when the suite says (`citations: {datasets: ...}`);
    None: the suite kind's own (a graph community report cites Entities, Relationships, Claims and
    Reports, GraphRAG's graph context)."""
    return list(suite.spec.citations.datasets) if "citations" in suite.spec.model_fields_set else None


def _score(suite: Suite, plan: VariantPlan, case: GoldCase, rounds: list[Round], graph: ExtractedGraph,
           read_format: str) -> CaseScore:
    """The case's figures on one graph: gold, reference-free (extraction kinds) and the kind's own."""
    extraction = plan.kind.extraction_figures
    score = score_case(case, graph, suite.spec.matching, suite.spec.ontology if extraction else None)
    if extraction:  # other kinds' answers hold no graph: grounding, types, leaks... are n/a, not 0
        score.reference_free = plan.reference_free(case, graph, read_format, suite.spec.matching,
                                                   answers=[rnd.index for rnd in rounds if rnd.kind != "loop"])
    return plan.kind.score(ScoreInput(case=case, graph=graph, rounds=rounds, matching=suite.spec.matching,
                                      ontology=suite.spec.ontology, language=plan.language,
                                      datasets=suite_citation_datasets(suite), examples=plan.examples_text(case)),
                           score)


def evaluate_case(suite: Suite, plan: VariantPlan, case: GoldCase, rounds: list[Round], digest: str,
                  sample: int = 0) -> CaseResult:
    """One case scored. A graph-building suite that names its engine (`engine:`) is scored on the
    graph that engine's parser would keep; the harness's own graph is scored too, as `recovered`."""
    graph, combined, per_round = merge_rounds(rounds, plan)
    usage = Usage()
    for rnd in rounds:
        usage = usage + rnd.usage
    engine, recovered = None, None
    if suite.spec.engine and plan.kind.extraction_figures:
        view = read_as_engine(suite.spec.engine, rounds, graph, plan.delimiters, plan.format)
        engine = view.read
        recovered = RecoveredResult(graph=graph, score=_score(suite, plan, case, rounds, graph, combined.format))
        graph = view.graph
    return CaseResult(
        engine=engine,
        recovered=recovered,
        suite=suite.name,
        variant=plan.name,
        case_id=case.id,
        request_hash=digest,
        rounds=rounds,
        graph=graph,
        format_report=combined,
        round_reports=per_round,
        score=_score(suite, plan, case, rounds, graph, combined.format),
        in_prompt_examples=plan.prompt_contains_chunk(case),
        usage=usage,
        latency_s=sum(r.latency_s for r in rounds),
        sample=sample,
    )


# --------------------------------------------------------------------------- the run


@dataclass
class RunOptions:
    record_mode: str = "none"
    reports_dir: Path = Path("reports")
    run_id: str | None = None
    fresh: bool = False
    variants: list[str] | None = None
    cases: list[str] | None = None
    concurrency: int | None = None
    base_url: str | None = None
    progress: bool = False
    # (i, n), 1-based: keep only the cases at positions i-1, i-1+n, i-1+2n, ... of the selected cases
    # (suite order, after --case); every variant runs on its shard's cases. `harness merge` joins shards.
    shard: tuple[int, int] | None = None
    # keep the run folder locked after the rows are written, until the caller has written the
    # outputs (summary.json marks the run finished) and calls `outcome.release()`: no other
    # process resumes a run in between. Otherwise the lock ends with the rows.
    hold_lock: bool = False
    # samples per case and variant (`--repeat N`): the same requests N times, sample k answered
    # by (or recorded into) its own cassette; 1 is a run without repeats
    repeat: int = 1
    # worker processes replaying cases (record mode none only; harness.parallel_replay): None
    # chooses (HARNESS_WORKERS, else every usable CPU for a large run), 0 or 1 replays in this process
    workers: int | None = None


@dataclass
class RunOutcome:
    # repr=False: asyncio formats the result of a finished task, and these hold every row
    suite: Suite = field(repr=False)
    run_dir: Path
    results: list[CaseResult] = field(repr=False)
    resumed: int = 0
    missing: list[tuple[str, str, str]] = field(default_factory=list)  # (variant, case, "missing"|"stale")
    # the same for samples 1 .. N-1 of `--repeat N`: (variant, case, "missing"|"stale", sample)
    missing_repeats: list[tuple[str, str, str, int]] = field(default_factory=list)
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (variant, case, message)
    wall_s: float = 0.0
    calls: int = 0
    retries: int = 0
    notes: list[str] = field(default_factory=list)  # for the user: e.g. an unfinished run not resumed, and why
    recorded: int = 0  # cases whose cassette took answers sent to the endpoint during this run
    lock: RunLock | None = field(default=None, repr=False)  # held with RunOptions.hold_lock
    # the entity types each variant's prompt was filled with, as planned (summary.json reports them)
    entity_types: dict[str, EntityTypesUsed] = field(default_factory=dict)

    def release(self) -> None:
        """Let other processes resume or rewrite this run folder."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def _selected(suite: Suite, options: RunOptions) -> tuple[list[str], list[GoldCase]]:
    variants = suite.variant_names()
    if options.variants:
        unknown = [v for v in options.variants if v not in variants]
        if unknown:
            raise InputError(f"{suite.path}: no variant named {', '.join(unknown)} (have {', '.join(variants)})")
        variants = [v for v in variants if v in options.variants]
    cases = suite.cases
    if options.cases:
        ids = {c.id for c in cases}
        unknown = [c for c in options.cases if c not in ids]
        if unknown:
            raise InputError(f"{suite.path}: no case named {', '.join(unknown)}")
        cases = [c for c in cases if c.id in options.cases]
    if options.shard is not None:
        index, count = options.shard
        if not (count >= 1 and 1 <= index <= count):
            raise InputError(f"--shard: '{index}/{count}' must be i/n with 1 <= i <= n")
        cases = [c for position, c in enumerate(cases) if position % count == index - 1]
    return variants, cases


async def run_suite_async(suite: Suite, options: RunOptions) -> RunOutcome:
    started = time.perf_counter()
    if options.repeat < 1:
        raise InputError(f"--repeat: {options.repeat} must be at least 1")
    variants, cases = _selected(suite, options)
    plans = {name: plan_variant(suite, name) for name in variants}
    if options.progress:  # the run header (stdout: stderr is kept for the one-line errors)
        for name, plan in plans.items():
            if not plan.kind.extraction_figures:
                continue  # entity types fill no summary or report prompt
            types = plan.types.describe() if plan.types else ", ".join(plan.entity_types)
            sys.stdout.write(f"{suite.name}/{name}: entity types {types}\n")
    folder = open_run_folder(options.reports_dir, suite.name, selection_of(variants, [c.id for c in cases]),
                             run_id=options.run_id, fresh=options.fresh, project=suite.root)
    try:
        outcome = await _run_in(folder, suite, options, variants, cases, plans, started)
    except BaseException:
        folder.lock.release()  # the OS drops it too if the process is killed
        raise
    if options.hold_lock:
        outcome.lock = folder.lock
    else:
        folder.lock.release()
    return outcome


async def _run_in(folder: RunFolder, suite: Suite, options: RunOptions, variants: list[str], cases: list[GoldCase],
                  plans: dict[str, VariantPlan], started: float) -> RunOutcome:
    for plan in plans.values():
        if options.base_url:
            plan.endpoint.base_url = options.base_url
        if options.concurrency:
            plan.endpoint.concurrency = options.concurrency
    replay = options.record_mode == "none"
    client_of = clients_for(plans, replay=replay)
    clients = list({id(c): c for c in client_of.values()}.values())

    run_dir = folder.path
    results_path = run_dir / RESULTS
    previous = {(r.variant, r.case_id, r.sample): r for r in read_results(results_path)} if folder.reuse else {}

    outcome = RunOutcome(suite=suite, run_dir=run_dir, results=[], notes=list(folder.notes),
                         entity_types={name: EntityTypesUsed.model_validate(plan.types.to_json())
                                       for name, plan in plans.items() if plan.types is not None})
    # every row at its place in suite order (variant, then case, then sample): place =
    # (index of the (variant, case) pair) * repeat + sample
    # the (variant, case) pairs of the run: a variant with a `cases:` list runs only those
    pairs = suite.pairs(variants, cases)
    rows: list[CaseResult | None] = [None] * (len(pairs) * options.repeat)
    workers = 0
    if replay:
        from .parallel_replay import worker_count

        workers = worker_count(options.workers, len(rows))
    if workers:
        writer = await _replay_in_pool(suite, options, pairs, plans, client_of, clients, previous,
                                       folder, outcome, rows, workers)
    else:
        writer = await _run_here(suite, options, pairs, plans, client_of, clients, previous,
                                 results_path, outcome, rows, replay)
    writer.finish()  # suite order
    outcome.results = [row for row in rows if row is not None]
    outcome.wall_s = time.perf_counter() - started
    return outcome


def _kept_rows(pairs: list[tuple[str, GoldCase]], plans: dict[str, VariantPlan],
               client_of: dict[str, ModelClient], previous: dict[tuple[str, str, int], CaseResult], repeat: int,
               *, every_request: bool) -> Iterable[tuple[int, CaseRequest | None, bool]]:
    """(place, request, kept) for every place in suite order: `kept` when the interrupted run's
    row made the same calls without an error (its rounds are parsed and scored again, in case gold
    or parser changed). The request is built where it is needed: always with `every_request`,
    else only for a case with a row to compare."""
    place = 0
    for name, case in pairs:
        plan = plans[name]
        olds = [previous.get((name, case.id, sample)) for sample in range(repeat)]
        first = (case_request(plan, client_of[name], case)
                 if every_request or any(old is not None for old in olds) else None)
        for sample, old in enumerate(olds):  # finished samples of an interrupted run are kept
            request = first if first is None or sample == 0 else first.for_sample(sample)
            kept = (old is not None and request is not None and old.request_hash == request.calls_digest
                    and old.error is None)
            yield place, request, kept
            place += 1


def _not_settled(outcome: RunOutcome, variant: str, case_id: str, sample: int, status: str, message: str = "") -> None:
    """A case without a row: its cassette missing or stale, or its calls failing."""
    if status == "failed":
        where = f"sample {sample}: " if sample else ""
        outcome.failures.append((variant, case_id, where + message))
    elif sample:
        outcome.missing_repeats.append((variant, case_id, status, sample))
    else:
        outcome.missing.append((variant, case_id, status))


async def _run_here(suite: Suite, options: RunOptions, pairs: list[tuple[str, GoldCase]],
                    plans: dict[str, VariantPlan], client_of: dict[str, ModelClient], clients: list[ModelClient],
                    previous: dict[tuple[str, str, int], CaseResult], results_path: Path, outcome: RunOutcome,
                    rows: list[CaseResult | None], replay: bool) -> ResultsWriter:
    """Every case in this process: calls in flight concurrently (recording), one after the
    other (replay, whose calls never wait)."""
    kept: list[tuple[int, str]] = []
    todo: list[tuple[int, CaseRequest]] = []
    for place, request, reuse in _kept_rows(pairs, plans, client_of, previous, options.repeat,
                                            every_request=True):
        assert request is not None
        if reuse:
            old = previous[(request.plan.name, request.case.id, request.sample)]
            row = evaluate_case(suite, request.plan, request.case, old.rounds, request.calls_digest, request.sample)
            rows[place] = row
            kept.append((place, row.model_dump_json()))
            outcome.resumed += 1
        else:
            todo.append((place, request))
    # keep what is still valid, in a fresh file, before appending new rows
    writer = ResultsWriter(results_path, kept)
    del kept

    queue: asyncio.Queue[tuple[int, CaseRequest]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    progress = _Progress(len(todo), enabled=options.progress)

    with contextlib.ExitStack() as stack:
        stack.callback(writer.close)
        router = None
        if replay:  # answers come from the cassette store: nothing is sent, nothing patched
            cassette_for = replaying
        else:  # the SDK sends, and vcrpy records into the case's cassette
            from .llm.cassettes import CassetteRouter

            router = stack.enter_context(CassetteRouter(options.record_mode, roots=(suite.root,)).patched())
            cassette_for = functools.partial(router.case, save=False)  # saved below, in a thread

        async def worker() -> None:
            while True:
                try:
                    place, request = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                plan, case = request.plan, request.case
                path = request.cassette_path(suite)
                existed = path.exists()
                try:
                    with cassette_for(path) as cassette:
                        rounds = await converse(client_of[plan.name], request)
                    if router is not None:
                        if getattr(cassette, "dirty", False):  # new exchanges, answered live
                            outcome.recorded += 1
                        # serialising and writing the cassette is CPU and disk work: off the
                        # event loop, so the other cases' calls go on meanwhile; the row is
                        # written after it, so a resumed run never trusts an unwritten cassette
                        await asyncio.to_thread(router.save_case, cassette)
                except CassetteMissingError:
                    _not_settled(outcome, plan.name, case.id, request.sample, "stale" if existed else "missing")
                    progress.step()
                    continue
                except ModelCallError as exc:
                    _not_settled(outcome, plan.name, case.id, request.sample, "failed", exc.message)
                    progress.step()
                    continue
                row = evaluate_case(suite, plan, case, rounds, request.calls_digest, request.sample)
                rows[place] = row
                writer.append(place, row.model_dump_json())
                progress.step()

        width = max(1, min(len(todo), 2 * max(c.limiter.maximum for c in clients)))
        try:
            await asyncio.gather(*(worker() for _ in range(width)))
        finally:
            await _close_clients(outcome, clients)
            progress.close()
    return writer


async def _close_clients(outcome: RunOutcome, clients: list[ModelClient]) -> None:
    for client in clients:
        outcome.calls += client.calls
        outcome.retries += client.retries
        await client.close()


async def _replay_in_pool(suite: Suite, options: RunOptions, pairs: list[tuple[str, GoldCase]],
                          plans: dict[str, VariantPlan], client_of: dict[str, ModelClient],
                          clients: list[ModelClient], previous: dict[tuple[str, str, int], CaseResult],
                          folder: RunFolder, outcome: RunOutcome, rows: list[CaseResult | None],
                          workers: int) -> ResultsWriter:
    """Every case replayed by forked workers (harness.parallel_replay), as `_run_here` would:
    the same rows, the same file, the same missing cassettes and failures, in suite order."""
    from .parallel_replay import ROW, ReplayJob, ReplayPool, RunnerSteps, batches

    rescore: list[tuple[int, str | None]] = []
    todo: list[tuple[int, str | None]] = []
    for place, request, reuse in _kept_rows(pairs, plans, client_of, previous, options.repeat,
                                            every_request=False):
        if reuse:
            assert request is not None
            rescore.append((place, request.calls_digest))
        else:
            todo.append((place, None))
    outcome.resumed = len(rescore)
    progress_total = len(todo)
    # settled before the fork, to warm what every worker would otherwise build for itself
    first = (False, todo.pop(0)) if todo else (True, rescore.pop(0)) if rescore else None
    job = ReplayJob(suite=suite, steps=RunnerSteps(case_request, converse, evaluate_case), plans=plans,
                    pairs=pairs, repeat=options.repeat, client_of=client_of, clients=clients,
                    previous=previous, lock=folder.lock)
    unsettled: list[tuple[int, str, str]] = []  # put in suite order below, as _run_here finds them
    with ReplayPool(job, workers, first) as pool:  # forks now: before the progress bar's thread starts
        progress = _Progress(progress_total, enabled=options.progress)
        try:
            kept: list[tuple[int, str]] = []
            async for settled in pool.settle(True, batches(rescore, workers)):
                kept.extend((place, line) for place, _, line in settled)
            kept.sort()
            for place, line in kept:
                rows[place] = CaseResult.model_validate_json(line)
            # keep what is still valid, in a fresh file, before appending new rows
            writer = ResultsWriter(folder.path / RESULTS, kept)
            del kept
            with contextlib.closing(writer):
                async for settled in pool.settle(False, batches(todo, workers)):
                    for place, status, text in settled:
                        if status == ROW:
                            rows[place] = CaseResult.model_validate_json(text)
                            writer.append(place, text)
                        else:
                            unsettled.append((place, status, text))
                        progress.step()
        finally:
            await _close_clients(outcome, clients)
            progress.close()
    outcome.notes.extend(pool.notes)
    for place, status, text in sorted(unsettled):
        name, case, sample = job.where(place)
        _not_settled(outcome, name, case.id, sample, status, text)
    return writer


def run_suite(suite: Suite, options: RunOptions) -> RunOutcome:
    return asyncio.run(run_suite_async(suite, options))


def check_outcome(outcome: RunOutcome) -> None:
    """Turn missing cassettes and failed calls into the documented exit codes."""
    suite = outcome.suite
    if outcome.missing_repeats and not outcome.missing:
        order = {(v, c.id): i for i, (v, c) in enumerate((v, c) for v in suite.variant_names() for c in suite.cases)}
        repeats = sorted(outcome.missing_repeats, key=lambda m: (order.get((m[0], m[1]), len(order)), m[3]))
        variant, case, why, sample = repeats[0]
        more = f" (and {len(repeats) - 1} more)" if len(repeats) > 1 else ""
        needed = max(m[3] for m in repeats) + 1
        command = rerecord_command(suite, [(v, c, w) for v, c, w, _ in repeats], repeat=needed)
        raise CassetteMissingError(
            f"{suite.path}: cassette {why} for sample {sample} of case '{case}' of variant '{variant}'{more}; "
            f"record the samples with: {command}"
        )
    if outcome.missing:
        order = {(v, c.id): i for i, (v, c) in enumerate((v, c) for v in suite.variant_names() for c in suite.cases)}
        missing = sorted(outcome.missing, key=lambda m: order.get((m[0], m[1]), len(order)))
        variant, case, why = missing[0]
        # samples of --repeat missing too: the command records them with the rest
        repeat = max((m[3] for m in outcome.missing_repeats), default=0) + 1
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        verb = "re-record them" if len(missing) > 1 else "record it"
        raise CassetteMissingError(
            f"{suite.path}: cassette {why} for case '{case}' of variant '{variant}'{more}; "
            f"{verb} with: {rerecord_command(suite, missing, repeat=repeat)}"
        )
    if outcome.failures:
        variant, case, message = outcome.failures[0]
        more = f" (and {len(outcome.failures) - 1} more)" if len(outcome.failures) > 1 else ""
        raise ModelCallError(f"{suite.path}: case '{case}' of variant '{variant}': {message}{more}")


def case_order(suite: Suite) -> dict[str, int]:
    """Each case id's position in the suite (computed once by a caller that asks for many hints)."""
    return {case.id: i for i, case in enumerate(suite.cases)}


def rerecord_command(suite: Suite, missing: list[tuple[str, str, str]], *, repeat: int = 1,
                     order: dict[str, int] | None = None) -> str:
    """A shell command that records exactly these (variant, case, missing|stale) cassettes.

    `--variant` and `--case` select a grid, so variants that lack the same cases share one
    `harness record`; distinct groups are joined with `&&` rather than re-recording (and paying
    for) cases whose cassettes are fine. Stale cassettes need `rewrite`; missing ones `once`.
    The mode is always spelled out, since `record` defaults to `none` when CI is set.
    `repeat` > 1 asks for that many samples (`--repeat`). `order` is `case_order(suite)`, given by
    a caller that asks for one hint per cassette, so that each costs its own cassettes' work and
    not the whole suite's.
    """
    positions = case_order(suite) if order is None else order
    by_variant: dict[str, dict[str, None]] = {}
    whys: dict[str, set[str]] = {}
    for variant, case, why in missing:
        by_variant.setdefault(variant, {})[case] = None
        whys.setdefault(variant, set()).add(why)
    groups: dict[tuple[str, ...], list[str]] = {}
    modes: dict[tuple[str, ...], set[str]] = {}
    for variant in suite.variant_names():
        if variant not in by_variant:
            continue
        cases = tuple(sorted((c for c in by_variant[variant] if c in positions), key=positions.__getitem__))
        groups.setdefault(cases, []).append(variant)
        modes.setdefault(cases, set()).update(whys[variant])
    commands = []
    for cases, variants in groups.items():
        argv = ["harness", "record", str(suite.path)]
        for variant in variants:
            argv += ["--variant", variant]
        if len(cases) != len(positions):  # every case: no --case needed
            for case in cases:
                argv += ["--case", case]
        if repeat > 1:
            argv += ["--repeat", str(repeat)]
        argv += ["--record-mode", "rewrite" if "stale" in modes[cases] else "once"]
        commands.append(" ".join(shlex.quote(a) for a in argv))
    return " && ".join(commands)


class _Progress:
    """A progress bar on stderr for long interactive runs; silent otherwise."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._bar = None
        if enabled and total >= 20 and sys.stderr.isatty():
            from rich.progress import Progress

            self._bar = Progress(transient=True)
            self._bar.start()
            self._task = self._bar.add_task("cases", total=total)

    def step(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


__all__ = ["HarnessError", "new_run_id", "RunOptions", "RunOutcome", "run_suite", "check_outcome", "plan_variant"]
