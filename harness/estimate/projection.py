"""The projection: each variant's measured cases scaled to the corpus's units, and the later
stages (description summaries, community reports, claims) from the cache's ratios per chunk.

Extraction (or the suite's own kind) is the mean per sampled case times the corpus's units, each
figure with the 95% Student t interval of its mean (no finite-population correction, so it is
conservative when the sample is drawn from the corpus itself): n/a below MIN_SAMPLE cases. On
Minda93's golf project (scripts/check_estimate_real_cache.py --coverage) it held the cache's real
extraction total in 99% of random samples of 10 and 20 of its 58 chunks; a percentile bootstrap
held it in 91% of the samples of 10. Input tokens are adjusted to the corpus's mean chunk length
only when the sample's chunks are far from it (chunk_adjustment: hand-written chunks). A
later stage is the cache's calls per chunk times the corpus's chunks, each call its mean measured
tokens: a ratio of the whole cache, taken as exact (no interval of its own), so the total's
interval is the sampled stage's, shifted by the later stages. Dollars price every token at the
variant's model's price (harness/llm/pricing.py): the engine runs every stage with one model.
Wall time is the sum of the calls' latencies divided by the concurrency: n/a where a stage's
latency was not recorded (a replayed run's calls took no time at the endpoint)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..llm.pricing import Price, price_for
from .cache_profile import STAGES, CacheProfile, KindCalls
from .corpus import Corpus
from .sample import CaseSample, VariantSample

MIN_SAMPLE = 10
CONFIDENCE = 0.95
ADJUST_BEYOND = 0.25  # the sample's mean chunk this far from the corpus's: input tokens adjusted
INTERVAL_METHOD = (f"{CONFIDENCE:.0%} Student t interval of the mean per sampled case (n - 1 degrees of freedom, "
                   f"no finite-population correction), times the corpus's units; n/a below {MIN_SAMPLE} cases")


@dataclass(frozen=True)
class Figure:
    """A projected value and its interval (None: n/a)."""

    value: float | None
    low: float | None = None
    high: float | None = None

    def to_json(self) -> dict[str, float | None]:
        return {"value": self.value, "low": self.low, "high": self.high}


NA = Figure(None)


@dataclass(frozen=True)
class Stage:
    name: str  # extraction (with gleaning), summary, report, claims
    source: str  # what it was measured on
    units: float | None  # the cases it projects (chunks; calls for a per-call suite)
    calls: Figure
    prompt_tokens: Figure
    completion_tokens: Figure
    tokens: Figure
    dollars: Figure
    wall_s: Figure

    def to_json(self) -> dict[str, object]:
        return {"stage": self.name, "source": self.source, "units": self.units,
                **{name: getattr(self, name).to_json() for name in
                   ("calls", "prompt_tokens", "completion_tokens", "tokens", "dollars", "wall_s")}}


@dataclass(frozen=True)
class VariantProjection:
    variant: str
    model: str
    sampled: int
    left_out: int
    price: tuple[float, float] | None
    gleanings_per_chunk: float | None
    estimated_usage: bool
    stages: list[Stage]
    total: Stage
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "variant": self.variant, "model": self.model, "sampled_cases": self.sampled, "left_out": self.left_out,
            "price_per_million": None if self.price is None else {"input": self.price[0], "output": self.price[1]},
            "gleanings_per_chunk": self.gleanings_per_chunk, "estimated_usage": self.estimated_usage,
            "stages": [s.to_json() for s in self.stages], "total": self.total.to_json(), "notes": list(self.notes),
        }


def _dollars(prompt: np.ndarray, completion: np.ndarray, price: tuple[float, float] | None) -> np.ndarray | None:
    if price is None:
        return None
    return (prompt * price[0] + completion * price[1]) / 1_000_000


def t_interval(values: np.ndarray) -> tuple[float, float] | None:
    """The Student t interval of the mean of `values` (n - 1 degrees of freedom), None below MIN_SAMPLE."""
    n = len(values)
    if n < MIN_SAMPLE:
        return None
    from scipy import stats  # loaded here: the numerical library only this command needs

    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1)) * float(values.std(ddof=1)) / math.sqrt(n)
    mean = float(values.mean())
    return mean - half, mean + half


def chunk_adjustment(cases: list[CaseSample], mean_chunk: float | None) -> np.ndarray | None:
    """Per case, the input tokens to add for a chunk of the corpus's mean length: `calls x
    (mean_chunk - its chunk)`, since every call of a case sends its chunk (the first request, and
    the history of each gleaning and loop check). None (no adjustment) when the sample's mean
    chunk is within ADJUST_BEYOND of the corpus's: the sample is then the engine's chunks (an
    imported suite), whose spread the interval already holds."""
    if mean_chunk is None or not cases or any(c.chunk_tokens is None for c in cases):
        return None
    own = sum(c.chunk_tokens or 0 for c in cases) / len(cases)
    if abs(own - mean_chunk) <= ADJUST_BEYOND * mean_chunk:
        return None
    return np.array([c.calls * (mean_chunk - (c.chunk_tokens or 0)) for c in cases], dtype=np.float64)


def sampled_stage(name: str, sample: VariantSample, units: float, price: tuple[float, float] | None,
                  concurrency: int, *, mean_chunk: float | None = None) -> Stage:
    """The sampled cases' means times `units`, each with its t interval; `mean_chunk`: the corpus's
    mean chunk tokens (chunk_adjustment)."""
    cases = sample.cases
    if not cases:
        return Stage(name, "no case measured", units, NA, NA, NA, NA, NA, NA)
    prompt = np.array([c.prompt_tokens for c in cases], dtype=np.float64)
    shift = chunk_adjustment(cases, mean_chunk)
    if shift is not None:
        prompt = np.maximum(prompt + shift, 0.0)
    completion = np.array([c.completion_tokens for c in cases], dtype=np.float64)
    columns = {"calls": np.array([c.calls for c in cases], dtype=np.float64), "prompt": prompt,
               "completion": completion, "tokens": prompt + completion}
    dollars = _dollars(prompt, completion, price)
    if dollars is not None:
        columns["dollars"] = dollars
    if all(c.latency_s is not None for c in cases):
        columns["wall"] = np.array([c.latency_s or 0.0 for c in cases], dtype=np.float64) / concurrency

    def figure(column: str) -> Figure:
        values = columns.get(column)
        if values is None:
            return NA
        interval = t_interval(values)
        if interval is None:
            return Figure(float(values.mean()) * units)
        return Figure(float(values.mean()) * units, interval[0] * units, interval[1] * units)

    source = f"{len(cases)} sampled case(s) of the run, x {units:g}"
    if shift is not None:
        own = sum(c.chunk_tokens or 0 for c in cases) / len(cases)
        source += f"; input at the corpus's mean chunk of {mean_chunk:,.0f} tokens (the sample's: {own:,.0f})"
    return Stage(name, source, units, figure("calls"), figure("prompt"), figure("completion"), figure("tokens"),
                 figure("dollars"), figure("wall"))


def ratio_stage(name: str, measured: KindCalls, cache_chunks: int, chunks: int, price: tuple[float, float] | None,
                concurrency: int) -> Stage:
    """A later stage: the cache's calls per chunk times the corpus's chunks, at its mean tokens per call."""
    calls = measured.calls / cache_chunks * chunks
    prompt = calls * float(np.mean(measured.prompt))
    completion = calls * float(np.mean(measured.completion))
    dollars = None if price is None else (prompt * price[0] + completion * price[1]) / 1_000_000
    wall = (calls * float(np.mean(measured.latency)) / concurrency
            if measured.latency and len(measured.latency) == measured.calls else None)
    source = f"cache: {measured.calls} call(s) over {cache_chunks} chunk(s), x {chunks}"
    return Stage(name, source, float(chunks), Figure(calls), Figure(prompt), Figure(completion),
                 Figure(prompt + completion), Figure(dollars), Figure(wall))


def _sum(figures: list[Figure]) -> Figure:
    if any(f.value is None for f in figures):
        return NA
    value = sum(f.value or 0.0 for f in figures)
    if any(f.low is None or f.high is None for f in figures[:1]):
        return Figure(value)
    shift = sum(f.value or 0.0 for f in figures[1:])
    return Figure(value, (figures[0].low or 0.0) + shift, (figures[0].high or 0.0) + shift)


def total(stages: list[Stage]) -> Stage:
    """The stages summed; the interval is the first (sampled) stage's, shifted by the others'."""
    units = stages[0].units
    fields = ("calls", "prompt_tokens", "completion_tokens", "tokens", "dollars", "wall_s")
    summed = {name: _sum([getattr(s, name) for s in stages]) for name in fields}
    return Stage("total", " + ".join(s.name for s in stages), units, **summed)


def project_variant(sample: VariantSample, *, kind_stage: str, corpus: Corpus, profile: CacheProfile | None,
                    prices: Mapping[str, Price], concurrency: int) -> VariantProjection:
    """One variant's projection. `kind_stage`: the stage the suite's cases are (extraction, claims:
    one case per chunk; summary, report: one case per call, as many as the cache has per chunk)."""
    listed = price_for(sample.model, prices)  # list prices: the engine's indexing calls are sent live
    price = None if listed is None else (listed.input, listed.output)
    notes: list[str] = []
    if price is None:
        notes.append(f"{sample.model}: no price in the table (prices.yaml): dollars n/a")
    per_chunk = kind_stage in ("extraction", "claims")
    later = [s for s in STAGES if s != kind_stage] if kind_stage == "extraction" else []
    if per_chunk:
        units: float | None = float(corpus.chunks)
    elif profile is not None and profile.chunks and profile.stage(kind_stage) is not None:
        units = (profile.stage(kind_stage) or KindCalls()).calls / profile.chunks * corpus.chunks
    else:
        units = None
        notes.append(f"{kind_stage} calls per chunk: n/a without a cache that holds them (--cache)")
    stages: list[Stage] = []
    if units is None:
        stages.append(Stage(kind_stage, "no calls per chunk known", None, NA, NA, NA, NA, NA, NA))
    else:
        stages.append(sampled_stage(kind_stage, sample, units, price, concurrency,
                                    mean_chunk=corpus.tokens / corpus.chunks if per_chunk else None))
    if sample.cases and stages[0].wall_s.value is None:
        notes.append("latency n/a: the run replayed its calls (record mode all or rewrite records it)")
    if len(sample.cases) < MIN_SAMPLE:
        notes.append(f"{len(sample.cases)} case(s) measured: intervals n/a below {MIN_SAMPLE}")
    for stage in later:
        measured = profile.stage(stage) if profile is not None else None
        if profile is None:
            continue
        if measured is None:
            continue  # the cache made no such call: the project does not run that stage
        if profile.chunks is None:
            notes.append(f"{stage}: n/a: {profile.chunks_source}")
            stages.append(Stage(stage, "cache: chunks unknown", None, NA, NA, NA, NA, NA, NA))
            continue
        stages.append(ratio_stage(stage, measured, profile.chunks, corpus.chunks, price, concurrency))
    if kind_stage == "extraction" and profile is None:
        notes.append("description summaries, community reports and claims: not projected without a cache (--cache)")
    gleanings = (sum(c.gleanings for c in sample.cases) / len(sample.cases)) if sample.cases and per_chunk else None
    return VariantProjection(
        variant=sample.variant, model=sample.model, sampled=len(sample.cases), left_out=sample.left_out,
        price=price, gleanings_per_chunk=gleanings, estimated_usage=any(c.estimated for c in sample.cases),
        stages=stages, total=total(stages), notes=notes,
    )
