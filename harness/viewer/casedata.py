"""A run's per-case data, as the page loads it for a two-run comparison: per row (variant, case)
its figures and its extracted graph, each entity and relationship keyed as `harness compare`
keys them (`compare.entity_map`, `compare.edge_map`: normalised names, undirected edges), so the
page's graph diff is set arithmetic on keys the harness made, not a second matching rule."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..artifacts import RunSummary
from ..compare import edge_map, entity_map
from ..model import CaseResult
from ..model import CaseMetrics
from ..scoring.case_metrics import measured
from .figures import rounded

EDGE_JOIN = "\u0000"  # between the two normalised names of an undirected edge's key


def case_values(rows: list[CaseResult], names: list[str]) -> dict[tuple[str, str], list[float | None]]:
    """(variant, case id) -> each figure's value: the mean over the case's samples that have one
    (one sample: its value), as `harness compare` takes a repeated case; None without a score."""
    samples: dict[tuple[str, str], list[CaseMetrics]] = defaultdict(list)
    for row in rows:
        key = (row.variant, row.case_id)
        samples.setdefault(key, [])
        measured_values = measured(row)  # the values computed when the case was scored
        if measured_values is not None:
            samples[key].append(measured_values)
    out: dict[tuple[str, str], list[float | None]] = {}
    for key, found in samples.items():
        values: list[float | None] = []
        for name in names:
            present = [value for v in found if (value := v.value(name)) is not None]
            values.append(sum(present) / len(present) if present else None)
        out[key] = values
    return out


def _graph(row: CaseResult) -> tuple[list[list[str]], list[list[str]]]:
    types, names = entity_map(row.graph)
    entities = [[key, names[key], types[key]] for key in sorted(names)]
    edges = edge_map(row.graph)
    relationships = [[EDGE_JOIN.join(key), pair[0], pair[1]] for key, pair in sorted(edges.items())]
    return entities, relationships


def run_case_data(summary: RunSummary, rows: list[CaseResult], names: list[str]) -> dict[str, Any]:
    """The per-run data file's content: one entry per (variant, case), sample 0's graph."""
    values = case_values(rows, names)
    out = []
    for row in rows:
        if row.sample != 0:
            continue
        variant = summary.variants.get(row.variant)
        entities, relationships = _graph(row)
        entry: dict[str, Any] = {
            "variant": row.variant,
            "model": variant.model if variant is not None else "",
            "case": row.case_id,
            "figures": [rounded(v) for v in values[(row.variant, row.case_id)]],
            "entities": entities,
            "relationships": relationships,
        }
        if row.error:
            entry["error"] = row.error
        out.append(entry)
    return {"suite": summary.suite, "run": summary.run_id, "metrics": names, "rows": out}
