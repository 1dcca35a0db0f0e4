"""Triples written as JSON, in the shapes pipelines ask for:

- `[["subject", "predicate", "object"], ...]`;
- `[{"subject": ..., "predicate" | "relation": ..., "object": ...}]`;
- LlamaIndex's DynamicLLMPathExtractor: `[{"head", "head_type", "relation", "tail", "tail_type"}]`
  (optional `head_props`, `relation_props`, `tail_props`, ignored; also written the Python way,
  with single quotes, which the JSON repair reads);
- LlamaIndex's SchemaLLMPathExtractor: `{"triplets": [{"subject": {"name", "type"},
  "relation": {"type"}, "object": {"name", "type"}}]}`.

A list may also sit under `triplets`, `triples`, `relations` or `relationships`. An item that is
not a triple is dropped (`triple-parts` for a list of another length, `json-item-invalid` for
anything else; `triple-part-empty` for an empty part).
"""

from __future__ import annotations

import json
from typing import Any

from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import Loaded, load_json
from harness.parsing.triples import Triple, TripleSink, is_note

SUBJECT_KEYS = ("subject", "head", "sub", "subj", "s", "source")
PREDICATE_KEYS = ("predicate", "relation", "rel", "relationship", "relation_type", "p", "type")
OBJECT_KEYS = ("object", "tail", "obj", "o", "target")
SUBJECT_TYPE_KEYS = ("subject_type", "head_type", "sub_type", "source_type")
OBJECT_TYPE_KEYS = ("object_type", "tail_type", "obj_type", "target_type")
LIST_KEYS = ("triplets", "triples", "relations", "relationships", "edges", "results", "output")
_MAX_DEPTH = 4


def _get(item: dict[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {str(k).lower(): v for k, v in item.items()}
    for key in keys:
        if lowered.get(key) is not None:
            return lowered[key]
    return None


def _name_and_type(value: Any) -> tuple[str, str]:
    """A part as a string, or a schema node `{"name": ..., "type": ...}` (LlamaIndex calls the
    type `label`); a relation node `{"type": ...}` has no name: its type is the predicate."""
    if isinstance(value, dict):
        name = _get(value, ("name", "id", "value", "text"))
        kind = _string(_get(value, ("type", "label")))
        if name is None:
            return kind, ""
        return _string(name), kind
    return _string(value), ""


def _string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return json.dumps(value)
    return ""


def _short(item: Any) -> str:
    try:
        return json.dumps(item, ensure_ascii=False, default=str)[:300]
    except (RecursionError, ValueError, TypeError):
        return "<unprintable item>"


def triple_items(value: Any, depth: int = 0) -> list[Any]:
    """The items of a loaded value that should each be a triple."""
    if depth > _MAX_DEPTH:
        return [value]
    if isinstance(value, dict):
        lowered = {str(k).lower(): v for k, v in value.items()}
        for key in LIST_KEYS:
            if isinstance(lowered.get(key), list):
                return triple_items(lowered[key], depth + 1)
        return [value]
    if isinstance(value, list):
        if _is_flat_triple(value):
            return [value]
        items: list[Any] = []
        for item in value:
            if isinstance(item, dict) and any(isinstance(item.get(k), list) for k in LIST_KEYS):
                items += triple_items(item, depth + 1)  # glued answers: several {"triplets": [...]}
            else:
                items.append(item)
        return items
    return [value]


def _is_flat_triple(value: list[Any]) -> bool:
    return len(value) == 3 and all(isinstance(v, str) for v in value)


def read_triple_item(item: Any, sink: TripleSink, log: IssueLog) -> None:
    """One item: a list of three strings or a dict with a subject, a predicate and an object."""
    snippet = _short(item)
    if isinstance(item, list):
        if len(item) == 3 and all(isinstance(v, (str, int, float)) for v in item):
            sink.keep(Triple(*(_string(v) for v in item)), snippet, log)
        elif all(isinstance(v, (str, int, float)) for v in item):
            sink.drop("triple-parts", snippet, log,
                      f"A JSON triple had {len(item)} parts instead of subject, predicate, object; it was dropped.")
        else:
            sink.drop("json-item-invalid", snippet, log)
        return
    if not isinstance(item, dict):
        sink.drop("json-item-invalid", snippet, log)
        return
    raw_subject, raw_predicate, raw_object = _get(item, SUBJECT_KEYS), _get(item, PREDICATE_KEYS), _get(item, OBJECT_KEYS)
    if raw_subject is None and raw_predicate is None and raw_object is None:
        sink.drop("json-item-invalid", snippet, log)
        return
    subject, subject_type = _name_and_type(raw_subject)
    predicate, _ = _name_and_type(raw_predicate)
    obj, object_type = _name_and_type(raw_object)
    subject_type = _string(_get(item, SUBJECT_TYPE_KEYS)) or subject_type
    object_type = _string(_get(item, OBJECT_TYPE_KEYS)) or object_type
    sink.keep(Triple(subject, predicate, obj, subject_type, object_type), snippet, log)


def parse_json_triples(text: str, sink: TripleSink, log: IssueLog) -> Loaded | None:
    """Read every triple of the first JSON value in `text` (repaired if it must be)."""
    dropped_before = log.dropped_count
    loaded = load_json(text, log)
    sink.records.seen += log.dropped_count - dropped_before  # values load_json could not read
    if loaded is None:
        sink.drop("json-invalid", text, log)
        return None
    if loaded.before:
        log.note("preamble", loaded.before)
    if loaded.after:
        log.note("note-paragraph" if is_note(loaded.after) else "closing-note", loaded.after)
    items = triple_items(loaded.value)
    if not items or items == [{}]:
        log.note("no-triples", text)  # `[]`, `{"triplets": []}`: a valid answer that found nothing
    for item in items if items != [{}] else []:
        read_triple_item(item, sink, log)
    return loaded
