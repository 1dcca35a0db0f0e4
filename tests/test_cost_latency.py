"""A variant's cost and latency per chunk: calls counted with their gleaning rounds, cached and batch
prices, percentiles computed by hand, and n/a (never 0) where nothing stands under a figure."""

from __future__ import annotations

import pytest

from harness.cost_latency import cost_figures, latency_figures, percentile
from harness.llm.pricing import Price
from harness.model import CaseResult, Round, Usage

PRICES = {"m": Price(input=1.0, output=2.0, cached_input=0.5, batch_input=0.5, batch_output=1.0, as_of="2026-01-02",
                     source="suite")}


def _round(index: int, latency: float | None, source: str | None = "recorded", *, prompt: int = 1000,
           completion: int = 100, cached: int = 0, batch: bool = False, estimated: bool = False) -> Round:
    usage = Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion,
                  cached_tokens=cached, estimated=estimated)
    return Round(index=index, kind="extract" if index == 0 else "continue", output="x", usage=usage,
                 latency_s=latency, latency_from=source, batch=batch)  # type: ignore[arg-type]


def _row(case: str, *rounds: Round) -> CaseResult:
    return CaseResult(suite="s", variant="v", case_id=case, rounds=list(rounds))


def test_percentiles_interpolate_between_the_nearest_ranks():
    values = [4.0, 1.0, 3.0, 2.0, 10.0]  # sorted 1 2 3 4 10
    assert percentile(values, 0.5) == 3.0
    # position (5 - 1) * 0.95 = 3.8: 4 + 0.8 * (10 - 4)
    assert percentile(values, 0.95) == pytest.approx(8.8)
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([], 0.5) is None


def test_latency_per_call_and_per_chunk_from_the_timed_rounds():
    rows = [_row("a", _round(0, 1.0), _round(1, 2.0)), _row("b", _round(0, 3.0)), _row("c", _round(0, 4.0), _round(1, 6.0))]
    figures = latency_figures(rows)
    # calls 1 2 3 4 6: p50 3, p95 at 3.8 -> 4 + 0.8 * 2; chunks 3 3 10: p50 3, p95 at 1.9 -> 3 + 0.9 * 7
    assert (figures.p50_call_s, figures.p95_call_s) == (3.0, pytest.approx(5.6))
    assert (figures.p50_chunk_s, figures.p95_chunk_s) == (3.0, pytest.approx(9.3))
    assert (figures.source, figures.calls_timed, figures.chunks_timed) == ("recorded", 5, 3)


def test_untimed_rounds_give_n_a_latency_never_zero():
    # a cassette recorded before latencies were kept; a row written before `latency_from` existed
    rows = [_row("a", _round(0, None, None)), _row("b", _round(0, 0.0001, None))]
    figures = latency_figures(rows)
    assert figures.source is None and figures.calls_timed == 0
    assert [figures.p50_call_s, figures.p95_call_s, figures.p50_chunk_s, figures.p95_chunk_s] == [None] * 4


def test_a_chunk_counts_only_when_all_its_calls_are_timed_and_sources_mix():
    rows = [_row("a", _round(0, 1.0, "measured"), _round(1, None, None)), _row("b", _round(0, 2.0))]
    figures = latency_figures(rows)
    assert (figures.calls_timed, figures.chunks_timed, figures.p95_chunk_s) == (2, 1, 2.0)
    assert figures.source == "mixed"


def test_cost_per_1000_chunks_counts_every_gleaning_call_at_its_price():
    rows = [_row("a", _round(0, 1.0, cached=400), _round(1, 1.0)), _row("b", _round(0, 1.0, batch=True)),
            _row("failed")]  # no answer: not a chunk, and no $0 call
    cost = cost_figures(rows, "m", PRICES)
    assert (cost.chunks, cost.calls, cost.calls_per_chunk, cost.batch_calls) == (2, 3, 1.5, 1)
    assert (cost.input_tokens, cost.output_tokens, cost.cached_tokens) == (3000, 300, 400)
    # a: 600 input at 1 + 400 cached at 0.5 + 100 out at 2; gleaning: 1000 at 1 + 100 at 2; b (batch): 1000 at 0.5 + 100 at 1
    usd = (600 + 200 + 200 + 1000 + 200 + 500 + 100) / 1e6
    assert cost.usd == pytest.approx(usd) and cost.usd_per_1k_chunks == pytest.approx(usd / 2 * 1000)
    assert cost.price is not None and (cost.price.model, cost.price.as_of, cost.price.source) == ("m", "2026-01-02", "suite")
    assert not cost.tokens_estimated


def test_estimated_tokens_are_marked_and_an_unpriced_model_costs_n_a():
    rows = [_row("a", _round(0, 1.0), _round(1, 1.0, estimated=True))]
    assert cost_figures(rows, "m", PRICES).tokens_estimated
    unpriced = cost_figures(rows, "no-such-model", PRICES)
    assert unpriced.usd is None and unpriced.usd_per_1k_chunks is None and unpriced.price is None
    nothing = cost_figures([_row("failed")], "m", PRICES)
    assert (nothing.chunks, nothing.calls_per_chunk, nothing.usd_per_1k_chunks) == (0, None, None)
