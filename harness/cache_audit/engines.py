"""What each engine's own extraction parser keeps from one answer, modelled on its code, so the
audit can say what it lost. Counts only: records kept and weights that fell back to 1.0.

GraphRAG (graph_extractor.py, `_process_results` / `_process_result`), every version: split the
answer on the record delimiter (never on the completion delimiter), strip each record and one
leading "(" and one trailing ")", split on the tuple delimiter; keep `"entity"` records with at
least 4 fields and `"relationship"` records with at least 5 (the tag must be exactly `"entity"`
with its quotes). The weight is the last field:

- 0.1 to 0.3.1: `float(x) if isinstance(x, numbers.Number) else 1.0` on a string: every weight is
  1.0 (graphrag-0.x below; 0.3.2 to 0.5.x store the 0.x layout but parse as 1.x does, and 0.9
  stores fnllm's: harness.cache_audit.versions says which the audit assumed);
- 0.3.2 to 2.x: `float(x)`, 1.0 on ValueError, so `5)\\n<|COMPLETE|>` (the last record when no
  record delimiter comes before the completion delimiter) falls back to 1.0;
- 3.x: the same, and a record that is empty or exactly `<|COMPLETE|>` is skipped (which changes no
  count: the completion delimiter glued to the last record still costs its weight).

In 0.x to 2.x the first answer and its gleanings are concatenated before parsing; the audit reads
each cached answer on its own, so a record broken across that seam is not modelled.

LightRAG (operate.py): up to 1.4.7 GraphRAG-style tuples: split on the record and completion
delimiters, take the text inside the outermost parentheses, split on `<|>`; `"entity"` with at
least 4 fields and a non-empty name, `"relationship"` with at least 5; the weight is the last field
when it matches `^[-+]?[0-9]*\\.?[0-9]+$`, else 1.0. From 1.4.8: one record per line (split on new
lines and the completion delimiter), `<|#|>` between fields; an entity has exactly 4 fields
(`entity`, name, type, description: name, type and description non-empty, the type free of
`'()<>|/\\`), a relation exactly 5 (`relation`, source, target, keywords, description: source and
target non-empty and different). The format has no weight (None: no fallback to count). Several
records run together on one line are split as LightRAG does; its repair of mangled delimiters
(`fix_tuple_delimiter_corruption`) is not modelled.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.cache_audit.entry import EngineCounts, EngineReading

GRAPHRAG_TUPLE = "<|>"
GRAPHRAG_RECORD = "##"
COMPLETION = "<|COMPLETE|>"
LIGHTRAG_TUPLE = "<|#|>"

_PARENS = re.compile(r"^\(|\)$")
_LIGHTRAG_FLOAT = re.compile(r"^[-+]?[0-9]*\.?[0-9]+$")
_OUTER_PARENS = re.compile(r"\((.*)\)", re.S)
_BAD_TYPE_CHARS = set("'()<>|/\\")


def _graphrag_records(text: str, tuple_delimiter: str, record_delimiter: str) -> list[list[str]]:
    return [_PARENS.sub("", r.strip()).split(tuple_delimiter) for r in text.split(record_delimiter)]


def _float_weight(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


_RECORD_START = re.compile(r'\(\s*"?(entity|relationship)"?\s*')


def _drop_reason(attrs: list[str], record: str, tuple_delimiter: str, completion_delimiter: str) -> str | None:
    """Why GraphRAG reads nothing from a record that holds one (None: no record in it)."""
    tag = attrs[0]
    if tag == '"entity"':
        return f"entity with {len(attrs)} fields (GraphRAG needs 4)"
    if tag == '"relationship"':
        return f"relationship with {len(attrs)} fields (GraphRAG needs 5)"
    start = _RECORD_START.search(record)
    if start is None and tag.strip().strip('"').lower() not in ("entity", "relationship"):
        return None
    if tag.startswith(completion_delimiter):
        return f"record glued after {completion_delimiter} (answers joined before parsing)"
    if start is not None and start.start() > 0:
        return "text before the record (a fence, prose or markdown) hides its tag"
    return 'tag not exactly "entity" or "relationship"'


def graphrag_reading(
    text: str,
    version: str = "graphrag-3.x",
    tuple_delimiter: str = GRAPHRAG_TUPLE,
    record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineReading:
    """What GraphRAG `version` (graphrag-0.x, -1.x, -2.x, -3.x) keeps from one text (an answer, or
    a conversation's answers glued as the engine glues them), and why it reads nothing from the
    records it drops: one reason per record lost, a record run into the one before it (no record
    delimiter between them) counted as lost with that reason."""
    reading = EngineReading()
    for raw in text.split(record_delimiter):
        record = _PARENS.sub("", raw.strip())
        attrs = record.split(tuple_delimiter)
        if version == "graphrag-3.x" and (attrs == [""] or attrs == [completion_delimiter]):
            continue
        kept = False
        if attrs[0] == '"entity"' and len(attrs) >= 4:
            reading.entities += 1
            kept = True
        if attrs[0] == '"relationship"' and len(attrs) >= 5:
            reading.relationships += 1
            kept = True
            if version == "graphrag-0.x" or not _float_weight(attrs[-1]):
                reading.weight_fallbacks += 1
        if not kept:
            reason = _drop_reason(attrs, record, tuple_delimiter, completion_delimiter)
            if reason is not None:
                reading.lose(reason)
        # records after the first in one piece: the engine read them as a field of the first
        starts = [m.start() for m in _RECORD_START.finditer(raw)]
        for before, start in zip(starts, starts[1:]):
            if completion_delimiter in raw[before:start]:
                reading.lose(f"record glued after {completion_delimiter} (answers joined before parsing)")
            else:
                reading.lose(f"record not separated by {record_delimiter!r} (read into the record before it)")
    return reading


def graphrag_counts(
    text: str,
    version: str = "graphrag-3.x",
    tuple_delimiter: str = GRAPHRAG_TUPLE,
    record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineCounts:
    """What GraphRAG `version` (graphrag-0.x, -1.x, -2.x, -3.x) keeps from one answer."""
    return graphrag_reading(text, version, tuple_delimiter, record_delimiter, completion_delimiter).counts()


def _split_markers(text: str, markers: list[str]) -> list[str]:
    """LightRAG's split_string_by_multi_markers: split on any marker, strip, drop empty parts."""
    parts = re.split("|".join(re.escape(m) for m in markers if m), text) if any(markers) else [text]
    return [p.strip() for p in parts if p.strip()]


def _clean(value: str) -> str:
    return value.strip().strip('"').strip("'").strip()


def lightrag_legacy_counts(
    text: str, tuple_delimiter: str = GRAPHRAG_TUPLE, record_delimiter: str = GRAPHRAG_RECORD,
    completion_delimiter: str = COMPLETION,
) -> EngineCounts:
    """LightRAG up to 1.4.7 (GraphRAG-style tuples with keywords and a strength)."""
    entities = relationships = fallbacks = 0
    for record in _split_markers(text, [record_delimiter, completion_delimiter]):
        match = _OUTER_PARENS.search(record)
        if match is None:
            continue
        attrs = _split_markers(match.group(1), [tuple_delimiter])
        if len(attrs) >= 4 and attrs[0] == '"entity"' and attrs[1].upper().strip():
            entities += 1
        elif len(attrs) >= 5 and attrs[0] == '"relationship"':
            relationships += 1
            if not _LIGHTRAG_FLOAT.match(attrs[-1]):
                fallbacks += 1
    return EngineCounts(entities, relationships, fallbacks)


def _lightrag_lines(text: str, td: str, completion_delimiter: str) -> list[str]:
    out: list[str] = []
    for line in _split_markers(text, ["\n", completion_delimiter, completion_delimiter.lower()]):
        for part in re.split(f"(?={re.escape(td)}(?:entity|relationship|relation){re.escape(td)})", line):
            part = part.strip()
            if part.startswith(td):
                part = part[len(td):]
            if part:
                out.append(part)
    return out


def lightrag_counts(text: str, tuple_delimiter: str = LIGHTRAG_TUPLE, completion_delimiter: str = COMPLETION) -> EngineCounts:
    """LightRAG from 1.4.8 (`entity<|#|>name<|#|>type<|#|>description`, one record a line)."""
    entities = relationships = 0
    for record in _lightrag_lines(text, tuple_delimiter, completion_delimiter):
        attrs = _split_markers(record, [tuple_delimiter])
        if len(attrs) == 4 and "entity" in attrs[0]:
            name, kind, description = (_clean(a) for a in attrs[1:])
            if name and kind and not (set(kind) & _BAD_TYPE_CHARS) and description:
                entities += 1
            continue
        if len(attrs) == 5 and "relation" in attrs[0]:
            source, target = _clean(attrs[1]), _clean(attrs[2])
            if source and target and source != target:
                relationships += 1
    return EngineCounts(entities, relationships, None)


def engine_parser(engine: str, answer: str) -> tuple[str, Callable[[str], EngineCounts]]:
    """The name and counting function of `engine`'s extraction parser for this answer (LightRAG:
    the 1.4.8+ parser when the answer uses `<|#|>`, else the older one; LlamaIndex: the dynamic
    extractor's parser for JSON-like answers, the simple one's otherwise)."""
    if engine == "llamaindex":
        extractor = llamaindex_extractor(answer)
        return f"llamaindex-{extractor}", lambda text: llamaindex_counts(text, extractor)
    if engine == "lightrag":
        if LIGHTRAG_TUPLE in answer:
            return "lightrag>=1.4.8", lightrag_counts
        return "lightrag<=1.4.7", lightrag_legacy_counts
    return engine, lambda text: graphrag_counts(text, engine)


def parser_of_version(engine: str) -> str | None:
    """The parser above that the engine release a suite names runs (`engine:` of a suite, read by
    engine_names): graphrag-0.x for 0.1-0.3.1, graphrag-1.x for 0.3.2-1.x, graphrag-2.x,
    graphrag-3.x; lightrag<=1.4.7 or lightrag>=1.4.8, or plain `lightrag` (chosen per answer, as
    the audit does). None for a name the harness does not model."""
    from ..engine_names import parse_engine_name
    from ..errors import InputError

    try:
        release = parse_engine_name(engine)
    except InputError:
        return None
    version = release.version
    if release.engine == "lightrag":
        return "lightrag" if version is None else "lightrag>=1.4.8" if version >= (1, 4, 8) else "lightrag<=1.4.7"
    assert version is not None
    if version[0] == 0:
        return "graphrag-0.x" if version < (0, 3, 2) else "graphrag-1.x"
    return f"graphrag-{version[0]}.x"


# ---------------------------------------------------------------- LlamaIndex
# LlamaIndex's property-graph extractors (llama-index-core 0.14, MIT; checked against its own output
# in tests/fixtures/engine_captures/llamaindex-0.14.25/parsed.json):
# - SimpleLLMPathExtractor: default_parse_triplets_fn (indices/property_graph/utils.py): per line,
#   the text between the first `(` and the first `)` (skipped when either is missing or `)` comes
#   first), split on every comma: exactly three parts, none over 128 UTF-8 bytes, none empty once
#   stripped; each part stripped, its double quotes stripped and `str.capitalize`d.
# - DynamicLLMPathExtractor: default_parse_dynamic_triplets: `json.loads`; from a list, the items
#   with a truthy head, head_type, relation, tail and tail_type; on a JSON syntax error a regex that
#   takes the five keys in that order with any of `{"'` around keys and values (a stray `],` does
#   not stop it). A JSON object (not a list) makes it raise, and the extractor keeps nothing.
#   The props variant's regex also needs head_props, relation_props and tail_props.
LLAMAINDEX_MAX_PART_BYTES = 128
# the two regexes as LlamaIndex writes them
_DYNAMIC = re.compile(r'[\{"\']head[\}"\']\s*:\s*[\{"\'](.*?)[\}"\'],\s*[\{"\']head_type[\}"\']\s*:\s*[\{"\'](.*?)[\}"\'],\s*[\{"\']relation[\}"\']\s*:\s*[\{"\'](.*?)[\}"\'],\s*[\{"\']tail[\}"\']\s*:\s*[\{"\'](.*?)[\}"\'],\s*[\{"\']tail_type[\}"\']\s*:\s*[\{"\'](.*?)[\}"\']')
_DYNAMIC_PROPS = re.compile(r'[\{"\']head[\}"\']\s*:\s*[\{"\'](.*?)[\}"\']\s*,\s*[\{"\']head_type[\}"\']\s*:\s*[\{"\'](.*?)[\}"\']\s*,\s*[\{"\']head_props[\}"\']\s*:\s*\{(.*?)\}\s*,\s*[\{"\']relation[\}"\']\s*:\s*[\{"\'](.*?)[\}"\']\s*,\s*[\{"\']relation_props[\}"\']\s*:\s*\{(.*?)\}\s*,\s*[\{"\']tail[\}"\']\s*:\s*[\{"\'](.*?)[\}"\']\s*,\s*[\{"\']tail_type[\}"\']\s*:\s*[\{"\'](.*?)[\}"\']\s*,\s*[\{"\']tail_props[\}"\']\s*:\s*\{(.*?)\}\s*')
LlamaTriple = tuple[str, str, str]
TypedTriple = tuple[str, str, str, str, str]  # head, head_type, relation, tail, tail_type


class EngineParseError(ValueError):
    """The engine's parser raised on this answer: the extractor keeps nothing from it."""


def llamaindex_triplets(text: str, max_length: int = LLAMAINDEX_MAX_PART_BYTES) -> list[LlamaTriple]:
    """The triples default_parse_triplets_fn (SimpleLLMPathExtractor) keeps, as it writes them."""
    kept: list[LlamaTriple] = []
    for line in text.strip().split("\n"):
        if "(" not in line or ")" not in line or line.index(")") < line.index("("):
            continue
        tokens = line[line.index("(") + 1: line.index(")")].split(",")
        if len(tokens) != 3 or any(len(t.encode("utf-8")) > max_length for t in tokens):
            continue
        parts = [t.strip() for t in tokens]
        if all(parts):
            subject, predicate, obj = (p.strip('"').capitalize() for p in parts)
            kept.append((subject, predicate, obj))
    return kept


def llamaindex_dynamic_triplets(text: str, props: bool = False) -> list[TypedTriple]:
    """The typed triples default_parse_dynamic_triplets (or its `_with_props` variant) keeps;
    EngineParseError where it raises (DynamicLLMPathExtractor then keeps nothing)."""
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        if props:
            return [(m[0], m[1], m[3], m[5], m[6]) for m in _DYNAMIC_PROPS.findall(text)]
        return [tuple(m) for m in _DYNAMIC.findall(text)]  # type: ignore[misc]
    except (ValueError, RecursionError) as exc:  # a number past Python's int limit, nesting past its stack:
        raise EngineParseError("the answer is JSON the engine's json.loads raises on") from exc  # raised there too
    kept: list[TypedTriple] = []
    try:
        for item in data:
            values = tuple(item.get(key) for key in ("head", "head_type", "relation", "tail", "tail_type"))
            if all(values):
                kept.append(values)  # type: ignore[arg-type]
    except (AttributeError, TypeError) as exc:
        raise EngineParseError("the answer is JSON but not a list of objects") from exc
    return kept


def llamaindex_counts(text: str, extractor: str = "simple") -> EngineCounts:
    """Entities (distinct names) and relationships LlamaIndex's `extractor` (simple, dynamic,
    dynamic_props) keeps from one answer; nothing when its parser raises."""
    try:
        if extractor == "simple":
            triples = [(s, o) for s, _, o in llamaindex_triplets(text)]
        else:
            triples = [(t[0], t[3]) for t in llamaindex_dynamic_triplets(text, props=extractor == "dynamic_props")]
    except EngineParseError:
        return EngineCounts(0, 0, None)
    return EngineCounts(len({name for pair in triples for name in pair}), len(triples), None)


def llamaindex_extractor(answer: str) -> str:
    """Which extractor's parser an answer is read with: the dynamic one for JSON-like answers
    (a `head` key), the simple one otherwise."""
    return "dynamic" if re.search(r"[\"']head[\"']\s*:", answer) else "simple"
