"""On a real copy of Text2KGBench (its baselines' LLM responses), when one is given in
TEXT2KGBENCH_DIR (a checkout of github.com/cenguix/Text2KGBench); skipped without it. Nothing
of it is copied into the project."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.formats.answer import parse


def _response_files() -> list[Path]:
    root = os.environ.get("TEXT2KGBENCH_DIR")
    if not root or not Path(root).is_dir():
        pytest.skip("no real Text2KGBench copy (set TEXT2KGBENCH_DIR)")
    files = sorted(Path(root).glob("data/*/baselines/*/llm_responses/*.jsonl"))
    if not files:
        pytest.skip(f"{root}: no data/*/baselines/*/llm_responses/*.jsonl")
    return files


def _well_formed(triple: list[object]) -> tuple[str, str, str] | None:
    """A triple of the benchmark's own parsing that a person would also read: three non-empty
    parts, brackets balanced (its parser cuts `Dick Dillin (American)` at the first `)`), no
    predicate cut at an escaped underscore (`_company`)."""
    if len(triple) != 3 or not all(isinstance(v, str) for v in triple):
        return None
    s, p, o = (str(v).strip().strip('"').strip() for v in triple)
    if not (s and p and o) or p.startswith("_") or any(v.count("(") != v.count(")") for v in (s, o)):
        return None
    return s, p.replace("\\_", "_"), o


def test_real_text2kgbench_responses_parse_and_agree_with_its_own_triples() -> None:
    total = agreed = 0
    for path in _response_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            result = parse(row.get("response") or "", "function")
            assert not any(i.code == "internal-error" for i in result.format_report.issues), row["id"]
            ours = {(r.source, r.type, r.target) for r in result.graph.relationships}
            for triple in row.get("triples") or []:
                theirs = _well_formed(triple)
                if theirs is not None:
                    total += 1
                    agreed += theirs in ours
    # measured on commit 50a3d25 of the benchmark: 45,161 of 47,493 (95.1%); the rest are triples
    # its parser finds inside prose lines, and predicates written with spaces (`LCCN number(`)
    assert total > 0 and agreed / total >= 0.93
