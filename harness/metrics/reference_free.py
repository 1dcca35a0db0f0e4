"""Reference-free metrics: what each answer says about itself and its chunk, no gold needed.

The per-case figures are `CaseScore.reference_free` (harness/scoring/reference_free.py, computed
by the runner with the variant's type list, the suite's type synonyms, the prompt's example text
and the strength scale its format asks for). A row scored before those figures existed has None
there and pools nothing. Every count is a `count` metric: micro = the total over the cases that
have a value, macro = the mean per case (docs/scoring.md, "Reference-free metrics").
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import CaseScore, ReferenceFreeScores
from .ratios import ratio_or_none
from .registry import Count, Direction, Metric, Pooled, metrics, register, register_count


def _figure(read: Callable[[ReferenceFreeScores], int | None]) -> Callable[[CaseScore], int | None]:
    """A per-case count from the reference-free figures; None for a case without them."""
    return lambda s: None if s.reference_free is None else read(s.reference_free)


def _typed_records(rf: ReferenceFreeScores) -> int | None:
    """Entity records of a case whose prompt has a type list (type conformance's denominator)."""
    return None if rf.conforming_records is None else rf.entity_records


register_count(Count("conforming_records", _figure(lambda rf: rf.conforming_records), None))
register_count(Count("typed_entity_records", _figure(_typed_records), None))

register(Metric(
    "type_conformance", "Type conformance", "type conformance",
    value=lambda s: None if s.reference_free is None else s.reference_free.type_conformance,
    micro=lambda c: ratio_or_none(c["conforming_records"], c["typed_entity_records"]),
    pools=("conforming_records", "typed_entity_records"), gold=None,
    threshold=">=", headline_rank=8, report_rank=9, console="without_gold", short_label="types ok",
))

# (name, label, phrase, the figure, threshold direction, console column heading or None)
_COUNTS: tuple[tuple[str, str, str, Callable[[ReferenceFreeScores], int | None], Direction, str | None], ...] = (
    ("distinct_entities", "Distinct entities", "distinct entities", lambda rf: rf.entities, ">=", None),
    ("distinct_relationships", "Distinct relationships", "distinct relationships", lambda rf: rf.relationships,
     ">=", None),
    ("duplicate_records", "Duplicate entity records", "duplicate entity records", lambda rf: rf.duplicate_records,
     "<=", "duplicates"),
    ("type_conflicts", "Type conflicts", "type conflicts", lambda rf: rf.type_conflicts, "<=", None),
    ("dangling", "Dangling relationships", "dangling relationships", lambda rf: rf.dangling, "<=", "dangling"),
    ("self_loops", "Self-loops", "self-loops", lambda rf: rf.self_loops, "<=", None),
    ("example_leaks", "Example leaks", "example leaks", lambda rf: rf.example_leaks, "<=", "leaks"),
    ("empty_descriptions", "Empty descriptions", "empty descriptions", lambda rf: rf.empty_descriptions, "<=", None),
    ("strengths_out_of_scale", "Strengths out of scale", "strengths out of scale",
     lambda rf: rf.strengths_out_of_scale, "<=", None),
    ("type_word_names", "Names that are type words", "names that are type words (name and type swapped)",
     lambda rf: rf.type_word_names, "<=", None),
    ("example_relationships", "Example relationships", "relationships with an endpoint from the prompt's examples",
     lambda rf: rf.example_relationships, "<=", None),
    ("example_descriptions", "Descriptions copied from the prompt", "descriptions copied from the prompt",
     lambda rf: rf.example_descriptions, "<=", None),
    ("ungrounded_endpoints", "Ungrounded endpoints", "relationships with an endpoint not in the chunk",
     lambda rf: rf.ungrounded_endpoints, "<=", None),
)


def _total(name: str) -> Callable[[Pooled], float | None]:
    return lambda c: c.total(name)


def _value(count: Callable[[CaseScore], int | None]) -> Callable[[CaseScore], float | None]:
    return lambda s: count(s)  # an int is a float's value here; None stays None


# report rows 10-19, in declaration order (ties keep it); 20 on are the description summaries'
_LAST_RANK = 19
for _rank, (_name, _label, _phrase, _read, _op, _column) in enumerate(_COUNTS):
    _count = register_count(Count(_name, _figure(_read), None))
    register(Metric(
        _name, _label, _phrase,
        value=_value(_count.value), micro=_total(_name), pools=(_name,), gold=None,
        higher_is_better=_op == ">=", threshold=_op, report_rank=min(10 + _rank, _LAST_RANK), kind="count",
        console="without_gold" if _column else None, short_label=_column or "",
    ))


def reference_free_metrics() -> tuple[Metric, ...]:
    """The metrics read from `CaseScore.reference_free` (this module's), in declaration order."""
    return tuple(m for m in metrics() if m.name in _NAMES)


_NAMES = frozenset({"type_conformance", *(row[0] for row in _COUNTS)})
