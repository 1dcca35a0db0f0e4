"""Prompt kinds: what a prompt is for, which variables its engine fills (per engine version), the
shape of its answer, the files and settings keys it lives under, how to recognise it from its text,
and which lint checks apply to it.

The variables are what each engine's code really passes to `str.format` (read from the engines'
source; the table with the files read is docs/prompt-kinds.md). A placeholder an engine does not
fill makes that engine's `str.format` raise, so lint reports it as `placeholder-unknown`; a filled
variable the prompt should use but does not is `variable-unused`.

Engines are named `graphrag-0` ... `graphrag-3` (GraphRAG's major versions), `lightrag-old`
(LightRAG <= 1.4.7: one extraction prompt with `{record_delimiter}`), `lightrag` (LightRAG >= 1.4.8:
system + user prompts) and `harness` (the harness's own runner, which fills the six variables of
`template.RUNNER_VARIABLES` for extraction prompts). `graphrag` and `lightrag-any` stand for "some
version of that engine": the variables filled by any version are known, those filled by every
version are expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from .graphrag_layout import settings_line

GRAPHRAG_ENGINES = ("graphrag-0", "graphrag-1", "graphrag-2", "graphrag-3")
LIGHTRAG_ENGINES = ("lightrag-old", "lightrag")
LLAMAINDEX_ENGINE = "llamaindex"  # llama-index-core's property-graph extractors (0.10.x-0.14.x)
HARNESS_ENGINE = "harness"
# engine names a user may give: the versions, the runner, and one "any version" name per family
ENGINE_GROUPS: dict[str, tuple[str, ...]] = {
    **{name: (name,) for name in (*GRAPHRAG_ENGINES, *LIGHTRAG_ENGINES)},
    "graphrag": GRAPHRAG_ENGINES,
    "lightrag-any": LIGHTRAG_ENGINES,
    LLAMAINDEX_ENGINE: (LLAMAINDEX_ENGINE,),
    HARNESS_ENGINE: (HARNESS_ENGINE,),
}
ENGINE_NAMES = tuple(ENGINE_GROUPS)

# checks a kind may enable (lint's delimiter and few-shot example checks only make sense for
# prompts whose answers are records)
DELIMITERS = "delimiters"
EXAMPLES = "examples"
GLEANING = "gleaning"  # continue/loop prompts sent as written

_DELIMS = ("tuple_delimiter", "record_delimiter", "completion_delimiter")
_GRAPHRAG_DELIMITERS = {"tuple_delimiter": "<|>", "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"}
# the delimiters each engine fills, or writes literally into its stock prompts (v3); the lowest
# layer lint resolves delimiters from (below the call's, the template's declaration)
ENGINE_DELIMITERS: dict[str, dict[str, str]] = {
    **{name: _GRAPHRAG_DELIMITERS for name in (*GRAPHRAG_ENGINES, "graphrag", "lightrag-old")},
    "lightrag": {"tuple_delimiter": "<|#|>", "completion_delimiter": "<|COMPLETE|>"},
}


@dataclass(frozen=True)
class PromptKind:
    """One kind of prompt. `filled` maps each engine version to the variables its code fills."""

    name: str
    family: str  # graphrag | lightrag | llamaindex | harness (the harness's own judge prompts)
    purpose: str
    filled: Mapping[str, tuple[str, ...]]
    answer: str  # the shape of the answer, in words
    format: str | None = None  # the registered output format answers are parsed with, if any
    input_variable: str | None = "input_text"  # the data the prompt must carry (None: none)
    optional: frozenset[str] = frozenset()  # filled, but a prompt may leave them out
    files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # engine -> file names
    settings_keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # engine -> `section.key`
    checks: frozenset[str] = frozenset()
    markers: tuple[str, ...] = ()  # regexes, all of which the text matches
    excludes: tuple[str, ...] = ()  # regexes none of which the text matches
    priority: int = 50  # detection order: higher first
    harness: tuple[str, ...] | None = None  # what the harness's runner fills for it (None: it does not run it)
    sources: tuple[str, ...] = ()  # engine files read for `filled`
    # what the engine fills by default besides the data (LlamaIndex's extractor defaults), as text
    engine_values: Mapping[str, str] = field(default_factory=dict)

    @property
    def engines(self) -> tuple[str, ...]:
        return tuple(self.filled)

    @property
    def extraction(self) -> bool:
        """Answers are records the harness's runner can render and parse."""
        return EXAMPLES in self.checks

    def supplied(self, engine: str | None) -> set[str]:
        """Variables some engine in the group fills (placeholders outside it are unknown)."""
        versions = self._versions(engine)
        return set().union(*(self.filled[v] for v in versions)) if versions else set()

    def expected(self, engine: str | None) -> set[str]:
        """Variables every engine in the group fills and a prompt of this kind should use."""
        versions = self._versions(engine)
        if not versions:
            return set()
        common = set(self.filled[versions[0]]).intersection(*(self.filled[v] for v in versions[1:]))
        return common - self.optional

    def _versions(self, engine: str | None) -> list[str]:
        group = ENGINE_GROUPS.get(engine or "", ()) if engine else self.engines
        return [v for v in group if v in self.filled] or list(self.engines)

    def default_engine(self, used: Iterable[str] = ()) -> str:
        """The engine a prompt of this kind is linted for when nothing says which: the harness's
        runner for the GraphRAG kinds it runs, any GraphRAG version for the others, and for LightRAG
        the newest version that fills every placeholder the prompt uses (else the newest)."""
        if self.family in (LLAMAINDEX_ENGINE, HARNESS_ENGINE):
            return self.family
        if self.family == "graphrag":
            return HARNESS_ENGINE if self.harness is not None else "graphrag"
        used = set(used)
        newest_first = list(reversed(self.engines))
        return next((v for v in newest_first if used <= set(self.filled[v])), newest_first[0])

    def detect(self, text: str) -> bool:
        return bool(self.markers) and all(re.search(m, text) for m in self.markers) and not any(
            re.search(x, text) for x in self.excludes)


def _same(engines: Iterable[str], variables: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {engine: variables for engine in engines}


_G = GRAPHRAG_ENGINES
_V2UP = ("graphrag-2", "graphrag-3")
_V1UP = ("graphrag-1", "graphrag-2", "graphrag-3")
_EXTRACT = ("input_text", "entity_types", *_DELIMS)
_CLAIMS = ("input_text", "entity_specs", "claim_description")
_SEARCH = ("context_data", "response_type")
_EXTRACT_KEYS = {"graphrag-0": ("entity_extraction.prompt",), "graphrag-1": ("entity_extraction.prompt",),
                 "graphrag-2": ("extract_graph.prompt",), "graphrag-3": ("extract_graph.prompt",)}
_RUNNER = ("input_text", "entity_types", *_DELIMS, "language")  # template.RUNNER_VARIABLES
_GR_SRC = "graphrag/index/operations/extract_graph/graph_extractor.py (v0: index/graph/extractors/graph/, v1: operations/extract_entities/)"
_Q_SRC = "graphrag/query/structured_search/*/search.py, query/question_gen/local_gen.py"
_LI_SRC = "llama_index/core/indices/property_graph/transformations/"
_LR_SRC = "lightrag/operate.py (extract_entities, _summarize_descriptions, extract_keywords_only, kg_query, naive_query)"

_KINDS: list[PromptKind] = [
    # ---------------------------------------------------------------- GraphRAG indexing
    PromptKind(
        "graphrag.extract_graph", "graphrag", "entities and relationships from a text chunk",
        {**_same(_G[:3], _EXTRACT), "graphrag-3": ("input_text", "entity_types")},
        "tuples `(\"entity\"<|>NAME<|>TYPE<|>DESC)` between `##`, closed by `<|COMPLETE|>`", "graphrag",
        files={"graphrag-0": ("entity_extraction.txt",), "graphrag-1": ("entity_extraction.txt",),
               "graphrag-2": ("extract_graph.txt",), "graphrag-3": ("extract_graph.txt",)},
        settings_keys=_EXTRACT_KEYS,
        checks=frozenset({DELIMITERS, EXAMPLES, GLEANING}),
        markers=(r"\{input_text\}", r"\{entity_types\}", r"(?i)\"?entity\"?\s*(\{tuple_delimiter\}|<\|(?:#\|)?>)"),
        priority=40, harness=_RUNNER, sources=(_GR_SRC,),
    ),
    PromptKind(
        "graphrag.extract_graph_untyped", "graphrag", "entities and relationships, the model naming each type (prompt-tune's untyped variant)",
        {**_same(_G[:3], _EXTRACT), "graphrag-3": ("input_text", "entity_types")},
        "GraphRAG tuples with model-chosen types", "graphrag", optional=frozenset({"entity_types"}),
        settings_keys=_EXTRACT_KEYS,
        checks=frozenset({DELIMITERS, EXAMPLES, GLEANING}),
        markers=(r"\{input_text\}", r"(?i)\"?entity\"?\s*(\{tuple_delimiter\}|<\|(?:#\|)?>)"), excludes=(r"\{entity_types\}",),
        priority=39, harness=_RUNNER, sources=(_GR_SRC, "graphrag/prompt_tune/template/extract_graph.py"),
    ),
    PromptKind(
        "graphrag.extract_graph_json", "graphrag", "entities and relationships as JSON (prompt-tune's JSON variant)",
        {**_same(_G[:3], _EXTRACT), "graphrag-3": ("input_text", "entity_types")},
        "one JSON object with `entities` and `relationships` lists", "json",
        optional=frozenset(_DELIMS), settings_keys=_EXTRACT_KEYS,
        checks=frozenset({DELIMITERS, EXAMPLES, GLEANING}),
        markers=(r"\{input_text\}", r"(?i)\bJSON\b", r"(?i)\"?entities\"?\s*:|`entities`|\bentities\b[^\n]{0,40}\blist"),
        excludes=(r"\{tuple_delimiter\}", r"<\|>"), priority=38, harness=_RUNNER, sources=(_GR_SRC, "graphrag/prompt_tune/template/extract_graph.py"),
    ),
    PromptKind(
        "graphrag.summarize_descriptions", "graphrag", "one description of an entity or relationship from the list of its descriptions",
        {"graphrag-0": ("entity_name", "description_list"), "graphrag-1": ("entity_name", "description_list"),
         "graphrag-2": ("entity_name", "description_list", "max_length"),
         "graphrag-3": ("entity_name", "description_list", "max_length")},
        "plain text: one summary in the third person", "summary", input_variable="description_list",
        files=_same(_G, ("summarize_descriptions.txt",)), settings_keys=_same(_G, ("summarize_descriptions.prompt",)),
        markers=(r"\{description_list\}", r"\{entity_name\}"), priority=60,
        harness=("input_text", "description_list", "entity_name", "max_length", "language"), sources=("graphrag/index/operations/summarize_descriptions/description_summary_extractor.py (v0: index/graph/extractors/summarize/)",),
    ),
    PromptKind(
        "graphrag.community_report", "graphrag", "a community report from the community's entity, relationship and claim tables",
        {"graphrag-0": ("input_text",), "graphrag-1": ("input_text",),
         "graphrag-2": ("input_text", "max_report_length"), "graphrag-3": ("input_text", "max_report_length")},
        "one JSON object: title, summary, rating, rating_explanation, findings", "report",
        files={"graphrag-0": ("community_report.txt",), "graphrag-1": ("community_report.txt",),
               "graphrag-2": ("community_report_graph.txt",), "graphrag-3": ("community_report_graph.txt",)},
        settings_keys={"graphrag-0": ("community_reports.prompt",), "graphrag-1": ("community_reports.prompt",),
                       "graphrag-2": ("community_reports.graph_prompt",), "graphrag-3": ("community_reports.graph_prompt",)},
        markers=(r"\{input_text\}", r"(?i)findings", r"(?i)rating"), excludes=(r"(?i)time specific information",), priority=55,
        harness=("input_text", "max_report_length", "language"), sources=("graphrag/index/operations/summarize_communities/community_reports_extractor.py (v0/v1: extractors/community_reports/)",),
    ),
    PromptKind(
        "graphrag.community_report_text", "graphrag", "a community report from the community's text units (GraphRAG >= 2)",
        _same(_V2UP, ("input_text", "max_report_length")),
        "one JSON object: title, summary, rating, rating_explanation, findings", "report",
        files=_same(_V2UP, ("community_report_text.txt",)), settings_keys=_same(_V2UP, ("community_reports.text_prompt",)),
        markers=(r"\{input_text\}", r"(?i)findings", r"(?i)time specific information"), priority=56,
        harness=("input_text", "max_report_length", "language"), sources=("graphrag/index/operations/summarize_communities/community_reports_extractor.py",),
    ),
    PromptKind(
        "graphrag.extract_claims", "graphrag", "claims (covariates) about given entities in a text chunk",
        {**_same(_G[:3], (*_CLAIMS, *_DELIMS)), "graphrag-3": _CLAIMS},
        "claim tuples of eight fields between `##`, closed by `<|COMPLETE|>`", "claims",
        files={"graphrag-0": ("claim_extraction.txt",), "graphrag-1": ("claim_extraction.txt",),
               "graphrag-2": ("extract_claims.txt",), "graphrag-3": ("extract_claims.txt",)},
        settings_keys={"graphrag-0": ("claim_extraction.prompt",), "graphrag-1": ("claim_extraction.prompt",),
                       "graphrag-2": ("extract_claims.prompt",), "graphrag-3": ("extract_claims.prompt",)},
        checks=frozenset({DELIMITERS, EXAMPLES, GLEANING}),
        markers=(r"\{input_text\}", r"\{entity_specs\}|\{claim_description\}"), priority=60,
        harness=(*_RUNNER, "entity_specs", "claim_description"), sources=("graphrag/index/operations/extract_covariates/claim_extractor.py (v0: index/graph/extractors/claims/)",),
    ),
    # ---------------------------------------------------------------- GraphRAG query
    PromptKind(
        "graphrag.local_search", "graphrag", "local search answer from entity, relationship and source tables",
        _same(_G, _SEARCH), "plain text (markdown) citing `[Data: <dataset> (ids)]`", None, input_variable="context_data",
        files=_same(_G, ("local_search_system_prompt.txt",)), settings_keys=_same(_G, ("local_search.prompt",)),
        markers=(r"\{context_data\}", r"\{response_type\}"), excludes=(r"\{global_query\}",), priority=20, sources=(_Q_SRC,),
    ),
    PromptKind(
        "graphrag.basic_search", "graphrag", "vector-search (basic) answer from text chunks (GraphRAG >= 1)",
        _same(_V1UP, _SEARCH), "plain text (markdown) citing `[Data: Sources (ids)]`", None, input_variable="context_data",
        files=_same(_V1UP, ("basic_search_system_prompt.txt",)), settings_keys=_same(_V1UP, ("basic_search.prompt",)),
        priority=19, sources=(_Q_SRC,),
    ),
    PromptKind(
        "graphrag.global_search_map", "graphrag", "global search map step: key points from a batch of community reports",
        {"graphrag-0": ("context_data",), "graphrag-1": ("context_data",),
         "graphrag-2": ("context_data", "max_length"), "graphrag-3": ("context_data", "max_length")},
        "map points JSON: {\"points\": [{\"description\", \"score\"}]}", "map_points", input_variable="context_data",
        files=_same(_G, ("global_search_map_system_prompt.txt",)), settings_keys=_same(_G, ("global_search.map_prompt",)),
        markers=(r"\{context_data\}", r"\"points\""), priority=45,
        # a global_search_map suite: the question is the user message, {question} in the harness's template
        harness=("context_data", "input_text", "max_length", "question", "language"), sources=(_Q_SRC,),
    ),
    PromptKind(
        "graphrag.global_search_reduce", "graphrag", "global search reduce step: one answer from the analysts' ranked points",
        {"graphrag-0": ("report_data", "response_type"), "graphrag-1": ("report_data", "response_type"),
         "graphrag-2": ("report_data", "response_type", "max_length"),
         "graphrag-3": ("report_data", "response_type", "max_length")},
        "plain text (markdown) answer", None, input_variable="report_data",
        files=_same(_G, ("global_search_reduce_system_prompt.txt",)), settings_keys=_same(_G, ("global_search.reduce_prompt",)),
        markers=(r"\{report_data\}",), priority=45, sources=(_Q_SRC,),
    ),
    PromptKind(
        "graphrag.global_search_knowledge", "graphrag", "instruction appended to the reduce prompt to allow general knowledge",
        _same(_G, ()), "none of its own (appended to the reduce prompt as written)", None, input_variable=None,
        files=_same(_G, ("global_search_knowledge_system_prompt.txt",)), settings_keys=_same(_G, ("global_search.knowledge_prompt",)),
        markers=(r"(?i)real-world knowledge|general knowledge", r"(?i)\[LLM: verify\]"), excludes=(r"\{[a-z_]+\}",),
        priority=45, sources=(_Q_SRC,),
    ),
    PromptKind(
        "graphrag.drift_search", "graphrag", "DRIFT local step: an intermediate answer with a score and follow-up queries",
        {**_same(_G[:3], (*_SEARCH, "global_query")), "graphrag-3": (*_SEARCH, "global_query", "followups")},
        "DRIFT JSON: {\"response\", \"score\", \"follow_up_queries\"}", None, input_variable="context_data",
        files=_same(_G, ("drift_search_system_prompt.txt",)), settings_keys=_same(_G, ("drift_search.prompt",)),
        markers=(r"\{context_data\}", r"\{global_query\}"), priority=45,
        sources=(_Q_SRC, "graphrag/query/structured_search/local_search/search.py (drift_query, k_followups)"),
    ),
    PromptKind(
        "graphrag.drift_reduce", "graphrag", "DRIFT reduce step: one answer from the intermediate answers (GraphRAG >= 1)",
        _same(_V1UP, _SEARCH), "plain text (markdown) answer", None, input_variable="context_data",
        files=_same(_V1UP, ("drift_reduce_prompt.txt",)),
        settings_keys=_same(_V1UP, ("drift_search.reduce_prompt",)), priority=18, sources=(_Q_SRC,),
    ),
    PromptKind(
        "graphrag.question_gen", "graphrag", "candidate questions from local context",
        _same(_G, ("context_data", "question_count")), "plain text: a bulleted list of questions", None,
        input_variable="context_data", files=_same(_G, ("question_gen_system_prompt.txt",)),
        markers=(r"\{question_count\}",), priority=45, sources=(_Q_SRC,),
    ),
    # ---------------------------------------------------------------- LightRAG
    PromptKind(
        "lightrag.entity_extraction", "lightrag", "entities and relations from a chunk: the whole extraction request",
        {"lightrag-old": ("input_text", "entity_types", "language", "examples", *_DELIMS),
         "lightrag": ("input_text", "entity_types", "language", "examples", "tuple_delimiter", "completion_delimiter")},
        "LightRAG records (`entity<|#|>...` lines, or old-style tuples between `##`), closed by `<|COMPLETE|>`",
        "lightrag", optional=frozenset({"examples", "language"}),
        files={"lightrag-old": ("entity_extraction.txt",)}, settings_keys={"lightrag-old": ('PROMPTS["entity_extraction"]',)},
        checks=frozenset({DELIMITERS, EXAMPLES, GLEANING}),
        markers=(r"\{input_text\}", r"(?i)\"?entity\"?\{tuple_delimiter\}", r"\{examples\}"), priority=41, harness=_RUNNER, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.entity_extraction_system", "lightrag", "the system message of LightRAG >= 1.4.8's extraction",
        {"lightrag": ("input_text", "entity_types", "language", "examples", "tuple_delimiter", "completion_delimiter")},
        "(the user message asks; answers as lightrag.entity_extraction)", "lightrag", input_variable=None,
        optional=frozenset({"input_text", "language"}),
        files={"lightrag": ("entity_extraction_system_prompt.txt",)},
        settings_keys={"lightrag": ('PROMPTS["entity_extraction_system_prompt"]',)}, checks=frozenset({DELIMITERS}),
        # no text markers: a prompt without {input_text} is only taken for this message by its file
        # name or `kind:`, so an extraction prompt that lost its input is still reported
        priority=42, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.entity_extraction_user", "lightrag", "the user message of LightRAG >= 1.4.8's extraction (carries the chunk)",
        {"lightrag": ("input_text", "entity_types", "language", "examples", "tuple_delimiter", "completion_delimiter")},
        "(as lightrag.entity_extraction)", "lightrag",
        optional=frozenset({"entity_types", "language", "examples", "tuple_delimiter", "completion_delimiter"}),
        files={"lightrag": ("entity_extraction_user_prompt.txt",)},
        settings_keys={"lightrag": ('PROMPTS["entity_extraction_user_prompt"]',)},
        markers=(r"\{input_text\}", r"(?i)system (prompt|instructions)"), priority=42, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.entity_continue_extraction", "lightrag", "the gleaning request after the first extraction answer",
        {"lightrag-old": ("input_text", "entity_types", "language", "examples", *_DELIMS),
         "lightrag": ("input_text", "entity_types", "language", "examples", "tuple_delimiter", "completion_delimiter")},
        "more records in the extraction's format", "lightrag", input_variable=None,
        optional=frozenset({"input_text", "entity_types", "language", "examples", *_DELIMS}),
        files={"lightrag-old": ("entity_continue_extraction.txt",), "lightrag": ("entity_continue_extraction_user_prompt.txt",)},
        settings_keys={"lightrag-old": ('PROMPTS["entity_continue_extraction"]',),
                       "lightrag": ('PROMPTS["entity_continue_extraction_user_prompt"]',)},
        markers=(r"(?i)\bmissed\b", r"(?i)\blast extraction\b"), excludes=(r"\{input_text\}", r"\{examples\}"),
        priority=30, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.entity_if_loop_extraction", "lightrag", "asks whether entities are still missing (LightRAG <= 1.4.7)",
        {"lightrag-old": ()}, "one letter: YES or NO", None, input_variable=None,
        files={"lightrag-old": ("entity_if_loop_extraction.txt",)},
        settings_keys={"lightrag-old": ('PROMPTS["entity_if_loop_extraction"]',)},
        markers=(r"(?i)answer (ONLY )?by `?YES`? OR `?NO`?|\bYES\b[^\n]*\bNO\b",), excludes=(r"\{[a-z_]+\}",), priority=25,
        sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.summarize_entity_descriptions", "lightrag", "one description of an entity or relation from its description list",
        {"lightrag-old": ("entity_name", "description_type", "description_name", "description_list", "summary_length", "language"),
         "lightrag": ("description_type", "description_name", "description_list", "summary_length", "language")},
        "plain text: one summary in the third person", None, input_variable="description_list",
        optional=frozenset({"entity_name", "description_type", "description_name", "summary_length", "language"}),
        files=_same(LIGHTRAG_ENGINES, ("summarize_entity_descriptions.txt",)),
        settings_keys=_same(LIGHTRAG_ENGINES, ('PROMPTS["summarize_entity_descriptions"]',)),
        markers=(r"\{description_list\}", r"\{description_name\}|\{summary_length\}"), priority=61, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.keywords_extraction", "lightrag", "high- and low-level keywords of a query",
        _same(LIGHTRAG_ENGINES, ("query", "examples", "language", "history")),
        "JSON: {\"high_level_keywords\": [...], \"low_level_keywords\": [...]}", None, input_variable="query",
        optional=frozenset({"examples", "language", "history"}),
        files=_same(LIGHTRAG_ENGINES, ("keywords_extraction.txt",)),
        settings_keys=_same(LIGHTRAG_ENGINES, ('PROMPTS["keywords_extraction"]',)),
        markers=(r"\{query\}", r"high_level_keywords"), priority=60, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.rag_response", "lightrag", "answer to a query from knowledge-graph and chunk context",
        _same(LIGHTRAG_ENGINES, ("context_data", "response_type", "user_prompt", "history")),
        "plain text (markdown) with a References section", None, input_variable="context_data",
        optional=frozenset({"response_type", "user_prompt", "history"}),
        files=_same(LIGHTRAG_ENGINES, ("rag_response.txt",)), settings_keys=_same(LIGHTRAG_ENGINES, ('PROMPTS["rag_response"]',)),
        markers=(r"\{context_data\}", r"\{user_prompt\}|Knowledge Graph"), priority=44, sources=(_LR_SRC,),
    ),
    PromptKind(
        "lightrag.naive_rag_response", "lightrag", "answer to a query from chunk context only",
        _same(LIGHTRAG_ENGINES, ("content_data", "response_type", "user_prompt", "history")),
        "plain text (markdown) with a References section", None, input_variable="content_data",
        optional=frozenset({"response_type", "user_prompt", "history"}),
        files=_same(LIGHTRAG_ENGINES, ("naive_rag_response.txt",)),
        settings_keys=_same(LIGHTRAG_ENGINES, ('PROMPTS["naive_rag_response"]',)),
        markers=(r"\{content_data\}",), priority=44, sources=(_LR_SRC,),
    ),
    # ---------------------------------------------------------------- LlamaIndex property graphs
    # llama-index-core 0.14.25 (MIT): the variables each extractor passes to `llm.apredict` (or
    # `astructured_predict`) and their defaults, recorded from the real extractors in
    # tests/fixtures/engine_captures/llamaindex-0.14.25/prompts.json. `{text}` is the node's text.
    PromptKind(
        "llamaindex.kg_triplet_extract", LLAMAINDEX_ENGINE, "(subject, predicate, object) triples from a chunk (SimpleLLMPathExtractor, KG_TRIPLET_EXTRACT_TMPL)",
        {LLAMAINDEX_ENGINE: ("text", "max_knowledge_triplets")},
        "one `(subject, predicate, object)` triple a line", "llamaindex", input_variable="text",
        optional=frozenset({"max_knowledge_triplets"}),
        settings_keys={LLAMAINDEX_ENGINE: ("SimpleLLMPathExtractor(extract_prompt=...)",)},
        markers=(r"\{text\}", r"\{max_knowledge_triplets\}"),
        excludes=(r"\{allowed_(entity|relation)_types\}", r"\{input_text\}"), priority=47,
        sources=(_LI_SRC + "simple_llm.py", "llama_index/core/prompts/default_prompts.py"),
        engine_values={"max_knowledge_triplets": "10"},
    ),
    PromptKind(
        "llamaindex.dynamic_extract", LLAMAINDEX_ENGINE, "typed triples as a JSON list, within an initial ontology (DynamicLLMPathExtractor)",
        {LLAMAINDEX_ENGINE: ("text", "max_knowledge_triplets", "allowed_entity_types", "allowed_relation_types",
                             "allowed_entity_properties", "allowed_relation_properties")},
        "a JSON list of `{head, head_type, relation, tail, tail_type}` objects", "json_triples", input_variable="text",
        optional=frozenset({"max_knowledge_triplets", "allowed_entity_properties", "allowed_relation_properties"}),
        settings_keys={LLAMAINDEX_ENGINE: ("DynamicLLMPathExtractor(extract_prompt=...)",)},
        markers=(r"\{text\}", r"\{allowed_entity_types\}|\{allowed_relation_types\}"), excludes=(r"\{input_text\}",),
        priority=48, sources=(_LI_SRC + "dynamic_llm.py", "llama_index/core/prompts/default_prompts.py"),
        engine_values={
            "max_knowledge_triplets": "10",
            "allowed_entity_types": "No entity types provided, You are free to define them.",
            "allowed_relation_types": "No relation types provided, You are free to define them.",
            "allowed_entity_properties": "No entity properties provided, You are free to define them.",
            "allowed_relation_properties": "No relation properties provided, You are free to define them.",
        },
    ),
    PromptKind(
        "llamaindex.schema_extract", LLAMAINDEX_ENGINE, "triples within a fixed schema, read by structured output (SchemaLLMPathExtractor)",
        {LLAMAINDEX_ENGINE: ("text", "max_triplets_per_chunk")},
        "structured output (function calling) of `{triplets: [{subject, relation, object}]}`", None, input_variable="text",
        optional=frozenset({"max_triplets_per_chunk"}),
        settings_keys={LLAMAINDEX_ENGINE: ("SchemaLLMPathExtractor(extract_prompt=...)",)},
        markers=(r"\{text\}", r"\{max_triplets_per_chunk\}"), excludes=(r"\{input_text\}",), priority=47,
        sources=(_LI_SRC + "schema_llm.py",), engine_values={"max_triplets_per_chunk": "10"},
    ),
]

# ---------------------------------------------------------------- the harness's own judges
# Prompts the suite's `judge:` sends (harness/judges/, docs/judges.md): the harness's runner
# fills their variables, and their answers are verdicts read by their first word, not records.
JUDGE_MATCH_VARIABLES = ("input_text", "gold", "predicted")
JUDGE_PAIRWISE_VARIABLES = ("input_text", "first", "second")
JUDGE_SUPPORT_VARIABLES = ("input_text", "statement")
_JUDGE_SRC = "harness/judges/stage.py"
_KINDS += [
    PromptKind(
        "harness.judge_match", HARNESS_ENGINE, "(a) whether a predicted entity names the gold one (the suite judge's matching)",
        {HARNESS_ENGINE: JUDGE_MATCH_VARIABLES}, "one word first: SAME or DIFFERENT (also YES / NO)", None,
        markers=(r"\{gold\}", r"\{predicted\}"), priority=70, sources=(_JUDGE_SRC,),
    ),
    PromptKind(
        "harness.judge_pairwise", HARNESS_ENGINE, "(d) which of two variants' answers is better, asked in both orders",
        {HARNESS_ENGINE: JUDGE_PAIRWISE_VARIABLES}, "one word first: FIRST, SECOND or TIE (also A / B)", None,
        markers=(r"\{first\}", r"\{second\}"), priority=70, sources=(_JUDGE_SRC,),
    ),
    PromptKind(
        "harness.judge_support", HARNESS_ENGINE,
        "(b) and (c) whether a text supports a statement: a description against its chunk, a summary fact, a report finding",
        {HARNESS_ENGINE: JUDGE_SUPPORT_VARIABLES}, "one word first: SUPPORTED or UNSUPPORTED (also YES / NO)", None,
        markers=(r"\{statement\}",), priority=70, sources=(_JUDGE_SRC,),
    ),
]

PROMPT_KINDS: dict[str, PromptKind] = {kind.name: kind for kind in _KINDS}
JUDGE_KINDS = ("harness.judge_match", "harness.judge_pairwise", "harness.judge_support")

# the kind a prompt with only a declared output format is taken to be
FORMAT_KINDS = {"graphrag": "graphrag.extract_graph", "json": "graphrag.extract_graph_json",
                "claims": "graphrag.extract_claims", "report": "graphrag.community_report",
                "lightrag": "lightrag.entity_extraction"}


def get_kind(name: str) -> PromptKind:
    """A registered kind; InputError naming the known ones otherwise."""
    try:
        return PROMPT_KINDS[name]
    except KeyError:
        raise InputError(f"'{name}' is not a prompt kind (kinds: {', '.join(PROMPT_KINDS)})") from None


def check_engine(name: str) -> str:
    if name not in ENGINE_GROUPS:
        raise InputError(f"'{name}' is not an engine (engines: {', '.join(ENGINE_NAMES)})")
    return name


def kinds_of_file(path: str | Path, engine: str | None = None) -> list[PromptKind]:
    """The kinds GraphRAG's or LightRAG's own file name says (`extract_graph.txt`, `claim_extraction.txt`,
    `entity_extraction_system_prompt.txt`...); the given engine's names first. `entity_extraction.txt`
    is both GraphRAG 0.x/1.x's and old LightRAG's name: the caller tells them apart by the text."""
    name = Path(path).name
    found = [kind for kind in _KINDS if any(name in names for names in kind.files.values())]
    group = ENGINE_GROUPS.get(engine or "", ())
    return sorted(found, key=lambda k: not any(name in k.files.get(v, ()) for v in group))


def detect_kind(text: str) -> PromptKind | None:
    """The kind a prompt's text shows (its placeholders and key phrases), or None."""
    for kind in sorted(_KINDS, key=lambda k: -k.priority):
        if kind.detect(text):
            return kind
    return None


def engine_of_settings(settings: Mapping[str, object]) -> str:
    """The GraphRAG version line a settings mapping is written for (`graphrag-0` ... `graphrag-3`),
    read from its layout by `graphrag_layout.settings_line`. v0 and v1 fill the same variables into
    every prompt they share, so telling them apart matters little here."""
    return f"graphrag-{settings_line(settings)}"


SETTINGS_FILES = ("settings.yaml", "settings.yml", "settings.json")
# sections only GraphRAG settings have (any version)
_GRAPHRAG_SECTIONS = {"llm", "models", "completion_models", "entity_extraction", "extract_graph", "claim_extraction",
                      "extract_claims", "community_reports", "summarize_descriptions", "local_search", "global_search"}


def find_project_engine(prompt: Path) -> tuple[str, Path] | None:
    """The GraphRAG version of the project a prompt file belongs to, and its settings file: the
    first settings file found walking up from the prompt (at most four folders)."""
    folder = prompt.resolve().parent
    for _ in range(4):
        if any((folder / name).is_file() for name in SETTINGS_FILES):
            return folder_engine(folder)  # a settings file of something else: no GraphRAG project here
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


def folder_engine(folder: Path) -> tuple[str, Path] | None:
    """The GraphRAG version a project folder's own settings file says, and that file (None: no
    readable GraphRAG settings in the folder). Lint and `prompts export` read a project alike."""
    from ..inputfiles import read_text
    from ..yamlfile import parse_yaml

    candidate = next((folder / name for name in SETTINGS_FILES if (folder / name).is_file()), None)
    if candidate is None:
        return None
    try:
        data, _ = parse_yaml(read_text(candidate, what="settings file"), str(candidate))
    except InputError:
        return None
    if isinstance(data, dict) and _GRAPHRAG_SECTIONS & set(data):
        return engine_of_settings(data), candidate
    return None
