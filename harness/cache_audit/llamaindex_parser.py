"""LlamaIndex's property-graph extractors (llama-index-core 0.14, MIT; checked against its own output
in tests/fixtures/engine_captures/llamaindex-0.14.25/parsed.json):
- SimpleLLMPathExtractor: default_parse_triplets_fn (indices/property_graph/utils.py): per line,
  the text between the first `(` and the first `)` (skipped when either is missing or `)` comes
  first), split on every comma: exactly three parts, none over 128 UTF-8 bytes, none empty once
  stripped; each part stripped, its double quotes stripped and `str.capitalize`d.
- DynamicLLMPathExtractor: default_parse_dynamic_triplets: `json.loads`; from a list, the items
  with a truthy head, head_type, relation, tail and tail_type; on a JSON syntax error a regex that
  takes the five keys in that order with any of `{"'` around keys and values (a stray `],` does
  not stop it). A JSON object (not a list) makes it raise, and the extractor keeps nothing.
  The props variant's regex also needs head_props, relation_props and tail_props.

The graph (`llamaindex_graph`): the kept triples as the property-graph store keeps them
(SimplePropertyGraphStore): one node per name (its id: the name with `"` as a space; the
dynamic extractors' type, the last one given), one relation per distinct (subject, relation,
object) triple; no descriptions, no weights.
"""

from __future__ import annotations

import json
import re

from harness.cache_audit.engine_graph import EngineGraph, KeptEntity, KeptRelationship
from harness.cache_audit.entry import EngineCounts, EngineReading

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
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        if props:
            return [(m[0], m[1], m[3], m[5], m[6]) for m in _DYNAMIC_PROPS.findall(text)]
        return [tuple(m) for m in _DYNAMIC.findall(text)]
    except (ValueError, RecursionError) as exc:  # a number past Python's int limit, nesting past its stack:
        raise EngineParseError("the answer is JSON the engine's json.loads raises on") from exc  # raised there too
    kept: list[TypedTriple] = []
    try:
        for item in data:
            values = tuple(item.get(key) for key in ("head", "head_type", "relation", "tail", "tail_type"))
            if all(values):
                kept.append(values)
    except (AttributeError, TypeError) as exc:
        raise EngineParseError("the answer is JSON but not a list of objects") from exc
    return kept


def llamaindex_counts(text: str, extractor: str = "simple") -> EngineCounts:
    """Entities (distinct names) and relationships LlamaIndex's `extractor` (simple, dynamic,
    dynamic_props) keeps from one answer; nothing when its parser raises."""
    return llamaindex_graph([text], extractor).counts()


def llamaindex_extractor(answer: str) -> str:
    """Which extractor's parser an answer is read with: the dynamic one for JSON-like answers
    (a `head` key), the simple one otherwise."""
    return "dynamic" if re.search(r"[\"']head[\"']\s*:", answer) else "simple"


def llamaindex_graph(answers: list[str], extractor: str | None = None) -> EngineGraph:
    """The graph LlamaIndex's `extractor` (simple, dynamic, dynamic_props; None: chosen per
    answer as `llamaindex_extractor` does) builds from a case's answers: each answer read on its
    own (LlamaIndex does not glean), the triples stored as SimplePropertyGraphStore stores them.
    An answer its parser raises on keeps nothing, counted as lost."""
    reading = EngineReading()
    nodes: dict[str, KeptEntity] = {}
    triples: dict[tuple[str, str, str], KeptRelationship] = {}
    names: list[str] = []  # the extractor each answer was read with
    for answer in answers:
        chosen = extractor or llamaindex_extractor(answer)
        names.append(chosen)
        try:
            if chosen == "simple":
                typed = [(s, "", p, o, "") for s, p, o in llamaindex_triplets(answer)]
            else:
                typed = llamaindex_dynamic_triplets(answer, props=chosen == "dynamic_props")
        except EngineParseError:
            reading.lose("JSON that is not a list of triples (the dynamic extractor's parser raises)")
            continue
        reading.entities += len({name for t in typed for name in (t[0], t[3])})
        reading.relationships += len(typed)
        for head, head_type, relation, tail, tail_type in typed:
            for name, kind in ((head, head_type), (tail, tail_type)):
                key = name.replace('"', " ")
                node = nodes.setdefault(key, KeptEntity(key, kind))
                node.type = kind or node.type
            source, target = head.replace('"', " "), tail.replace('"', " ")
            triples.setdefault((source, relation, target), KeptRelationship(source, target, predicate=relation))
    used = sorted(set(names))
    parser = f"llamaindex-{extractor or '/'.join(used) or 'simple'}"
    return EngineGraph(parser=parser, entities=list(nodes.values()), relationships=list(triples.values()),
                       reading=reading, weighted=False)
