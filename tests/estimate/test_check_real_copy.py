"""The issue's check on a real cache: Minda93's III_2024_golf GraphRAG 1.x project (public, copied
under /work/scratch/public/; its cache keeps every response's `usage`). A projection from 20 of its
58 chunks must hold the cache's real total within its interval (scripts/check_estimate_real_cache.py).
Skipped where the copy is not on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripts import load_script

PROJECT = Path("/work/scratch/public/Minda93-III_2024_golf/ragtest")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (PROJECT / "cache").is_dir(), reason=f"no copy of the project at {PROJECT}")]


def test_projection_holds_the_caches_real_total_real_copy(tmp_path: Path) -> None:
    result = load_script("check_estimate_real_cache").check(PROJECT, sample=20, seed=7, work=tmp_path / "work")
    assert (result.sampled, result.chunks) == (20, 58)
    assert result.real == 1_333_457  # every gpt-4o-mini chat call the cache holds, summed from its files
    assert result.passed, "\n".join(result.lines())
    assert result.low is not None and result.high is not None and result.high - result.low < 0.1 * result.real
