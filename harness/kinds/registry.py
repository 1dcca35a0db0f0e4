"""The suite-kind registry: every kind a suite may name in `kind:`, built-in or from a plugin.

The suite loader (`case_problem`, `case_text`), the runner (`VariantPlan.kind`), the metrics and
the reports (`rows_kind`, `builds_graph`) ask here; nothing else branches on a kind's name. A new
built-in kind is one module of this package defining `SPEC` plus one line in `_BUILT_IN`; an
outside package's kind is one `kg_prompt_harness.kinds` entry point naming its `KindSpec`
(harness/plugins.py). Both go through `register_kind`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import plugins
from ..model import CaseResult, register_kind_score
from . import community_report, extract_claims, extract_graph, global_search_map, summarize_descriptions
from .spec import CaseProblem, KindSpec

DEFAULT_KIND = "extract_graph"  # a suite without `kind:`
SUITE_KINDS: dict[str, KindSpec] = {}


def register_kind(spec: object) -> None:
    """Register a suite kind (the route built-ins and `kg_prompt_harness.kinds` entry points share)."""
    if not isinstance(spec, KindSpec):
        raise TypeError(f"a suite kind is a harness.kinds.spec.KindSpec, not {type(spec).__name__}")
    if spec.name in SUITE_KINDS:
        raise ValueError(f"suite kind {spec.name!r} is already registered")
    if spec.score_key is not None and spec.score_model is not None:
        register_kind_score(spec.score_key, spec.score_model)
    SUITE_KINDS[spec.name] = spec


# the built-in kinds, in the order they are listed
_BUILT_IN = (extract_graph.SPEC, summarize_descriptions.SPEC, community_report.SPEC, extract_claims.SPEC,
             global_search_map.SPEC)
for _spec in _BUILT_IN:
    register_kind(_spec)


def load_plugins() -> None:
    """Register the kinds of installed plugins (once): before reading a run's rows, whose scores
    may hold a plugin kind's figures."""
    plugins.load("kinds", register_kind)


def kind_names() -> tuple[str, ...]:
    """Every registered kind's name, built-ins first."""
    load_plugins()
    return tuple(SUITE_KINDS)


def kinds() -> tuple[KindSpec, ...]:
    load_plugins()
    return tuple(SUITE_KINDS.values())


def get_kind(name: str) -> KindSpec:
    """The kind called `name`; ValueError naming the known kinds otherwise."""
    if name not in SUITE_KINDS:
        load_plugins()
    try:
        return SUITE_KINDS[name]
    except KeyError:
        raise ValueError(f"unknown suite kind {name!r}; expected one of {', '.join(SUITE_KINDS)}") from None


def builds_graph(name: str) -> bool:
    """Whether a kind's answers build a graph (graph sections, F1 regressions, graph columns)."""
    return get_kind(name).builds_graph


def _a(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _given(case: Any, name: str) -> bool:
    value = getattr(case, name)
    return value is not None and value != [] and value != "" and value != {}


def case_problem(kind: str, case: Any) -> CaseProblem:
    """The first problem of a case (a `harness.suites.CaseSpec`) for its suite's kind: (location
    under the case, message), or None. A case may give only its own kind's inputs and gold."""
    spec = get_kind(kind)
    source = case.chunk is not None or case.text is not None
    if spec.needs_source and not source:
        return (), f"{_a(kind)} case needs `chunk` (a file) or `text` (inline)"
    if not spec.needs_source and source:
        where = "chunk" if case.chunk is not None else "text"
        given = " and ".join(f"`{name}`" for name in spec.inputs[:2]) or "its own inputs"
        return (where,), (f"{_a(kind)} case gives {given}, not `{where}` (the prompt's input is written "
                          "from them, as the engine writes it)")
    every = kinds()
    for name in dict.fromkeys(n for other in every for n in other.inputs):
        if name not in spec.inputs and _given(case, name):
            return (name,), f"`{name}` is not an input of {_a(kind)} case"
    for name in dict.fromkeys(n for other in every for n in other.gold):
        if name not in spec.gold and _given(case, name):
            return (name,), f"`{name}` is not gold of {_a(kind)} case"
    if spec.case_fields is None:
        if _given(case, "inputs"):
            return ("inputs",), f"{_a(kind)} case takes no `inputs:`"
    else:
        problem = _fields_problem(spec, case.inputs)
        if problem is not None:
            return problem
    return spec.check(case) if spec.check is not None else None


def _fields_problem(spec: KindSpec, given: dict[str, Any]) -> CaseProblem:
    """The first problem of a case's `inputs:` against the kind's `case_fields` model, said in our
    own words (the field and what is wrong), never pydantic's."""
    from pydantic import ValidationError

    assert spec.case_fields is not None
    fields = spec.case_fields.model_fields
    for name in given:
        if name not in fields:
            return ("inputs", name), f"`{name}` is not an input of {_a(spec.name)} case ({', '.join(fields)})"
    for name, info in fields.items():
        if info.is_required() and name not in given:
            return ("inputs",), f"{_a(spec.name)} case needs `inputs.{name}`"
    try:
        spec.case_fields.model_validate(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = tuple(first["loc"])
        expected = fields[str(where[0])].annotation if where and str(where[0]) in fields else None
        shown = getattr(expected, "__name__", None) or str(expected).replace("typing.", "")
        return ("inputs", *where), f"not a valid value (expected {shown})"
    return None


def rows_kind(rows: Iterable[CaseResult]) -> str:
    """The suite kind of a run's rows (`RunSummary.suite_kind` of rows): the kind whose figures
    the scored rows hold; the default kind when they hold none."""
    keyed = {spec.score_key: spec.name for spec in kinds() if spec.score_key is not None}
    for row in rows:
        if row.score is not None:
            for key in row.score.figures:
                if key in keyed:
                    return keyed[key]
    return DEFAULT_KIND
