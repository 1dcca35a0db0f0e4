"""Lint over the real prompts in ../shared/corpus: never raises, and finds the defects real projects ship."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.prompts import lint_text

from ..conftest import SHARED_CORPUS as CORPUS


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_file(), reason="the shared corpus is not here")
def test_shared_corpus_prompts_lint_without_raising() -> None:
    prompts: dict[str, str] = {}
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("prompt"):
            prompts.setdefault(row["prompt"], row["call"])
    found: Counter[tuple[str, str]] = Counter()
    for prompt, call in prompts.items():
        fmt = {"claims": "claims", "community_report": "report"}.get(call, "graphrag")
        for finding in lint_text(prompt, source=call, format=fmt):
            assert finding.line >= 1 and finding.hint
            found[(call, finding.code)] += 1
    # auto-tuned extraction prompts in the wild: refusals as few-shot answers, a sentence as the language
    assert found[("extract", "example-not-extraction")] > 0
    assert found[("extract", "language-sentence")] > 0
