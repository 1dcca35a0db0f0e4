"""Quality against cost and latency: which variants are worth their price (summary.json's `frontier`).

Quality is entity and relationship F1 when the run has gold, grounding rate and type conformance
when it has none (another suite kind: its key figures); the first figure decides. A variant is
Pareto-optimal against cost when no other variant has at least its quality for at most its dollars
per 1,000 chunks, better in one of the two; likewise against p95 latency per chunk. A variant
whose quality, cost or latency is n/a is on no frontier of that axis, and is never picked.

For a budget (`--budget`, dollars per 1,000 chunks) the pick is the best quality within it, the
cheaper on a tie: a Pareto-optimal variant by construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .artifacts import Frontier, FrontierPoint, VariantSummary
from .metrics import get as get_metric
from .metrics.registry import format_metric, key_figures, phrase

GOLD_QUALITY = ("entity_f1", "relationship_f1")
REFERENCE_FREE_QUALITY = ("grounding_rate", "type_conformance")


def quality_figures(kind: str, has_gold: bool) -> list[str]:
    """The figures the frontier ranks by, the deciding one first."""
    if kind != "extract_graph":
        return [m.name for m in key_figures(kind) if m.higher_is_better] or [m.name for m in key_figures(kind)]
    return list(GOLD_QUALITY if has_gold else REFERENCE_FREE_QUALITY)


def pareto(points: Sequence[tuple[str, float | None, float | None]]) -> set[str]:
    """The names of (name, quality, cost) points no other point dominates (at least as good on
    both, better on one); points with an n/a value are left out."""
    known = [(name, q, c) for name, q, c in points if q is not None and c is not None]
    return {name for name, q, c in known
            if not any((q2 >= q and c2 <= c) and (q2 > q or c2 < c) for _, q2, c2 in known)}


def dollars(value: float | None) -> str:
    """Dollars per 1,000 chunks as the reports show them ($0.42, $12.30, $0.0042, $0; n/a)."""
    if value is None:
        return "n/a"
    if value == 0:
        return "$0"
    return f"${value:,.4f}" if value < 0.01 else f"${value:,.2f}"


def seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g} s"


def _higher_is_better(name: str) -> bool:
    metric = get_metric(name)
    return metric is None or metric.higher_is_better is not False


def build_frontier(variants: Mapping[str, VariantSummary], *, kind: str, has_gold: bool,
                   budget: float | None = None) -> Frontier:
    """The frontier of a run's variants, and the sentence that picks one for `budget`."""
    quality = quality_figures(kind, has_gold)
    first = quality[0]
    sign = 1.0 if _higher_is_better(first) else -1.0  # Pareto and the pick compare "better", not "higher"
    points: list[FrontierPoint] = []
    ranked: list[tuple[str, float | None, float | None, float | None]] = []
    for name, variant in variants.items():
        values = {q: variant.metric(q) for q in quality}
        cost = variant.cost.usd_per_1k_chunks if variant.cost is not None else None
        p95 = variant.latency.p95_chunk_s if variant.latency is not None else None
        deciding = values[first]
        ranked.append((name, None if deciding is None else sign * deciding, cost, p95))
        points.append(FrontierPoint(variant=name, quality=values, usd_per_1k_chunks=cost, p95_chunk_s=p95,
                                    latency_source=variant.latency.source if variant.latency is not None else None,
                                    pareto_cost=False, pareto_latency=False))
    on_cost = pareto([(n, q, c) for n, q, c, _ in ranked])
    on_latency = pareto([(n, q, t) for n, q, _, t in ranked])
    for point in points:
        point.pareto_cost, point.pareto_latency = point.variant in on_cost, point.variant in on_latency
    pick, sentence = _pick(points, ranked, first, budget, on_cost)
    return Frontier(quality=quality, points=points, budget=budget, pick=pick, sentence=sentence)


def _pick(points: list[FrontierPoint], ranked: list[tuple[str, float | None, float | None, float | None]],
          first: str, budget: float | None, on_cost: set[str]) -> tuple[str | None, str]:
    by_name = {p.variant: p for p in points}
    known = [(n, q, c) for n, q, c, _ in ranked if q is not None and c is not None]
    what = phrase(first)
    if not known:
        return None, (f"No variant has both {what} and a cost per 1,000 chunks (no price for its model, or no "
                      "token counted): nothing to pick from.")
    if budget is None:
        listed = ", ".join(f"{n} ({_describe(by_name[n], first)})" for n, _, _ in known if n in on_cost)
        return None, (f"Pareto-optimal on {what} against dollars per 1,000 chunks: {listed}; "
                      "give --budget DOLLARS_PER_1K_CHUNKS to pick one.")
    within = [(n, q, c) for n, q, c in known if c <= budget]
    if not within:
        name, _, cost = min(known, key=lambda item: (item[2], item[0]))
        return None, (f"No variant fits a budget of {dollars(budget)} per 1,000 chunks: the cheapest, {name}, "
                      f"costs {dollars(cost)}.")
    name = min(within, key=lambda item: (-item[1], item[2], item[0]))[0]
    return name, (f"For a budget of {dollars(budget)} per 1,000 chunks, pick {name}: "
                  f"{_describe(by_name[name], first)}, the best {what} within the budget.")


def _describe(point: FrontierPoint, first: str) -> str:
    """"entity F1 61.0% at $0.42 per 1,000 chunks, p95 3.2 s per chunk (recorded)"."""
    if point.p95_chunk_s is None:
        latency = "p95 latency n/a"
    else:
        latency = f"p95 {seconds(point.p95_chunk_s)} per chunk" + (
            f" ({point.latency_source})" if point.latency_source is not None else "")
    return (f"{phrase(first)} {format_metric(first, point.quality.get(first))} at "
            f"{dollars(point.usd_per_1k_chunks)} per 1,000 chunks, {latency}")
