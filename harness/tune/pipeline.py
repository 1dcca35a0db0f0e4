"""`harness tune`: sample chunks, ask the model, keep good examples, write linted templates.

Every call goes through the same client and cassettes as runs: one cassette per step
(`domain`, `language`, `persona`, `rating`, `entity_types`, `example-<chunk>`) in the tuning
cassette folder, so a tuning run replays offline byte for byte, and an interrupted one resumes
from the steps already recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CassetteMissingError, InputError, ModelCallError
from ..llm.cassette_store import replaying
from ..llm.client import EndpointSettings, ModelClient, SettingNames
from ..llm.pricing import estimate_cost, load_prices
from ..formats import get_format
from ..model import Usage
from ..atomicfile import atomic_write
from ..prompts.leakage import prompt_without_chunk
from ..prompts.lint import has_errors, lint_prompt
from ..prompts.yaml_template import load_yaml_text
from . import steps
from .assemble import (
    FORMAT_BASES,
    base_delimiters,
    builtin_doc,
    community_report_doc,
    dump,
    example_entity_names,
    extraction_doc,
    fit_examples,
    rendered_tokens,
    structured_example,
    summarize_doc,
)
from .examples import judge_example
from .report import RejectedExample, TuningReport, TuningUsage, TypeRecurrence, TypeStability, write_tuning_report
from .sampling import select

@dataclass
class TuneOptions:
    texts: list[str]
    names: list[str]  # a name per text (case id or file name), for cassettes and the report
    out: Path
    cassettes: Path
    endpoint: EndpointSettings = field(default_factory=lambda: EndpointSettings(model="gpt-4o-mini"))
    record_mode: str = "none"
    domain: str | None = None
    language: str | None = None
    persona: str | None = None  # given; otherwise asked for
    selection: str = "diverse"
    limit: int = 3
    max_tokens: int = 4000
    min_examples: int = 1
    entity_types: list[str] | None = None  # given; otherwise discovered
    format: str = "graphrag"  # a format with a tune_base (graphrag, lightrag, json): which built-in template is tuned
    seed: int = 42
    # type discovery asked this many times (`--repeat N`), the same request each time, sample k >= 1
    # in `sample-<k>/entity_types.json`: how often each type recurs; the prompt uses sample 0's
    repeat: int = 1
    # how a timeout's hint names the settings (harness tune's options); None: a suite's keys
    setting_names: SettingNames | None = None


@dataclass
class TuneResult:
    template_path: Path
    report_path: Path
    report: TuningReport
    paths: dict[str, Path] = field(default_factory=dict)


@dataclass(frozen=True)
class KeptExample:
    """A sampled chunk whose answer the judge kept: its structured example (rendered later in the
    delimiters of each run)."""

    chunk: str
    example: dict[str, Any]


def cassette_name(chunk_name: str, format: str = "graphrag", *, unique: bool = False) -> str:
    """`example-<chunk>.json` (`<format>-example-<chunk>.json` for the other formats): named by
    chunk and format, so another selection reuses what is recorded. `unique` adds a hash of the
    name, for names that only differ in characters a file name cannot hold."""
    prefix = "" if format == "graphrag" else f"{format}-"
    stem = re.sub(r"[^\w.-]+", "_", chunk_name).strip("._") or "chunk"
    if unique:
        stem += "-" + hashlib.sha256(chunk_name.encode("utf-8")).hexdigest()[:8]
    return f"{prefix}example-{stem}.json"


def cassette_names(names: list[str], format: str) -> dict[str, str]:
    plain = [cassette_name(n, format) for n in names]
    clashes = {c for c in plain if plain.count(c) > 1}
    return {n: cassette_name(n, format, unique=c in clashes) for n, c in zip(names, plain)}


async def _all(*awaitables: Any) -> list[Any]:
    """Await every step to the end, then raise the first failure: whatever finished is recorded,
    so a rerun after a failure (or an interruption) asks only for what is still missing."""
    results = await asyncio.gather(*awaitables, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


class _Session:
    """The tuning calls of one run: the client, the cassette router and what the calls used."""

    def __init__(self, options: TuneOptions) -> None:
        self.options = options
        self.replay = options.record_mode == "none"
        self.client = ModelClient(options.endpoint, replay=self.replay, setting_names=options.setting_names)
        self.usage: dict[str, Usage] = {}
        self._router: Any = None  # a vcrpy CassetteRouter, only when recording

    @contextlib.contextmanager
    def calls(self) -> Iterator[None]:
        """Replaying: answers come from the cassette store, nothing is sent or patched (as in runs);
        recording: the SDK sends and vcrpy records into each step's cassette."""
        if self.replay:
            yield
            return
        from ..llm.cassettes import CassetteRouter

        self._router = CassetteRouter(self.options.record_mode)
        with self._router.patched():
            yield

    def _cassette(self, path: Path) -> contextlib.AbstractContextManager[Any]:
        return replaying(path) if self.replay else self._router.case(path)

    async def ask(self, step: str, messages: list[dict[str, str]], **overrides: Any) -> str:
        path = self.options.cassettes / (step if step.endswith(".json") else f"{step}.json")
        existed = path.exists()
        try:
            with self._cassette(path):
                result = await self.client.chat(messages, **overrides)
        except CassetteMissingError:
            if existed:
                raise CassetteMissingError(
                    f"{path}: the tuning request changed since this step was recorded (other chunks, "
                    "options or model); re-record with --record-mode rewrite") from None
            raise CassetteMissingError(
                f"{path}: no recorded answer for this tuning step; record it with --record-mode once") from None
        self.usage[path.relative_to(self.options.cassettes).with_suffix("").as_posix()] = result.usage
        return result.text

    async def question(self, step: str, prompt: str, **overrides: Any) -> str:
        return await self.ask(step, [{"role": "user", "content": prompt}], **overrides)


async def _domain_and_language(session: _Session, texts: list[str], notes: list[str]) -> tuple[str, str]:
    options = session.options

    async def domain() -> str:
        if options.domain:
            return options.domain
        return steps.clean_line(await session.question("domain", steps.domain_prompt(texts)), "domain",
                                given=steps.samples_block(texts))

    async def language() -> str:
        if options.language:
            return options.language
        answer = await session.question("language", steps.language_prompt(texts), max_tokens=10)
        name, note = steps.clean_language(answer)
        if note:
            notes.append(f"language: {note}")
        return name

    found_domain, found_language = await _all(domain(), language())
    return found_domain, found_language


TYPE_SAMPLE_STEP = "sample-{}/entity_types"


async def _type_samples(session: _Session, prompt: str, notes: list[str], given: str) -> list[list[str] | None]:
    """Samples 1 .. N-1 of type discovery (`--repeat N`), each cleaned as sample 0 is; a sample
    whose answer holds no list of types is None, with a note (it does not stop the tuning)."""

    async def one(k: int) -> list[str] | None:
        answer = await session.question(TYPE_SAMPLE_STEP.format(k), prompt, response_format={"type": "json_object"})
        try:
            return steps.clean_entity_types(answer, given=given)[0]
        except ModelCallError as exc:
            notes.append(f"entity types, sample {k}: {exc.message}")
            return None

    return list(await _all(*(one(k) for k in range(1, session.options.repeat))))


async def _persona_and_types(session: _Session, domain: str, texts: list[str], notes: list[str],
                             samples: list[list[str] | None]) -> tuple[str, list[str]]:
    """The persona and the entity types (sample 0); with `--repeat N` the other samples of type
    discovery are added to `samples`, after sample 0."""
    options = session.options

    async def persona() -> str:
        if options.persona:
            return " ".join(options.persona.split())
        return steps.clean_persona(await session.question("persona", steps.persona_prompt(domain)), given=domain)

    async def types() -> list[str]:
        if options.entity_types:
            return list(options.entity_types)
        prompt = steps.entity_types_prompt(domain, texts)
        answer, others = await _all(
            session.question("entity_types", prompt, response_format={"type": "json_object"}),
            _type_samples(session, prompt, notes, steps.samples_block(texts)))
        found, changes = steps.clean_entity_types(answer, given=steps.samples_block(texts))
        notes.extend(f"entity types: {n}" for n in changes)
        samples.extend([found, *others])
        return found

    found_persona, found_types = await _all(persona(), types())
    return found_persona, found_types


def type_stability(samples: list[list[str] | None]) -> TypeStability:
    """How often each discovered type recurs across the N samples of type discovery: per type
    (most frequent first, then in order of first appearance) the number of samples naming it."""
    counts: dict[str, int] = {}
    for found in samples:
        for name in dict.fromkeys(found or []):
            counts[name] = counts.get(name, 0) + 1
    order = {name: i for i, name in enumerate(counts)}
    ranked = sorted(counts, key=lambda name: (-counts[name], order[name]))
    return TypeStability(samples=len(samples), types=[TypeRecurrence(type=name, samples=counts[name]) for name in ranked])


async def _examples(session: _Session, chosen: list[int], *, domain: str, language: str, persona: str,
                    entity_types: list[str]) -> tuple[list[KeptExample], list[RejectedExample]]:
    """Run the extraction template with the tuned persona and types on every sampled chunk; judge each answer."""
    options = session.options
    fmt = options.format
    base = builtin_doc(FORMAT_BASES[fmt])
    delimiters = base_delimiters(base)
    extractor = load_yaml_text(dump(extraction_doc(name="tune-extractor", domain=domain, language=language,
                                                   persona=persona, entity_types=entity_types, format=fmt,
                                                   examples=base.get("examples", []))), "<tune extractor>")
    shown = example_entity_names(base)
    variables = {"entity_types": ",".join(entity_types), "language": language, **delimiters}
    own_text = prompt_without_chunk(extractor, variables)  # what no kept description may copy
    json_mode = {"response_format": {"type": "json_object"}} if get_format(fmt).json_mode else {}
    files = cassette_names(options.names, fmt)

    async def one(index: int) -> KeptExample | RejectedExample:
        text, name = options.texts[index], options.names[index]
        answer = await session.ask(files[name], extractor.render({**variables, "input_text": text}),
                                   **json_mode)
        verdict = judge_example(answer, chunk=text, prompt_example_names=shown, entity_types=entity_types,
                                format=fmt, prompt_text=own_text, **delimiters)
        if verdict.kept:
            return KeptExample(name, structured_example(text, verdict.graph, entity_types))
        return RejectedExample(chunk=name, kind=verdict.kind, reason=verdict.reason, answer=answer.strip()[:400])

    results = await _all(*(one(i) for i in chosen))
    kept = [r for r in results if isinstance(r, KeptExample)]
    rejected = [r for r in results if isinstance(r, RejectedExample)]
    return kept, rejected


async def tune_async(options: TuneOptions) -> TuneResult:
    if not options.texts:
        raise InputError("no chunks to tune from")
    if options.format not in FORMAT_BASES:
        raise InputError(f"--format: '{options.format}' is not one of {', '.join(FORMAT_BASES)}")
    if options.repeat < 1:
        raise InputError(f"--repeat: {options.repeat} must be at least 1")
    if options.repeat > 1 and options.entity_types:
        raise InputError("--repeat samples the discovery of entity types; it cannot be used with --entity-types")
    if len(set(options.names)) != len(options.names):
        raise InputError("two chunks have the same name; tuning cassettes are named by chunk")
    chosen = select(options.texts, options.selection, options.limit, seed=options.seed)
    texts = [options.texts[i] for i in chosen]
    notes: list[str] = []
    type_samples: list[list[str] | None] = []
    session = _Session(options)
    try:
        with session.calls():
            domain, language = await _domain_and_language(session, texts, notes)
            persona, entity_types = await _persona_and_types(session, domain, texts, notes, type_samples)
            rating_task = session.question("rating", steps.rating_prompt(domain, persona, texts))
            (kept, rejected), rating_answer = await _all(
                _examples(session, chosen, domain=domain, language=language, persona=persona, entity_types=entity_types),
                rating_task,
            )
            rating = steps.clean_rating(rating_answer, given="\n".join([domain, persona, steps.samples_block(texts)]))
    finally:
        await session.client.close()

    if len(kept) < options.min_examples:
        reasons = "; ".join(f"{r.chunk}: {r.reason}" for r in rejected)
        if len(chosen) >= len(options.texts):  # --limit cannot add any: every chunk was sampled
            remedy = f"all {len(chosen)} chunk(s) were used: add more text, or lower --min-examples"
        else:
            remedy = (f"sample more chunks with --limit ({len(options.texts)} available), "
                      "or lower --min-examples")
        raise InputError(f"only {len(kept)} usable example(s) of {len(chosen)} chunk(s), --min-examples is "
                         f"{options.min_examples} (rejected: {reasons or 'none'}); {remedy}")
    name = options.out.stem
    model = options.endpoint.model
    settings = {"name": name, "domain": domain, "language": language, "persona": persona,
                "entity_types": entity_types, "format": options.format}
    fitted = fit_examples([k.example for k in kept], budget=options.max_tokens, min_examples=options.min_examples,
                          model=model, **settings)
    if fitted.over_budget:
        notes.append(f"the prompt is {fitted.tokens} tokens with the minimum of {options.min_examples} example(s), "
                     f"over the budget of {options.max_tokens}")
    side = {
        "summarize_descriptions": dump(summarize_doc(name=name, domain=domain, language=language, persona=persona)),
        "community_report": dump(community_report_doc(name=name, domain=domain, language=language, persona=persona,
                                                      rating=rating)),
    }
    paths = {"extract_graph": options.out,
             **{kind: options.out.with_name(f"{name}.{kind}.yaml") for kind in side}}
    for kind, path in paths.items():  # atomic_write makes the folder, checked (harness/confined.py)
        atomic_write(path, fitted.text if kind == "extract_graph" else side[kind])
    lint = {kind: lint_prompt(path, model=model,
                              max_tokens=max(options.max_tokens, fitted.tokens) if kind == "extract_graph" else None)
            for kind, path in paths.items()}
    prices = load_prices()
    total = sum(session.usage.values(), Usage())
    report = TuningReport(
        name=name,
        model=model,
        format=options.format,
        selection=options.selection,
        chunks=[options.names[i] for i in chosen],
        domain=domain,
        language=language,
        persona=persona,
        rating_description=rating,
        entity_types=entity_types,
        examples_kept=[k.chunk for k in kept[: fitted.kept]],
        examples_dropped_for_token_budget=[k.chunk for k in kept[fitted.kept:]],
        examples_rejected=rejected,
        tokens={
            "budget": options.max_tokens,
            "extract_graph": fitted.tokens,
            **{kind: rendered_tokens(text, model) for kind, text in side.items()},
        },
        usage=TuningUsage(calls=len(session.usage), prompt_tokens=total.prompt_tokens,
                          completion_tokens=total.completion_tokens,
                          estimated_cost_usd=estimate_cost(total, model, prices)),
        prompts={kind: str(path) for kind, path in paths.items()},
        lint=[f.to_json() for findings in lint.values() for f in findings],
        notes=notes,
        entity_type_stability=type_stability(type_samples) if options.repeat > 1 else None,
    )
    report_path = write_tuning_report(report, options.out.with_name(f"{name}.tuning"))
    failing = [f for findings in lint.values() for f in findings if f.severity == "error"]
    if has_errors(failing):
        raise InputError(f"the tuned prompt fails lint: {failing[0]}")
    return TuneResult(options.out, report_path, report, paths)


def tune(options: TuneOptions) -> TuneResult:
    return asyncio.run(tune_async(options))

