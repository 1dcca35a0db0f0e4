"""Sample to corpus: means times units with t intervals, the later stages from the cache's ratios."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from scipy import stats

from harness.llm.pricing import Price
from harness.estimate.cache_profile import KindCalls, read_profile
from harness.estimate.corpus import Corpus
from harness.estimate.projection import (MIN_SAMPLE, chunk_adjustment, project_variant, ratio_stage, sampled_stage,
                                         total)
from harness.estimate.sample import CaseSample, VariantSample
from tests.support.graphrag_cache_files import write_fnllm_cache

PRICES = {"gpt-4o-mini": Price(input=0.15, output=0.60)}


def _cases(n: int, *, chunk: int | None = None, latency: float | None = None) -> list[CaseSample]:
    return [CaseSample(f"c{i}", 1000 + 37 * i, 200 + (i % 3) * 10, 3, 1, latency, False, chunk) for i in range(n)]


def _corpus(chunks: int, mean_chunk: int = 1000) -> Corpus:
    return Corpus(chunks, 1, chunks * mean_chunk, "cl100k_base", "test corpus")


def test_the_sample_mean_times_the_units_with_its_t_interval() -> None:
    cases = _cases(12)
    stage = sampled_stage("extraction", VariantSample("v", "gpt-4o-mini", cases, 0), 500.0, (0.15, 0.60), 8)
    tokens = np.array([c.prompt_tokens + c.completion_tokens for c in cases], dtype=float)
    half = stats.t.ppf(0.975, 11) * tokens.std(ddof=1) / math.sqrt(12)
    assert stage.tokens.value == tokens.mean() * 500
    assert math.isclose(stage.tokens.low or 0, (tokens.mean() - half) * 500)
    assert math.isclose(stage.tokens.high or 0, (tokens.mean() + half) * 500)
    assert stage.calls.value == 1500 and stage.calls.low == stage.calls.high == 1500  # every case made 3 calls
    dollars = sum(c.prompt_tokens * 0.15 + c.completion_tokens * 0.60 for c in cases) / 12 / 1e6 * 500
    assert math.isclose(stage.dollars.value or 0, dollars)
    assert stage.wall_s.value is None  # replayed: no latency


def test_too_small_a_sample_has_no_interval() -> None:
    stage = sampled_stage("extraction", VariantSample("v", "m", _cases(MIN_SAMPLE - 1), 0), 10.0, None, 1)
    assert stage.tokens.value is not None and (stage.tokens.low, stage.tokens.high) == (None, None)
    assert stage.dollars.value is None  # no price


def test_latency_becomes_wall_time_at_the_concurrency() -> None:
    stage = sampled_stage("extraction", VariantSample("v", "m", _cases(10, latency=6.0), 0), 100.0, None, 4)
    assert stage.wall_s.value == 6.0 * 100 / 4


def test_input_is_adjusted_only_for_chunks_far_from_the_corpus() -> None:
    near, far = _cases(10, chunk=900), _cases(10, chunk=300)
    assert chunk_adjustment(near, 1000.0) is None  # within 25%: the engine's own chunks
    assert chunk_adjustment(_cases(10), 1000.0) is None  # chunk tokens unknown
    shift = chunk_adjustment(far, 1000.0)
    assert shift is not None and list(shift) == [3 * 700.0] * 10  # three calls, each sending the chunk
    plain = sampled_stage("extraction", VariantSample("v", "m", far, 0), 10.0, None, 1)
    adjusted = sampled_stage("extraction", VariantSample("v", "m", far, 0), 10.0, None, 1, mean_chunk=1000.0)
    assert (adjusted.prompt_tokens.value or 0) - (plain.prompt_tokens.value or 0) == 10 * 2100
    assert "mean chunk of 1,000 tokens" in adjusted.source


def test_a_later_stage_is_the_caches_calls_per_chunk() -> None:
    summaries = KindCalls(calls=6, prompt=[300, 310, 320, 330, 340, 350], completion=[60] * 6)
    stage = ratio_stage("summary", summaries, cache_chunks=4, chunks=40, price=(1.0, 2.0), concurrency=2)
    assert stage.calls.value == 60 and stage.prompt_tokens.value == 60 * 325 and stage.completion_tokens.value == 3600
    assert stage.dollars.value == (60 * 325 * 1.0 + 3600 * 2.0) / 1e6 and stage.wall_s.value is None


def test_the_total_shifts_the_sampled_interval() -> None:
    sampled = sampled_stage("extraction", VariantSample("v", "m", _cases(12), 0), 100.0, None, 1)
    later = ratio_stage("report", KindCalls(calls=2, prompt=[2000, 3000], completion=[500, 700]), 4, 100, None, 1)
    summed = total([sampled, later])
    shift = later.tokens.value or 0
    assert summed.tokens.value == (sampled.tokens.value or 0) + shift
    assert summed.tokens.low == (sampled.tokens.low or 0) + shift and summed.tokens.high == (sampled.tokens.high or 0) + shift
    assert summed.wall_s.value is None and summed.dollars.value is None


def test_a_variant_with_its_projects_cache(tmp_path: Path) -> None:
    written = write_fnllm_cache(tmp_path, chunks=4, summaries=6, reports=2)
    profile = read_profile(tmp_path, model="gpt-4o-mini", corpus_chunks=None)
    sample = VariantSample("tuned", "gpt-4o-mini", _cases(12), 1)
    projection = project_variant(sample, kind_stage="extraction", corpus=_corpus(40), profile=profile,
                                 prices=PRICES, concurrency=8)
    assert [s.name for s in projection.stages] == ["extraction", "summary", "report"]
    assert projection.stages[1].tokens.value == sum(written["summary"]) * 10  # 40 chunks for the cache's 4
    assert projection.total.tokens.value == sum(s.tokens.value or 0 for s in projection.stages)
    assert projection.gleanings_per_chunk == 1.0 and projection.left_out == 1
    bare = project_variant(sample, kind_stage="extraction", corpus=_corpus(40), profile=None, prices={}, concurrency=8)
    assert [s.name for s in bare.stages] == ["extraction"]
    assert any("no price" in n for n in bare.notes) and any("without a cache" in n for n in bare.notes)


def test_a_per_call_suite_needs_the_caches_calls_per_chunk(tmp_path: Path) -> None:
    write_fnllm_cache(tmp_path, chunks=4, summaries=6, reports=2)
    profile = read_profile(tmp_path, model="gpt-4o-mini", corpus_chunks=None)
    sample = VariantSample("v", "gpt-4o-mini", _cases(12), 0)
    summary = project_variant(sample, kind_stage="summary", corpus=_corpus(40), profile=profile, prices=PRICES,
                              concurrency=1)
    assert [s.name for s in summary.stages] == ["summary"] and summary.stages[0].units == 60.0
    blind = project_variant(sample, kind_stage="summary", corpus=_corpus(40), profile=None, prices=PRICES,
                            concurrency=1)
    assert blind.total.tokens.value is None and any("calls per chunk: n/a" in n for n in blind.notes)
