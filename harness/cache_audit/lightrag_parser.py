"""What LightRAG's own extraction parser keeps from a chunk's answers and the graph it builds of
them, modelled on operate.py and utils.py of three releases (MIT licensed; the text helpers below
are ported from them line by line) and checked against their output in
tests/fixtures/engine_parsing/lightrag-*.json (scripts/capture_lightrag_parsing.py):

- `lightrag<=1.4.7`, as 1.4.6 reads (GraphRAG-style tuples): the answer with `<think>` stripped,
  split on the record and completion delimiters; in each piece the text between the first `(`
  and the last `)` of one line, split on `<|>` with empty fields dropped; an entity needs 4
  fields or more, `"entity"` in the tag, a name, a type not starting `("` and a description; a
  relationship 5 or more, `"relationship"` in the tag, two different names; names are cleaned
  (HTML, control characters) and normalised (`normalize_extracted_info`: CJK spacing, quotes
  around the name), never upper-cased; the weight is the last field when it is a number, else
  1.0. A gleaning adds only names (and ordered name pairs) the answers before it did not have.
- `lightrag>=1.4.8`, as 1.4.9.11 reads: one record a line (split on new lines and the completion
  delimiter), records run together on one line split at `<|#|>entity<|#|>` and
  `<|#|>relation<|#|>` (a piece after an entity split is prefixed `entity<|`, as LightRAG does),
  mangled delimiters repaired (`fix_tuple_delimiter_corruption`), split on `<|#|>`; an entity has
  exactly 4 fields (name, a type free of `'()<>|/\\`, lower-cased and without spaces, a
  description), a relation exactly 5 (two different names, keywords, description); text is
  sanitised (`sanitize_and_normalize_extracted_text`); names longer than 256 characters are cut.
  One gleaning at most (answers after it are never asked for: their records are lost); a
  gleaning's record replaces an earlier one of the same name (or ordered pair) only when its
  description is longer.
- `lightrag>=1.5`, as 1.5.7 reads: the same, and an entity-tagged record of 5 fields is read as a
  relation, a type with commas is its first non-empty part, a relation needs a description,
  names are also cut at 512 UTF-8 bytes; weights are 1.0.

The graph (`merge_nodes_and_edges`): one node per name, its type the most frequent of its
records; one edge per unordered pair (stored sorted), weights added, keywords joined; an
endpoint no entity names becomes a node of type `UNKNOWN` with an edge's description (the first
edge's here; in LightRAG whichever of its concurrent edge tasks adds the node last). In
1.4.8-1.4.x a relation whose descriptions are all empty makes the merge raise: the document
fails and nothing of it is stored. Merged
descriptions are kept as fragments (LightRAG joins them with `<SEP>` and summarises many with an
LLM call the model does not make). The JSON extraction mode of 1.5 (`entity_extraction_use_json`,
off by default) is not modelled.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TypeVar

from harness.cache_audit.engine_graph import EngineGraph, KeptEntity, KeptRelationship, add_description
from harness.cache_audit.entry import EngineReading

LEGACY = "lightrag<=1.4.7"
LINES = "lightrag>=1.4.8"
LINES_15 = "lightrag>=1.5"
PARSERS = (LEGACY, LINES, LINES_15)
BEYOND_GLEANING = "record of an answer after the one gleaning LightRAG 1.4.8 and later make (never asked for)"
MERGE_RAISES = ("record of a document whose merge failed (LightRAG 1.4.8+ before 1.5: a relation with no "
                "description raises ValueError; nothing of the document is stored)")
LIGHTRAG_TUPLE = "<|#|>"
LEGACY_TUPLE = "<|>"
LEGACY_RECORD = "##"
COMPLETION = "<|COMPLETE|>"
NAME_MAX_LENGTH = 256
NAME_MAX_BYTES = 512  # 1.5
_FLOAT = re.compile(r"^[-+]?[0-9]*\.?[0-9]+$")
_CONTROL_146 = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CJK = "\u4e00-\u9fa5"
_BAD_TYPE_CHARS = ("'", "(", ")", "<", ">", "|", "/", "\\")
_RESERVED_TYPES = frozenset({"__proto__", "constructor", "prototype"})


def parser_of_release(version: tuple[int, ...]) -> str:
    """The parser a LightRAG release runs (its line format arrived in 1.4.8)."""
    if version < (1, 4, 8):
        return LEGACY
    return LINES if version < (1, 5) else LINES_15


def split_markers(content: str, markers: list[str]) -> list[str]:
    """split_string_by_multi_markers: split on any marker, strip, drop empty parts."""
    if not markers:
        return [content]
    parts = re.split("|".join(re.escape(m) for m in markers), content)
    return [p.strip() for p in parts if p.strip()]


def _think_stripped(text: str, parser: str) -> str:
    """remove_think_tags, applied to every answer (and stripping it)."""
    if parser == LEGACY:
        return re.sub(r"^(<think>.*?</think>|<think>)", "", text, flags=re.DOTALL).strip()
    if parser == LINES:
        return re.sub(r"^(<think>.*?</think>|.*</think>)", "", text, flags=re.DOTALL).strip()
    text = re.sub(r"^((?!<think>).)*?</think>", "", text, flags=re.DOTALL)
    return re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL).strip()


# ---------------------------------------------------------------- text helpers (ported)


def _clean_str(value: str) -> str:
    return _CONTROL_146.sub("", html.unescape(value.strip()))


def _normalize_146(name: str, is_entity: bool = False) -> str:
    """normalize_extracted_info as 1.4.6 has it."""
    name = name.replace("（", "(").replace("）", ")").replace("—", "-").replace("－", "-")
    name = re.sub(f"(?<=[{_CJK}])\\s+(?=[{_CJK}])", "", name)
    name = re.sub(f"(?<=[{_CJK}])\\s+(?=[a-zA-Z0-9\\(\\)\\[\\]@#$%!&\\*\\-=+_])", "", name)
    name = re.sub(f"(?<=[a-zA-Z0-9\\(\\)\\[\\]@#$%!&\\*\\-=+_])\\s+(?=[{_CJK}])", "", name)
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    if len(name) >= 2 and name.startswith("'") and name.endswith("'"):
        name = name[1:-1]
    if is_entity:
        name = name.replace("“", "").replace("”", "").replace("‘", "").replace("’", "")
        name = re.sub(f"['\"]+(?=[{_CJK}])", "", name)
        name = re.sub(f"(?<=[{_CJK}])['\"]+", "", name)
    return name


_FULL_WIDTH = str.maketrans(
    "ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ０１２３４５６７８９",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _strip_pair(name: str, left: str, right: str) -> str:
    if name.startswith(left) and name.endswith(right):
        inner = name[1:-1]
        if left not in inner and right not in inner:
            return inner
    return name


def _normalize(name: str, remove_inner_quotes: bool = False) -> str:
    """normalize_extracted_info as 1.4.9.11 and 1.5.7 have it."""
    name = re.sub(r"</p\s*>|<p\s*>|<p/>", "", name, flags=re.IGNORECASE)
    name = re.sub(r"</br\s*>|<br\s*>|<br/>", "", name, flags=re.IGNORECASE)
    name = name.translate(_FULL_WIDTH)
    name = name.replace("－", "-").replace("＋", "+").replace("／", "/").replace("＊", "*")
    name = name.replace("（", "(").replace("）", ")").replace("—", "-").replace("－", "-").replace("　", " ")
    name = re.sub(f"(?<=[{_CJK}])\\s+(?=[{_CJK}])", "", name)
    name = re.sub(f"(?<=[{_CJK}])\\s+(?=[a-zA-Z0-9\\(\\)\\[\\]@#$%!&\\*\\-=+_])", "", name)
    name = re.sub(f"(?<=[a-zA-Z0-9\\(\\)\\[\\]@#$%!&\\*\\-=+_])\\s+(?=[{_CJK}])", "", name)
    if len(name) >= 2:
        for left, right in (('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("《", "》")):
            name = _strip_pair(name, left, right)
    if remove_inner_quotes:
        name = name.replace("“", "").replace("”", "").replace("‘", "").replace("’", "")
        name = re.sub(f"['\"]+(?=[{_CJK}])", "", name)
        name = re.sub(f"(?<=[{_CJK}])['\"]+", "", name)
        name = name.replace("\u00a0", " ")
        name = re.sub(r"(?<=[^\d])\u202F", " ", name)
    name = name.strip()
    if len(name) < 3 and re.match(r"^[0-9]+$", name):
        return ""
    if len(name) < 6 and all(c.isdigit() or c == "." for c in name) and "." in name:
        return ""
    return name


def _sanitize(text: str, parser: str) -> str:
    """sanitize_text_for_encoding (1.4.9.11 raises ValueError on a surrogate: the record is dropped)."""
    if not text:
        return text
    text = text.strip()
    if not text:
        return text
    if parser == LINES:
        text.encode("utf-8")  # UnicodeEncodeError (a ValueError) on a lone surrogate, as LightRAG's own check
        text = re.sub(r"[\uFFFE\uFFFF]", "", text)
        text = re.sub(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]", "", text)
        text = html.unescape(text)
        return re.sub(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]", "", text).strip()
    text = html.unescape(text)
    text = re.sub(r"[\uD800-\uDFFF\uFFFE\uFFFF]", "", text)
    return re.sub(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]", "", text).strip()


def _sanitize_normalize(text: str, parser: str, remove_inner_quotes: bool = False) -> str:
    safe = _sanitize(text, parser)
    return _normalize(safe, remove_inner_quotes) if safe else ""


def fix_delimiter_corruption(record: str, core: str, tuple_delimiter: str, parser: str) -> str:
    """fix_tuple_delimiter_corruption (1.5 leaves `<|>` and `<||` in free text alone)."""
    if not record or not core or not tuple_delimiter:
        return record
    c = re.escape(core)
    glued = parser == LINES_15
    record = re.sub(rf"<\|{c}\|*?{c}\|>", tuple_delimiter, record)
    record = re.sub(rf"<\|\\{c}\|>", tuple_delimiter, record)
    record = re.sub(r"(?<=\S)<\|+>(?=\S)" if glued else r"<\|+>", tuple_delimiter, record)
    record = re.sub(rf"<.?\|{c}\|.?>", tuple_delimiter, record)
    record = re.sub(rf"<\|?{c}\|?>", tuple_delimiter, record)
    record = re.sub(rf"<[^|]{c}\|>|<\|{c}[^|]>", tuple_delimiter, record)
    record = re.sub(rf"<\|{c}\|+(?!>)", tuple_delimiter, record)
    record = re.sub(rf"<\|{c}:(?!>)", tuple_delimiter, record)
    record = re.sub(rf"<\|+{c}>", tuple_delimiter, record)
    record = re.sub(r"(?<=\S)<\|\|(?!>)" if glued else r"<\|\|(?!>)", tuple_delimiter, record)
    record = re.sub(rf"(?<!<)\|{c}\|>", tuple_delimiter, record)
    record = re.sub(rf"<\|{c}\|>\|", tuple_delimiter, record)
    return re.sub(rf"\|\|{c}\|\|", tuple_delimiter, record)


def _truncate(name: str, parser: str) -> str:
    if parser == LEGACY:
        return name
    cut = name[:NAME_MAX_LENGTH]
    if parser == LINES_15 and len(cut.encode("utf-8")) > NAME_MAX_BYTES:
        cut = cut.encode("utf-8")[:NAME_MAX_BYTES].decode("utf-8", errors="ignore")
    return cut


# ---------------------------------------------------------------- records


@dataclass(slots=True)
class _Entity:
    name: str
    type: str
    description: str


@dataclass(slots=True)
class _Relation:
    source: str
    target: str
    description: str
    keywords: str
    weight: float


_K = TypeVar("_K", str, tuple[str, str])  # an entity's name, a relation's (source, target)
_R = TypeVar("_R", _Entity, _Relation)


@dataclass(slots=True)
class _Answer:
    """One answer's records as LightRAG keeps them per chunk: name -> entities, (source, target) -> relations."""

    nodes: dict[str, list[_Entity]] = field(default_factory=dict)
    edges: dict[tuple[str, str], list[_Relation]] = field(default_factory=dict)


def _legacy_entity(attrs: list[str]) -> _Entity | str | None:
    """_handle_single_entity_extraction of 1.4.6: the entity, a reason it was dropped, or None (no entity tag)."""
    if '"entity"' not in attrs[0]:
        return None
    if len(attrs) < 4:
        return f"entity with {len(attrs)} fields (LightRAG needs 4)"
    name = _clean_str(attrs[1]).strip()
    name = _normalize_146(name, is_entity=True) if name else ""
    if not name.strip():
        return "entity without a name"
    kind = _clean_str(attrs[2]).strip('"')
    if not kind.strip() or kind.startswith('("'):
        return "entity with an invalid type"
    description = _normalize_146(_clean_str(attrs[3]))
    if not description.strip():
        return "entity without a description"
    return _Entity(name, kind, description)


def _legacy_relation(attrs: list[str]) -> _Relation | str | None:
    if '"relationship"' not in attrs[0]:
        return None
    if len(attrs) < 5:
        return f"relationship with {len(attrs)} fields (LightRAG needs 5)"
    source = _normalize_146(_clean_str(attrs[1]), is_entity=True)
    target = _normalize_146(_clean_str(attrs[2]), is_entity=True)
    if not source.strip() or not target.strip():
        return "relationship without a source or target name"
    if source == target:
        return "relationship from an entity to itself"
    description = _normalize_146(_clean_str(attrs[3]))
    keywords = _normalize_146(_clean_str(attrs[4]), is_entity=True).replace("，", ",")
    last = attrs[-1].strip('"').strip("'")
    return _Relation(source, target, description, keywords, float(last) if _FLOAT.match(last) else 1.0)


def _legacy_records(text: str, tuple_delimiter: str, record_delimiter: str, completion_delimiter: str) -> list[list[str]]:
    out = []
    for record in split_markers(text, [record_delimiter, completion_delimiter]):
        match = re.search(r"\((.*)\)", record)
        if match is not None:
            out.append(split_markers(match.group(1), [tuple_delimiter]))
    return out


def _line_records(text: str, tuple_delimiter: str, completion_delimiter: str, parser: str) -> list[list[str]]:
    """_process_extraction_result of 1.4.9.11 / 1.5.7 up to the split of each record into fields."""
    fixed: list[str] = []
    for record in split_markers(text, ["\n", completion_delimiter, completion_delimiter.lower()]):
        record = record.strip()
        for entity_record in split_markers(record, [f"{tuple_delimiter}entity{tuple_delimiter}"]):
            if not entity_record.startswith("entity") and not entity_record.startswith("relation"):
                entity_record = f"entity<|{entity_record}"
            for piece in split_markers(entity_record, [f"{tuple_delimiter}relationship{tuple_delimiter}",
                                                      f"{tuple_delimiter}relation{tuple_delimiter}"]):
                if not piece.startswith("entity") and not piece.startswith("relation"):
                    piece = f"relation{tuple_delimiter}{piece}"
                fixed.append(piece)
    core = tuple_delimiter[2:-2]
    out = []
    for record in fixed:
        record = fix_delimiter_corruption(record.strip(), core, tuple_delimiter, parser)
        if core != core.lower():
            record = fix_delimiter_corruption(record, core.lower(), tuple_delimiter, parser)
        attrs = split_markers(record, [tuple_delimiter])
        if parser == LINES_15 and len(attrs) == 5:
            prefix = attrs[0].strip().lower()
            if "entity" in prefix and "relation" not in prefix:
                attrs = ["relation", *attrs[1:]]
        out.append(attrs)
    return out


def _line_type(value: str, parser: str) -> str | None:
    kind = _sanitize_normalize(value, parser, remove_inner_quotes=True)
    if not kind.strip() or any(c in kind for c in _BAD_TYPE_CHARS):
        return None
    if parser == LINES_15 and "," in kind:
        parts = [t.strip() for t in kind.split(",") if t.strip()]
        if not parts:
            return None
        kind = parts[0]
    kind = kind.replace(" ", "").lower()
    return None if parser == LINES_15 and kind in _RESERVED_TYPES else kind


def _line_entity(attrs: list[str], parser: str) -> _Entity | str | None:
    if "entity" not in attrs[0]:
        return None
    if len(attrs) != 4:
        return f"entity with {len(attrs)} fields (LightRAG needs 4)"
    try:
        name = _sanitize_normalize(attrs[1], parser, remove_inner_quotes=True)
        if not name or not name.strip():
            return "entity without a name"
        kind = _line_type(attrs[2], parser)
        if kind is None:
            return "entity with an invalid type"
        description = _sanitize_normalize(attrs[3], parser)
    except ValueError:
        return "entity LightRAG cannot encode"
    if not description.strip():
        return "entity without a description"
    return _Entity(_truncate(name, parser), kind, description)


def _line_relation(attrs: list[str], parser: str) -> _Relation | str | None:
    if "relation" not in attrs[0]:
        return None
    if len(attrs) != 5:
        return f"relation with {len(attrs)} fields (LightRAG needs 5)"
    try:
        source = _sanitize_normalize(attrs[1], parser, remove_inner_quotes=True)
        target = _sanitize_normalize(attrs[2], parser, remove_inner_quotes=True)
        if not source or not target:
            return "relation without a source or target name"
        if source == target:
            return "relation from an entity to itself"
        keywords = _sanitize_normalize(attrs[3], parser, remove_inner_quotes=True).replace("，", ",")
        description = _sanitize_normalize(attrs[4], parser)
    except ValueError:
        return "relation LightRAG cannot encode"
    if parser == LINES_15 and not description.strip():
        return "relation without a description"
    last = attrs[-1].strip('"').strip("'")
    weight = 1.0 if parser == LINES_15 or not _FLOAT.match(last) else float(last)
    return _Relation(_truncate(source, parser), _truncate(target, parser), description, keywords, weight)


def _read_answer(text: str, parser: str, reading: EngineReading, tuple_delimiter: str, record_delimiter: str,
                 completion_delimiter: str) -> _Answer:
    text = _think_stripped(text, parser)
    answer = _Answer()
    if parser == LEGACY:
        records = _legacy_records(text, tuple_delimiter, record_delimiter, completion_delimiter)
        read_entity, read_relation = _legacy_entity, _legacy_relation
    else:
        records = _line_records(text, tuple_delimiter, completion_delimiter, parser)

        def read_entity(attrs: list[str]) -> _Entity | str | None:
            return _line_entity(attrs, parser)

        def read_relation(attrs: list[str]) -> _Relation | str | None:
            return _line_relation(attrs, parser)
    for attrs in records:
        if not attrs:
            continue
        entity = read_entity(attrs)
        if isinstance(entity, _Entity):
            reading.entities += 1
            answer.nodes.setdefault(entity.name, []).append(entity)
            continue
        relation = read_relation(attrs)
        if isinstance(relation, _Relation):
            reading.relationships += 1
            if parser == LEGACY and not _FLOAT.match(attrs[-1].strip('"').strip("'")):
                reading.weight_fallbacks += 1
            answer.edges.setdefault((relation.source, relation.target), []).append(relation)
            continue
        reason = entity if isinstance(entity, str) else relation
        if isinstance(reason, str):
            reading.lose(reason)
    return answer


def _glean(chunk: _Answer, gleaned: _Answer, parser: str) -> None:
    """A gleaning's records joined to the chunk's: 1.4.6 takes new names only; later releases
    also replace a record whose gleaned description is longer."""
    _join(chunk.nodes, gleaned.nodes, parser)
    _join(chunk.edges, gleaned.edges, parser)


def _join(table: dict[_K, list[_R]], more: dict[_K, list[_R]], parser: str) -> None:
    """One table of a gleaning's records joined to the chunk's (see _glean)."""
    for key, records in more.items():
        if key not in table:
            table[key] = list(records)
        elif parser != LEGACY and len(records[0].description) > len(table[key][0].description):
            table[key] = list(records)


def lightrag_graph(answers: list[str], parser: str, tuple_delimiter: str | None = None,
                   record_delimiter: str = LEGACY_RECORD, completion_delimiter: str = COMPLETION) -> EngineGraph:
    """The graph LightRAG (`parser`: one of PARSERS) builds from one chunk's answers: the first
    answer, then each gleaning joined to it as that release joins them, then merged into nodes
    and edges. The delimiters are the prompt's (`<|>` / `<|#|>` by default)."""
    td = tuple_delimiter or (LEGACY_TUPLE if parser == LEGACY else LIGHTRAG_TUPLE)
    reading = EngineReading()
    chunk = _Answer()
    if parser != LEGACY and len(answers) > 2:  # 1.4.8 and later glean once at most: never asked for more
        beyond = EngineReading()
        for text in answers[2:]:
            _read_answer(text, parser, beyond, td, record_delimiter, completion_delimiter)
        if beyond.entities + beyond.relationships:
            reading.lose(BEYOND_GLEANING, beyond.entities + beyond.relationships)
        answers = answers[:2]
    for index, text in enumerate(answers):
        answer = _read_answer(text, parser, reading, td, record_delimiter, completion_delimiter)
        if index == 0:
            chunk = answer
        else:
            _glean(chunk, answer, parser)
    entities: dict[str, KeptEntity] = {}
    for name, records in chunk.nodes.items():
        kinds = sorted(Counter(r.type for r in records).items(), key=lambda item: item[1], reverse=True)
        entity = entities[name] = KeptEntity(name, kinds[0][0])
        for record in records:
            add_description(entity.descriptions, record.description)
    edges: dict[tuple[str, str], KeptRelationship] = {}
    for key, relations in chunk.edges.items():
        pair = tuple(sorted(key))
        edge = edges.get(pair)  # type: ignore[arg-type]
        if edge is None:
            edge = edges[pair] = KeptRelationship(pair[0], pair[1], [], 0.0)  # type: ignore[index]
        for relation in relations:
            edge.weight = (edge.weight or 0.0) + relation.weight
            add_description(edge.descriptions, relation.description)
            for word in relation.keywords.split(","):
                if word.strip() and word.strip() not in edge.keywords:
                    edge.keywords.append(word.strip())
    if parser == LINES and any(not edge.descriptions for edge in edges.values()):
        # 1.4.9's _merge_edges_then_upsert raises ValueError on a relation with no description:
        # the document fails, and nothing of it is stored
        reading.lose(MERGE_RAISES, sum(len(records) for records in chunk.nodes.values())
                     + sum(len(relations) for relations in chunk.edges.values()))
        return EngineGraph(parser=parser, reading=reading, weighted=False)
    for edge in edges.values():
        edge.keywords.sort()
        for end in (edge.source, edge.target):
            if end not in entities:
                # the first edge naming it gives its description: LightRAG's concurrent edge tasks
                # race to add the node, so another of its edges may give it instead
                entities[end] = KeptEntity(end, "UNKNOWN", list(edge.descriptions), record=False)
    return EngineGraph(parser=parser, entities=list(entities.values()), relationships=list(edges.values()),
                       reading=reading, weighted=parser == LEGACY)
