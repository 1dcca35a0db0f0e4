"""Reference-free figures of one answer: what it says about itself and its chunk, no gold needed.

Every name goes through the scoring's own normalisation (`normalize.py`), so "grounded" here
counts exactly what `case_score`'s grounding counts. Definitions (also in docs/scoring.md,
"Reference-free figures"):

- Records: entity records with a blank name and relationship records with a blank endpoint
  are left out of everything, as scoring drops them.
- `entities`: distinct normalised entity names. `relationships`: distinct unordered pairs of
  normalised endpoints; a self-loop is not a relationship (it is counted in `self_loops`).
  Dangling edges count (GraphRAG makes nodes of their endpoints).
- `grounded`: distinct entities whose normalised name occurs in the normalised chunk as whole
  tokens (`occurs_in`); `ungrounded`: the others, named as first predicted, in order.
- `type_conformance`: entity records whose canonical type (through the synonyms) is the
  canonical form of a listed type, over entity records; None without a list or without records.
- `duplicate_records`: entity records beyond the first per normalised name.
- `type_conflicts`: normalised names predicted with two or more distinct non-empty canonical types.
- `dangling`: relationship records with an endpoint that is not a predicted entity's normalised name.
- `self_loops`: relationship records whose two endpoints normalise to the same name.
- `example_leaks`: distinct entities whose name occurs in the prompt's example text and not in
  the chunk (None when no example text is given); `example_leak_names` names them. A name that is
  a type word is never a leak (the type list is part of the prompt's text): it is counted below.
- `type_word_names`: distinct entities whose name is one of the prompt's entity types (through
  the synonyms), as when a model swaps the name and type fields (`("entity"<|>PERSON<|>Alice...`);
  None without a type list; `type_word_names_found` names them.
- `example_relationships`: relationship records with an endpoint that is an example leak by the
  definition above, declared as an entity or not (a model that copies the prompt's worked example
  as relationships names no entity of it); None without example text; `example_endpoint_names`
  names those endpoints, as first written.
- `example_descriptions`: entity and relationship records whose description copies the prompt's
  text and not the chunk (`copied.copied_passage`: a run of eight words, or a description of three
  words or more that is mostly such runs); None without example text, when the format writes no
  descriptions, and when the chunk stands in the examples (`prompts.leakage.chunk_in_prompt`: its
  own example answer is there, and copying it cannot be told from extracting).
- `ungrounded_endpoints`: relationship records with an endpoint whose normalised name does not
  occur in the chunk (the grounding test, applied to endpoints: an undeclared endpoint is no entity
  the grounding rate sees).
- `empty_descriptions`: entity and relationship records whose description `is_placeholder_description`
  (None when the format writes no descriptions: triples).
- `types_optional` (triple formats): an answer none of whose entity records carries a type has no
  type conformance (None), rather than 0.
- `strengths_out_of_scale`: relationship records with a strength outside the inclusive scale
  (0 when the prompt has no scale).
- `rounds` (gleaning yield, not a `harness score --json` key): per answer of the case, in order
  (the first answer, then each gleaning answer), the distinct entities and relationships no
  earlier answer had, and how many of those new entities are grounded and example leaks, by the
  definitions above. A name repeated by a later answer is a duplicate record, never new again.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..model import Entity, ExtractedGraph, ReferenceFreeScores, Relationship, RoundYield
from ..parsing.fields import is_placeholder
from ..prompts.leakage import chunk_in_prompt
from .copied import copied_passage, input_text, prompt_text
from .normalize import canonical_type, normalize_name, normalize_text, occurs_in, type_table
from .predicted import grounded_in, predicted_entities

# The `harness score --json` keys of `reference_free`, in their order.
REFERENCE_FREE_KEYS = (
    "entities", "relationships", "grounded", "ungrounded", "type_conformance", "duplicate_records",
    "type_conflicts", "dangling", "self_loops", "example_leaks", "example_leak_names", "empty_descriptions",
    "type_word_names", "type_word_names_found", "example_relationships", "example_endpoint_names",
    "example_descriptions", "ungrounded_endpoints",
)

# GraphRAG's extraction prompt asks for a strength "from 1 to 10"; LightRAG asks for none.
GRAPHRAG_STRENGTH_SCALE: tuple[float, float] = (1.0, 10.0)

# Descriptions that say nothing, compared case-folded, with `_` as a space, surrounding quotes,
# brackets and a final full stop removed. Besides these: an empty description, one made only of
# punctuation or symbols (`-`, `...`, `…`, `?`), and a prompt placeholder such as
# `<entity_description>` (parsing's `is_placeholder`: letters, `_` and spaces in angle brackets).
PLACEHOLDER_DESCRIPTIONS: frozenset[str] = frozenset({
    "n/a", "na", "none", "null", "nil", "unknown", "tbd", "todo", "description", "no description",
    "not available", "not applicable", "entity description", "relationship description",
})

_WRAPPERS = "\"'`“”‘’«»*()[]{} \t\n"


def is_placeholder_description(description: str) -> bool:
    """Whether a description is empty or a placeholder (see PLACEHOLDER_DESCRIPTIONS)."""
    text = description.strip()
    if not text or is_placeholder(text):
        return True
    # most descriptions start with a letter or digit: then they are not all punctuation and symbols
    if unicodedata.category(text[0])[0] in "PSZ" and all(unicodedata.category(ch)[0] in "PSZ" for ch in text):
        return True
    key = " ".join(text.strip(_WRAPPERS).casefold().replace("_", " ").rstrip(".").split())
    return not key or key in PLACEHOLDER_DESCRIPTIONS


# The prompt's example text, normalised: the same for every case of a variant, so once per variant.
_examples_key = lru_cache(maxsize=32)(normalize_text)


def reference_free(
    graph: ExtractedGraph,
    text: str,
    *,
    entity_types: Sequence[str] | None = None,
    type_synonyms: dict[str, list[str]] | None = None,
    examples: str | None = None,
    strength_scale: tuple[float, float] | None = GRAPHRAG_STRENGTH_SCALE,
    rounds: Sequence[int] | None = None,
    descriptions: bool = True,
    types_optional: bool = False,
) -> ReferenceFreeScores:
    """The reference-free figures of one extracted graph against its chunk (module docstring).

    `entity_types`: the prompt's effective type list (None or empty: an untyped prompt);
    `examples`: the prompt's example text, the prompt rendered with an empty chunk (None: not
    known, so no leak count); `strength_scale`: the inclusive range the prompt asks for (None:
    the prompt asks for no strength); `rounds`: the `round` of each of the case's answers in order
    (`Round.index` of the extraction and gleaning calls, loop checks left out), so an answer that
    added nothing still counts as a round (None: the rounds the records name, and round 0);
    `descriptions`, `types_optional`: the format's `writes_descriptions` and `types_optional`.
    """
    types = type_table(type_synonyms or {})

    # ---- entity records (de-duplicated as scoring does: harness.scoring.predicted)
    predicted = predicted_entities(graph.entities)
    first_name = dict(zip(predicted.keys, predicted.names))  # normalised name -> as first predicted
    kinds: dict[str, set[str]] = {key: set() for key in predicted.keys}
    empty = 0
    allowed = {canonical_type(t, types) for t in entity_types or () if t.strip()} or None
    conforming = 0
    records = [ent for ent in graph.entities if ent.name.strip()]
    for ent in records:
        kind = canonical_type(ent.type, types)
        if kind:
            kinds[normalize_name(ent.name)].add(kind)
        if allowed is not None and kind in allowed:
            conforming += 1
        empty += is_placeholder_description(ent.description)
    entity_records, duplicates = len(records), predicted.duplicates

    # ---- relationship records
    pairs: set[tuple[str, str]] = set()
    relationship_records = dangling = self_loops = out_of_scale = 0
    for rel in graph.relationships:
        if not rel.source.strip() or not rel.target.strip():
            continue
        relationship_records += 1
        source, target = normalize_name(rel.source), normalize_name(rel.target)
        if source not in first_name or target not in first_name:
            dangling += 1
        if source == target:
            self_loops += 1
        else:
            pairs.add((source, target) if source <= target else (target, source))
        empty += is_placeholder_description(rel.description)
        if strength_scale is not None and rel.strength is not None:
            low, high = strength_scale
            out_of_scale += not (low <= rel.strength <= high)

    # ---- names that are type words (swapped fields), grounding and example leaks, over distinct entities
    type_words = [key for key in first_name if allowed is not None and canonical_type(first_name[key], types) in allowed]
    type_word_count = None if allowed is None else len(type_words)
    grounded = dict(zip(predicted.keys, grounded_in(predicted.keys, text)))
    leaked: dict[str, bool] | None = None
    if examples is not None:
        examples_key = _examples_key(examples)
        leaked = {key: not grounded[key] and key not in type_words and occurs_in(key, examples_key) for key in first_name}
    leaks = None if leaked is None else [first_name[key] for key, found in leaked.items() if found]
    endpoints = _endpoints(graph, text, types, allowed, None if examples is None else _examples_key(examples))
    copies = None
    # a chunk that stands in the examples has its own example answer there: copying it cannot be
    # told from extracting (the row is marked `in_prompt_examples`), so the figure is n/a
    if examples is not None and descriptions and not chunk_in_prompt(text, examples):
        index, chunk = prompt_text(examples), input_text(text)
        described: list[Entity | Relationship] = [
            *records, *(r for r in graph.relationships if r.source.strip() and r.target.strip())]
        copies = sum(1 for record in described
                     if record.description.strip() and copied_passage(record.description, index, chunk) is not None)

    if types_optional and not any(ent.type.strip() for ent in records):
        allowed = None  # an answer that types nothing (plain triples): conformance is n/a, not 0
    return ReferenceFreeScores(
        entities=len(first_name),
        relationships=len(pairs),
        grounded=sum(grounded.values()),
        ungrounded=[first_name[key] for key, found in grounded.items() if not found],
        type_conformance=None if allowed is None or not entity_records else conforming / entity_records,
        duplicate_records=duplicates,
        type_conflicts=sum(1 for found in kinds.values() if len(found) >= 2),
        dangling=dangling,
        self_loops=self_loops,
        example_leaks=None if leaks is None else len(leaks),
        example_leak_names=leaks or [],
        empty_descriptions=empty if descriptions else None,
        type_word_names=type_word_count,
        type_word_names_found=[first_name[key] for key in type_words],
        example_relationships=endpoints.from_examples,
        example_endpoint_names=endpoints.example_names,
        example_descriptions=copies,
        ungrounded_endpoints=endpoints.ungrounded,
        strengths_out_of_scale=out_of_scale,
        entity_records=entity_records,
        relationship_records=relationship_records,
        conforming_records=None if allowed is None else conforming,
        rounds=round_yields(graph, grounded, leaked, rounds),
    )


@dataclass
class _Endpoints:
    """What the relationship records' endpoints say (module docstring: `example_relationships`,
    `ungrounded_endpoints`)."""

    ungrounded: int
    from_examples: int | None
    example_names: list[str]


def _endpoints(graph: ExtractedGraph, text: str, types: dict[str, str], allowed: set[str] | None,
               examples_key: str | None) -> _Endpoints:
    written: dict[str, str] = {}  # normalised endpoint -> as first written
    pairs: list[tuple[str, str]] = []
    for rel in graph.relationships:
        if rel.source.strip() and rel.target.strip():
            pair = (normalize_name(rel.source), normalize_name(rel.target))
            written.setdefault(pair[0], rel.source)
            written.setdefault(pair[1], rel.target)
            pairs.append(pair)
    grounded = dict(zip(written, grounded_in(list(written), text)))
    leaked: dict[str, bool] = {}
    if examples_key is not None:
        leaked = {key: not grounded[key] and not (allowed is not None and canonical_type(written[key], types) in allowed)
                  and occurs_in(key, examples_key) for key in written}
    return _Endpoints(
        ungrounded=sum(1 for pair in pairs if not (grounded[pair[0]] and grounded[pair[1]])),
        from_examples=None if examples_key is None else sum(1 for pair in pairs if leaked[pair[0]] or leaked[pair[1]]),
        example_names=[written[key] for key, found in leaked.items() if found],
    )


def round_yields(
    graph: ExtractedGraph,
    grounded: dict[str, bool],
    leaked: dict[str, bool] | None,
    rounds: Sequence[int] | None = None,
) -> list[RoundYield]:
    """What each answer added to the answers before it (module docstring, `rounds`).

    `grounded` and `leaked` map every predicted entity's normalised name to whether it is grounded
    in the chunk / leaked from the examples (`leaked` None: no example text). A record whose round
    is not in `rounds` makes its round an answer too, after the listed ones.
    """
    named = {ent.round for ent in graph.entities if ent.name.strip()}
    named |= {rel.round for rel in graph.relationships if rel.source.strip() and rel.target.strip()}
    order = list(dict.fromkeys(rounds)) if rounds is not None else sorted(named | {0})
    order += sorted(named - set(order))
    seen: set[str] = set()
    seen_pairs: set[tuple[str, str]] = set()
    out: list[RoundYield] = []
    for ordinal, index in enumerate(order):
        new = list(dict.fromkeys(
            key for key in (normalize_name(e.name) for e in graph.entities if e.round == index and e.name.strip())
            if key not in seen
        ))
        seen.update(new)
        pairs: set[tuple[str, str]] = set()
        for rel in graph.relationships:
            if rel.round != index or not rel.source.strip() or not rel.target.strip():
                continue
            source, target = normalize_name(rel.source), normalize_name(rel.target)
            pair = (source, target) if source <= target else (target, source)
            if source != target and pair not in seen_pairs:
                pairs.add(pair)
        seen_pairs |= pairs
        out.append(RoundYield(
            round=ordinal,
            index=index,
            entities=len(new),
            relationships=len(pairs),
            grounded=sum(grounded[key] for key in new),
            example_leaks=None if leaked is None else sum(leaked[key] for key in new),
        ))
    return out


def reference_free_to_json(scores: ReferenceFreeScores) -> dict[str, object]:
    """Exactly the `harness score --json` keys of `reference_free`, in their order."""
    data = scores.model_dump()
    return {key: data[key] for key in REFERENCE_FREE_KEYS}
