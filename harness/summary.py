"""Results of one run -> summary.json: per-variant metrics, graph size, format, usage, ratios.

Everything here is a pure function of the result rows, except timings, which live only
under keys ending in `_s` (and the `created_at` stamp), so a replayed run reproduces the
rest byte for byte.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from . import __version__
from .llm.pricing import estimate_cost, load_prices
from .model import CaseResult, Usage
from .parsing.verdict import has_format_errors
from .metrics.registry import headline as headline_metrics
from .scoring import aggregate, graph_stats

SCHEMA_VERSION = 1


def format_summary(rows: list[CaseResult]) -> dict[str, Any]:
    rounds = [r for row in rows for r in row.round_reports]
    by_code: Counter[str] = Counter(issue.code for row in rows for issue in row.format_report.issues)
    with_errors = sum(1 for row in rows if has_format_errors(row.format_report))
    present = sum(1 for r in rounds if r.completion == "present")
    return {
        "cases_with_errors": with_errors,
        # over no case there is no share: n/a (None), which fails a threshold, never 0% errors
        "format_error_rate": round(with_errors / len(rows), 6) if rows else None,
        "completion_rate": round(present / len(rounds), 6) if rounds else None,
        "records_seen": sum(row.format_report.records_seen for row in rows),
        "records_parsed": sum(row.format_report.records_parsed for row in rows),
        "records_dropped": sum(row.format_report.records_dropped for row in rows),
        "issues_by_code": dict(sorted(by_code.items())),
    }


def _ratio(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return round(value / base, 6)


def variant_summary(rows: list[CaseResult], *, prompt: str, model: str, prices: dict) -> dict[str, Any]:
    scores = [row.score for row in rows if row.score is not None]
    usage = Usage()
    for row in rows:
        usage = usage + row.usage
    gleaned = sum(1 for row in rows for e in row.graph.entities if e.round > 0) + sum(
        1 for row in rows for r in row.graph.relationships if r.round > 0
    )
    return {
        "prompt": prompt,
        "model": model,
        "cases": len(rows),
        "metrics": aggregate(scores).model_dump(),
        "graph": graph_stats([row.graph for row in rows]).model_dump(),
        "format": format_summary(rows),
        "records_from_gleaning": gleaned,
        "usage": usage.model_dump(),
        "cost_usd": estimate_cost(usage, model, prices),
        "latency_total_s": round(sum(row.latency_s for row in rows), 6),
    }


def headline(variant: dict[str, Any], metric: str, average: str = "micro") -> float | None:
    entry = variant["metrics"]["metrics"].get(metric)
    return None if entry is None else entry.get(average)


def ratios_to_baseline(variants: dict[str, dict[str, Any]], baseline: str) -> dict[str, dict[str, float | None]]:
    base = variants.get(baseline)
    out: dict[str, dict[str, float | None]] = {}
    if base is None:
        return out
    for name, variant in variants.items():
        out[name] = {
            "entities": _ratio(variant["graph"]["nodes"], base["graph"]["nodes"]),
            "relationships": _ratio(variant["graph"]["edges"], base["graph"]["edges"]),
            "communities": _ratio(variant["graph"]["communities"], base["graph"]["communities"]),
            **{m.name: _ratio(headline(variant, m.name), headline(base, m.name)) for m in headline_metrics()},
        }
    return out


def _entity_types(suite: Any, variant: str) -> dict[str, Any] | None:
    """The variant's effective entity types and their source; None when its prompt no longer loads."""
    from .errors import InputError
    from .prompts.entity_types import variant_entity_types
    from .prompts.resolve import load_variant_prompt

    try:
        return variant_entity_types(suite, variant, load_variant_prompt(suite, variant)).to_json()
    except InputError:
        return None


def build_summary(
    *,
    suite: Any,
    run_id: str,
    results: list[CaseResult],
    record_mode: str,
    wall_s: float,
) -> dict[str, Any]:
    prices = load_prices(suite.root)
    order = suite.variant_names()
    present = [name for name in order if any(r.variant == name for r in results)]
    variants: dict[str, dict[str, Any]] = {}
    for name in present:
        spec = suite.spec.variants[name]
        rows = [r for r in results if r.variant == name]
        variants[name] = variant_summary(rows, prompt=spec.prompt, model=spec.model or suite.spec.model.name, prices=prices)
        types = _entity_types(suite, name)
        if types is not None:
            variants[name]["entity_types"] = types
    baseline = suite.baseline
    comparisons: dict[str, Any] = {}
    if baseline in variants:
        from .compare import compare

        base_rows = [r for r in results if r.variant == baseline]
        for name in present:
            if name != baseline:
                rows = [r for r in results if r.variant == name]
                comparisons[name] = compare(base_rows, rows, label_a=baseline, label_b=name).to_json()
    return {
        "schema_version": SCHEMA_VERSION,
        "harness_version": __version__,
        "suite": suite.name,
        "suite_file": str(suite.path),
        "description": suite.spec.description,
        "notes": suite.spec.notes,
        "run_id": run_id,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "record_mode": record_mode,
        "baseline": baseline,
        "variants": variants,
        "ratios": ratios_to_baseline(variants, baseline),
        "comparisons": comparisons,
        "timings": {"wall_s": round(wall_s, 6)},
    }
