"""A run's rows as sample units: every call of a case, its gleanings, its latency when live."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.estimate.sample import case_sample, latest_run, with_chunk_tokens, VariantSample
from harness.model import CaseResult, Round, Usage


def _row(**more: object) -> CaseResult:
    rounds = [Round(index=0, kind="extract", output="a", usage=Usage(prompt_tokens=900, completion_tokens=100), latency_s=2.0),
              Round(index=1, kind="continue", output="b", usage=Usage(prompt_tokens=1100, completion_tokens=40), latency_s=1.0),
              Round(index=2, kind="loop", output="N", usage=Usage(prompt_tokens=1200, completion_tokens=1), latency_s=0.5)]
    data: dict[str, object] = {"suite": "s", "variant": "v", "case_id": "c", "rounds": rounds,
                               "usage": Usage(prompt_tokens=3200, completion_tokens=141), **more}
    return CaseResult.model_validate(data)


def test_a_rows_calls_tokens_and_gleanings() -> None:
    measured = case_sample(_row(), live=True)
    assert measured is not None
    assert (measured.prompt_tokens, measured.completion_tokens, measured.calls, measured.gleanings) == (3200, 141, 3, 1)
    assert measured.latency_s == 3.5
    replayed = case_sample(_row(), live=False)
    assert replayed is not None and replayed.latency_s is None


def test_rows_that_measured_nothing_are_left_out() -> None:
    assert case_sample(_row(error="timeout"), live=False) is None
    assert case_sample(_row(usage=Usage()), live=False) is None
    assert case_sample(_row(rounds=[]), live=False) is None


def test_chunk_tokens_are_counted_in_the_corpus_encoding() -> None:
    measured = case_sample(_row(), live=False)
    assert measured is not None
    sample = with_chunk_tokens(VariantSample("v", "m", [measured], 0), {"c": "one two three"}, "cl100k_base")
    assert sample.cases[0].chunk_tokens == 3
    assert with_chunk_tokens(VariantSample("v", "m", [measured], 0), {}, "cl100k_base").cases[0].chunk_tokens is None


def test_the_newest_finished_run_is_taken(tmp_path: Path) -> None:
    for run, finished in (("20260101T000000", True), ("20260301T000000", True), ("20260401T000000", False)):
        (tmp_path / "s" / run).mkdir(parents=True)
        if finished:
            (tmp_path / "s" / run / "summary.json").write_text("{}")
    assert latest_run(tmp_path, "s").name == "20260301T000000"
    with pytest.raises(InputError, match="no finished run of suite other"):
        latest_run(tmp_path, "other")
