"""Each engine's own extraction parser, one model per version, shared by the audit (which counts
what it keeps of a cached answer) and runs (which score the graph it builds of a case's answers):
GraphRAG in graphrag_parser.py, LightRAG in lightrag_parser.py, LlamaIndex in llamaindex_parser.py
(their docstrings hold the rules, read from each version's code). This module picks the model:
by the release a suite's `engine:` names (`parser_of_version`, `engine_graph`) or, in the audit,
by the engine a cache entry came from and the shape of its answer (`engine_parser`).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.cache_audit.engine_graph import EngineGraph
from harness.cache_audit.entry import EngineCounts, EngineReading
from harness.cache_audit.graphrag_parser import (
    COMPLETION, GRAPHRAG_RECORD, GRAPHRAG_TUPLE, family, graphrag_graph, graphrag_reading,
)
from harness.cache_audit.lightrag_parser import LEGACY, LIGHTRAG_TUPLE, LINES, lightrag_graph, parser_of_release
from harness.cache_audit.llamaindex_parser import (
    LLAMAINDEX_MAX_PART_BYTES, EngineParseError, LlamaTriple, TypedTriple, llamaindex_counts,
    llamaindex_dynamic_triplets, llamaindex_extractor, llamaindex_graph, llamaindex_triplets,
)

__all__ = [
    "COMPLETION", "GRAPHRAG_RECORD", "GRAPHRAG_TUPLE", "LIGHTRAG_TUPLE", "LLAMAINDEX_MAX_PART_BYTES", "EngineParseError",
    "EngineReading", "LlamaTriple", "TypedTriple", "engine_graph", "engine_parser", "graphrag_counts", "graphrag_reading",
    "lightrag_counts", "lightrag_legacy_counts", "llamaindex_counts", "llamaindex_dynamic_triplets",
    "llamaindex_extractor", "llamaindex_triplets", "parser_of_version",
]


def graphrag_counts(
    text: str,
    version: str = "graphrag-3.x",
    tuple_delimiter: str = GRAPHRAG_TUPLE,
    record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineCounts:
    """What GraphRAG `version` (graphrag-0.x, -1.x, -2.x, -3.x) keeps from one answer: records."""
    return graphrag_reading(text, version, tuple_delimiter, record_delimiter, completion_delimiter).counts()


def lightrag_legacy_counts(
    text: str, tuple_delimiter: str = GRAPHRAG_TUPLE, record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineCounts:
    """LightRAG up to 1.4.7 (GraphRAG-style tuples with keywords and a strength): records kept."""
    return lightrag_graph([text], LEGACY, tuple_delimiter, record_delimiter, completion_delimiter).counts()


def lightrag_counts(text: str, tuple_delimiter: str = LIGHTRAG_TUPLE, completion_delimiter: str = COMPLETION,
                    parser: str = LINES) -> EngineCounts:
    """LightRAG from 1.4.8 (`entity<|#|>name<|#|>type<|#|>description`, one record a line): records kept."""
    return lightrag_graph([text], parser, tuple_delimiter, completion_delimiter=completion_delimiter).counts()


def engine_parser(engine: str, answer: str) -> tuple[str, Callable[[str], EngineCounts]]:
    """The name and counting function of `engine`'s extraction parser for this answer, as the
    audit reads one cached answer (LightRAG: the 1.4.8+ parser when the answer uses `<|#|>`, else
    the older one; LlamaIndex: the dynamic extractor's parser for JSON-like answers, the simple
    one's otherwise; GraphRAG: `engine` is the parser family)."""
    if engine == "llamaindex":
        extractor = llamaindex_extractor(answer)
        return f"llamaindex-{extractor}", lambda text: llamaindex_counts(text, extractor)
    if engine == "lightrag":
        if LIGHTRAG_TUPLE in answer:
            return LINES, lightrag_counts
        return LEGACY, lightrag_legacy_counts
    return engine, lambda text: graphrag_counts(text, engine)


def parser_of_version(engine: str) -> str | None:
    """The parser the engine release a suite names runs (`engine:` of a suite, read by
    engine_names): graphrag-0.x for 0.1-0.3.1, graphrag-1.x for 0.3.2-1.x, graphrag-2.x,
    graphrag-3.x; lightrag<=1.4.7, lightrag>=1.4.8 (to 1.4.x) or lightrag>=1.5, or plain
    `lightrag` (chosen per answer, as the audit does); llamaindex (its extractor chosen per
    answer). None for a name the harness does not model."""
    from ..engine_names import parse_engine_name
    from ..errors import InputError

    try:
        release = parse_engine_name(engine)
    except InputError:
        return None
    version = release.version
    if release.engine == "llamaindex":
        return "llamaindex"
    if release.engine == "lightrag":
        return "lightrag" if version is None else parser_of_release(version)
    assert version is not None
    return family(version)


# the LlamaIndex extractor whose parser reads the answers of a suite's answer format
LLAMAINDEX_EXTRACTORS = {"llamaindex": "simple", "json_triples": "dynamic"}


def engine_graph(engine: str, answers: list[str], delimiters: dict[str, str],
                 answer_format: str | None = None) -> EngineGraph:
    """The graph the engine release a suite names (`engine:`) builds from one case's answers
    (extraction and gleanings, loop checks left out), read by its own parser as modelled here.

    GraphRAG glues the answers into one text before parsing (`results += response`, every
    version), so a gleaning's first record after `<|COMPLETE|>` is lost as the engine loses it;
    3.x reads with its constant delimiters, earlier versions with those the prompt was filled
    with (`delimiters`: tuple_delimiter, record_delimiter, completion_delimiter). LightRAG reads
    each answer on its own and joins a gleaning's records to the first answer's; LlamaIndex does
    not glean; its extractor is the one whose answers the suite's `answer_format` reads
    (`llamaindex`: SimpleLLMPathExtractor, `json_triples`: DynamicLLMPathExtractor), else chosen
    per answer as the audit chooses. LightRAG reads with its constant delimiters (`<|>`, `##` up to 1.4.7; `<|#|>` and new
    lines from 1.4.8; `<|COMPLETE|>`), whatever the prompt says. InputError for a name the harness
    does not model (suites are validated at load)."""
    from ..engine_names import parse_engine_name

    release = parse_engine_name(engine)
    tuple_d = delimiters.get("tuple_delimiter", GRAPHRAG_TUPLE)
    record_d = delimiters.get("record_delimiter", GRAPHRAG_RECORD)
    completion_d = delimiters.get("completion_delimiter", COMPLETION)
    if release.engine == "llamaindex":
        return llamaindex_graph(answers, LLAMAINDEX_EXTRACTORS.get(answer_format or ""))
    if release.engine == "lightrag":  # its constants, whatever the prompt was filled with
        if release.version is not None:
            parser = parser_of_release(release.version)
        else:  # plain `lightrag`: the generation the answers are written in
            parser = LINES if any(LIGHTRAG_TUPLE in a for a in answers) else LEGACY
        return lightrag_graph(answers, parser)
    version = release.version
    assert version is not None
    if version >= (3, 0, 0):  # 3.x splits on its constants, whatever the prompt says
        tuple_d, record_d, completion_d = GRAPHRAG_TUPLE, GRAPHRAG_RECORD, COMPLETION
    return graphrag_graph("".join(answers), version, tuple_d, record_d, completion_d)

