"""The frontier: which variants no other beats on quality and cost (or latency), and the one to pick
for a budget, said in a sentence."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness.artifacts import CostFigures, LatencyFigures
from harness.frontier import build_frontier, pareto, quality_figures


@dataclass
class _Variant:
    """What the frontier reads of a VariantSummary: its metrics, cost and latency."""

    f1: float | None
    usd: float | None
    p95: float | None = None

    def metric(self, name: str, average: str = "micro") -> float | None:
        return self.f1 if name == "entity_f1" else None

    @property
    def cost(self) -> CostFigures:
        return CostFigures(chunks=10, calls=10, calls_per_chunk=1, input_tokens=1, output_tokens=1, cached_tokens=0,
                           tokens_estimated=False, batch_calls=0, usd=None, usd_per_1k_chunks=self.usd, price=None)

    @property
    def latency(self) -> LatencyFigures:
        return LatencyFigures(source=None if self.p95 is None else "recorded", calls_timed=0, chunks_timed=0,
                              p50_call_s=None, p95_call_s=None, p50_chunk_s=None, p95_chunk_s=self.p95)


VARIANTS = {
    "cheap": _Variant(0.50, 0.10, p95=9.0),
    "mid": _Variant(0.70, 1.00, p95=2.0),
    "dominated": _Variant(0.60, 2.00, p95=3.0),  # mid is better and cheaper, and faster
    "best": _Variant(0.80, 5.00, p95=4.0),
    "tie": _Variant(0.70, 1.50, p95=1.0),  # mid's quality for more dollars: off the cost frontier, fastest
    "unpriced": _Variant(0.95, None, p95=None),  # no price: on no frontier, never picked
}


def test_the_pareto_set_leaves_out_dominated_points_and_n_a():
    points = [("a", 1.0, 1.0), ("b", 1.0, 2.0), ("c", 2.0, 2.0), ("d", 0.5, 0.5), ("e", None, 0.1), ("f", 3.0, None)]
    assert pareto(points) == {"a", "c", "d"}


def test_the_frontier_marks_each_axis():
    frontier = build_frontier(VARIANTS, kind="extract_graph", has_gold=True)  # type: ignore[arg-type]
    marked = {p.variant: (p.pareto_cost, p.pareto_latency) for p in frontier.points}
    assert {v for v, (cost, _) in marked.items() if cost} == {"cheap", "mid", "best"}
    # latency: tie (0.70 at 1 s) beats mid (0.70 at 2 s) and dominated; best is the only 0.80
    assert {v for v, (_, latency) in marked.items() if latency} == {"tie", "best"}
    assert frontier.quality == ["entity_f1", "relationship_f1"] and frontier.pick is None
    assert "give --budget" in frontier.sentence and "dominated" not in frontier.sentence


@pytest.mark.parametrize(("budget", "pick"), [(1.0, "mid"), (1.49, "mid"), (0.5, "cheap"), (100.0, "best")])
def test_the_pick_is_the_best_quality_within_the_budget(budget, pick):
    frontier = build_frontier(VARIANTS, kind="extract_graph", has_gold=True, budget=budget)  # type: ignore[arg-type]
    assert frontier.pick == pick
    assert frontier.sentence.startswith(f"For a budget of ${budget:,.2f} per 1,000 chunks, pick {pick}: ")
    assert next(p for p in frontier.points if p.variant == pick).pareto_cost  # a pick is always on the frontier


def test_a_budget_nothing_fits_names_the_cheapest():
    frontier = build_frontier(VARIANTS, kind="extract_graph", has_gold=True, budget=0.05)  # type: ignore[arg-type]
    assert frontier.pick is None
    assert frontier.sentence == "No variant fits a budget of $0.05 per 1,000 chunks: the cheapest, cheap, costs $0.10."


def test_dollars_read_as_the_reports_show_them():
    from harness.frontier import dollars

    assert [dollars(v) for v in (None, 0, 0.0042, 0.42, 1234.5)] == ["n/a", "$0", "$0.0042", "$0.42", "$1,234.50"]


def test_without_any_cost_there_is_nothing_to_pick():
    frontier = build_frontier({"a": _Variant(0.5, None)}, kind="extract_graph", has_gold=True,  # type: ignore[dict-item]
                              budget=1.0)
    assert frontier.pick is None and frontier.sentence.startswith("No variant has both entity F1 and a cost")


def test_quality_is_f1_with_gold_and_reference_free_without():
    assert quality_figures("extract_graph", True) == ["entity_f1", "relationship_f1"]
    assert quality_figures("extract_graph", False) == ["grounding_rate", "type_conformance"]
