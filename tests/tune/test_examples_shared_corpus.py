"""The example judge on the few-shot examples that real projects' tuned prompts carry (../shared/corpus).

Weak tuning models wrote some of them: answers that summarise or translate the passage instead of
extracting. Those must be rejected; the real extractions beside them must be kept.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from harness.tune.examples import judge_example

from ..conftest import SHARED_CORPUS as CORPUS
SEPARATOR = r"\n[#\-=]{3,}[^\n]*\n"
EXAMPLE = re.compile(r"(?:Entity_types:\s*(?P<types>[^\n]*)\n)?\s*text:\s*\n?(?P<text>.*?)" + SEPARATOR
                     + r"\s*output:\s*\n(?P<out>.*?)(?=\n#{3,}|\n-{5,}|\nExample \d|\Z)", re.S | re.I)


@pytest.mark.skipif(not CORPUS.is_file(), reason="the shared corpus is not here")
def test_tuned_prompt_examples_in_the_shared_corpus_are_judged_like_a_reviewer_would() -> None:
    heads: dict[str, str] = {}
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        prompt = row.get("prompt") or ""
        if row["call"] == "extract" and prompt:
            heads.setdefault(prompt.split("-Real Data-")[0], row["repo"])
    verdicts: Counter[str] = Counter()
    rejected: list[str] = []
    for head in heads:
        for match in EXAMPLE.finditer(head):
            types = [t.strip().strip("'\"") for t in (match["types"] or "").strip().strip("[]").split(",") if t.strip()]
            verdict = judge_example(match["out"], chunk=match["text"], entity_types=types or None)
            verdicts[verdict.kind] += 1
            if not verdict.kept:
                rejected.append(match["out"])
    assert sum(verdicts.values()) >= 12
    # every rejected example is one a person would reject: prose instead of records
    assert rejected and all('("entity"' not in answer for answer in rejected)
    assert verdicts["summary"] + verdicts["prose"] + verdicts["refusal"] == len(rejected)
    assert verdicts["ok"] >= 2 * len(rejected)
