"""A variant's cost and latency per chunk, from its rows' calls (summary.json's `cost` and `latency`).

A chunk is a row that got an answer (a case, or a (case, sample) with `--repeat`); its calls are
its rounds: the extraction, every gleaning continuation and every loop check. Dollars are reckoned
per call at the price table's entry for the variant's model (`llm/pricing.py`): cached prompt
tokens at the cached-input price, calls answered by the Batch API at batch prices. Latencies are
the rounds' whose source is known (`Round.timed`: measured live, or kept in the cassette when it
was recorded); a chunk's latency is its calls' sum, counted only when every call of it is timed.

Percentiles interpolate linearly between the two nearest ranks (numpy's default): over sorted
values v[0..n-1], the q-th is at position (n - 1) * q. With no value they are n/a (None), never 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .artifacts import CostFigures, LatencyFigures, PriceUsed
from .llm.pricing import Price, calls_cost, price_for
from .model import CaseResult


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th quantile (0 <= q <= 1) of `values`, interpolated linearly; None without values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _rounded(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _price_key(model: str, prices: Mapping[str, Price]) -> str | None:
    if model in prices:
        return model
    matches = [name for name in prices if model.startswith(name)]
    return max(matches, key=len) if matches else None


def cost_figures(rows: Sequence[CaseResult], model: str, prices: Mapping[str, Price]) -> CostFigures:
    """Tokens, calls and dollars of the chunks that got an answer, per chunk and per 1,000 chunks."""
    answered = [row for row in rows if row.rounds]
    calls = [r for row in answered for r in row.rounds]
    # a row's usage is its rounds' summed (rows of `harness evaluate` have rounds without usage)
    usage = [(r.usage, r.batch) for r in calls]
    exact = calls_cost(usage, model, prices, digits=None)
    usd = None if exact is None else round(exact, 6)
    chunks = len(answered)
    price = price_for(model, prices)
    key = _price_key(model, prices)
    return CostFigures(
        chunks=chunks,
        calls=len(calls),
        calls_per_chunk=round(len(calls) / chunks, 6) if chunks else None,
        input_tokens=sum(r.usage.prompt_tokens for r in calls),
        output_tokens=sum(r.usage.completion_tokens for r in calls),
        cached_tokens=sum(r.usage.cached_tokens for r in calls),
        tokens_estimated=any(r.usage.estimated for r in calls),
        batch_calls=sum(1 for r in calls if r.batch),
        usd=usd,
        usd_per_1k_chunks=round(exact / chunks * 1000, 6) if exact is not None and chunks else None,
        price=PriceUsed(model=key, as_of=price.as_of, source=price.source) if price is not None and key else None,
    )


def latency_figures(rows: Sequence[CaseResult]) -> LatencyFigures:
    """p50 and p95 per call and per chunk over the calls whose latency is known (module docstring)."""
    timed = [r for row in rows for r in row.rounds if r.timed]
    per_call = [float(r.latency_s) for r in timed if r.latency_s is not None]
    per_chunk = [sum(float(r.latency_s or 0.0) for r in row.rounds)
                 for row in rows if row.rounds and all(r.timed for r in row.rounds)]
    sources = {r.latency_from for r in timed}
    source = None if not sources else sources.pop() if len(sources) == 1 else "mixed"
    return LatencyFigures(
        source=source,
        calls_timed=len(per_call),
        chunks_timed=len(per_chunk),
        p50_call_s=_rounded(percentile(per_call, 0.50)),
        p95_call_s=_rounded(percentile(per_call, 0.95)),
        p50_chunk_s=_rounded(percentile(per_chunk, 0.50)),
        p95_chunk_s=_rounded(percentile(per_chunk, 0.95)),
    )
