"""A variant planned once: its template, entity types, delimiters, endpoint, the suite kind's
variables and scoring, and the engine's conversation (what every case of the variant shares)."""

from __future__ import annotations
import dataclasses
from dataclasses import dataclass, field, fields
from ..errors import InputError
from ..fingerprint import fingerprint
from ..formats import AUTO, DEFAULT_FORMAT, format_names, get_format
from ..formats.base import DELIMITER_KEYS, Delimiters, resolve_delimiters
from ..llm.engine_conversation import HARNESS, Conversation, conversation_for
from ..llm.providers.base import EndpointSettings
from ..model import ExtractedGraph, GoldCase, MatchingConfig, ReferenceFreeScores
from ..prompts.entity_types import EffectiveTypes, variant_entity_types
from .variant_prompt import load_variant_prompt
from ..prompts.leakage import chunk_in_prompt, fold, prompt_without_chunk
from ..prompts.template import PromptMeta, PromptTemplate
from ..scoring.ontology import ontology_types
from ..scoring.reference_free import reference_free
from ..kinds.registry import DEFAULT_KIND, get_kind
from ..kinds.spec import KindSpec
from ..suites import ModelSettings, Suite, VariantSpec


@dataclass
class ScoringPlan:
    """What reading and scoring a variant's answers needs: the prompt (its variables and example
    text), the answer format and delimiters, the entity types and the suite kind. `harness
    evaluate` scores another pipeline's answers with one of these alone; a run's `VariantPlan`
    adds how to call the endpoint. `prompt_known`: False when the answers' prompt is not known
    (outputs of another pipeline without `--examples`): no example text, so the figures read
    against the prompt are n/a and no chunk can be in it."""

    name: str
    spec: VariantSpec
    template: PromptTemplate
    entity_types: list[str]
    language: str
    format: str
    delimiters: Delimiters  # the variant's tuple, record and completion delimiters (variant_delimiters)
    types: EffectiveTypes | None = None  # where entity_types came from (docs/prompts.md)
    # the types type conformance checks against: the suite ontology's (`ontology_types`) when it
    # has one, else None and the prompt's `entity_types` (docs/scoring.md, "Ontology conformance")
    conformance_types: list[str] | None = None
    # the suite's kind (harness/kinds/): the variables its prompt is filled with and its scoring
    kind: KindSpec = field(default_factory=lambda: get_kind(DEFAULT_KIND))
    # how gleaning goes: the conversation of the engine version the suite names (`engine:`)
    conversation: Conversation = HARNESS
    prompt_known: bool = True
    # the prompt without the chunk, rendered once per worked example (a case's own `example:`, else
    # the template's: None), and folded for the leak check
    _prompt_without_chunk: dict[str | None, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _folded_prompt_without_chunk: dict[str | None, str] = field(default_factory=dict, init=False, repr=False,
                                                                compare=False)

    def variables(self, case: GoldCase) -> dict[str, str]:
        """What the prompt is filled with, as the engine fills it for the suite's kind: the case's
        and the variant's values, then the engine's defaults for what the template declares not."""
        engine = {k: v for k, v in self.kind.engine_defaults.items() if k not in self.template.defaults}
        filled = {**engine, **self.kind.variables(self, case)}
        if self.kind.builds_graph and self.conversation.strips_chunk:
            filled["input_text"] = self.conversation.chunk(filled["input_text"])
        return filled

    def fingerprint(self) -> str | None:
        """The prompt as this plan sends it, fingerprinted (`harness.fingerprint`): its message
        templates and gleaning prompts, the values that fill it whatever the case (its defaults and
        bound values, entity types, language, delimiters) and the answer format. None when the
        prompt is not known (`prompt_known`). Where the file lives and its lines are left out."""
        if not self.prompt_known:
            return None
        template = self.template
        return fingerprint({
            "system": template.system, "user": template.user, "history": template.history,
            "continue_prompt": template.continue_prompt, "loop_prompt": template.loop_prompt,
            "defaults": template.defaults, "partials": template.partials,
            "variable_mappings": template.variable_mappings, "entity_types": self.entity_types,
            "language": self.language, "format": self.format, "delimiters": self.delimiters.as_variables(),
        })

    def examples_text(self, case: GoldCase) -> str | None:
        """The prompt as sent without the case's chunk: its instructions and few-shot examples
        (the same for every case that gives no worked example of its own: only the chunk differs,
        so it is rendered once per example); None when the prompt is not known."""
        if not self.prompt_known:
            return None
        text = self._prompt_without_chunk.get(case.example)
        if text is None:
            _keep_last(self._prompt_without_chunk, self._folded_prompt_without_chunk)
            text = self._prompt_without_chunk[case.example] = prompt_without_chunk(self.template, self.variables(case))
        return text

    def prompt_contains_chunk(self, case: GoldCase) -> bool:
        """Whether the prompt, without the case's chunk, already holds a passage of it (few-shot examples)."""
        examples = self.examples_text(case)
        if examples is None:
            return False
        folded = self._folded_prompt_without_chunk.get(case.example)
        if folded is None:
            folded = self._folded_prompt_without_chunk[case.example] = fold(examples)
        return chunk_in_prompt(case.text, folded, folded=True)

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


def _keep_last(*caches: dict[str | None, str]) -> None:
    """Before a new case example is cached: drop the previous case's, keeping the template's own
    (None), so a suite with an example per case holds one rendering at a time, not one per case."""
    for cache in caches:
        for key in [k for k in cache if k is not None]:
            del cache[key]


@dataclass(kw_only=True)
class VariantPlan(ScoringPlan):
    """Everything needed to render, send, read and score one variant's calls: the scoring plan
    and how to call the endpoint (its settings and the gleanings to ask for)."""

    endpoint: EndpointSettings
    max_gleanings: int

    def render(self, case: GoldCase) -> list[dict[str, str]]:
        """The case's first request as the engine version the suite names sends it."""
        return self.conversation.send(self.template.render(self.variables(case), case=case.id))


def variant_delimiters(spec: VariantSpec, meta: PromptMeta, fmt: str) -> Delimiters:
    """Each delimiter as the variant sets it, else as the prompt declares it, else the format's
    default (harness.formats.base.resolve_delimiters: the one order, also lint's and the examples')."""
    output_format = get_format(DEFAULT_FORMAT if fmt == AUTO else fmt)
    layers = ({key: getattr(source, key) for key in DELIMITER_KEYS} for source in (spec, meta))
    return resolve_delimiters(output_format, *layers)


def endpoint_settings(model: ModelSettings, *, model_name: str | None = None,
                      base_url: str | None = None) -> EndpointSettings:
    """How a suite's `model:` settings call the endpoint (runs and tuning alike): every
    setting of the same name, then the model name and base URL a variant or command line gives."""
    shared = {f.name: getattr(model, f.name) for f in fields(EndpointSettings) if f.name in type(model).model_fields}
    # a base URL given here (--base-url) is the one endpoint: it replaces the replicas too
    replicas = () if base_url else tuple(model.base_urls or ())
    return EndpointSettings(**{**shared, "model": model_name or model.name, "base_url": base_url or model.base_url,
                               "base_urls": replicas})


def plan_variant(suite: Suite, name: str) -> VariantPlan:
    spec = suite.spec.variants[name]
    model = suite.model_settings(name)  # a matrix cell's own model block
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
