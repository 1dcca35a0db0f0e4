"""bench/figures.py's workload keeps its shape (not timed: the figures are only printed).

Running `bench/figures.py --quick` itself takes about 95 s (it times real processes), so that
check lives with the benchmarks: bench/test_figures_quick.py, run by `make bench`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from peers import promptfoo, workload  # noqa: E402

from harness.parsing import has_format_errors
from harness.formats.answer import parse  # noqa: E402



def test_the_fixed_answer_is_the_issues_answer_and_its_gold():
    answer = workload.answer()
    assert 1600 <= len(answer.encode("utf-8")) <= 1700  # "one fixed 1.6 KB GraphRAG answer"
    parsed = parse(answer, "graphrag")
    assert not has_format_errors(parsed)
    assert len(parsed.graph.entities) == 10
    assert len(parsed.graph.relationships) == 8
    entities, relationships = workload.gold()
    assert [e.name for e in parsed.graph.entities] == [e["name"].upper() for e in entities]
    assert [(r.source, r.target) for r in parsed.graph.relationships] == [
        (r["source"].upper(), r["target"].upper()) for r in relationships]


def test_chunks_are_300_words_and_repeatable():
    first = workload.chunks(3)
    assert [len(c.split()) for c in first] == [300, 300, 300]
    assert workload.chunks(3) == first
    assert len(set(first)) == 3
    assert workload.chunks(5)[:3] == first  # a smaller suite's cases are a larger one's prefix


def test_promptfoo_config_has_every_case_and_two_contains_assertions(tmp_path):
    config = json.loads(promptfoo.write_config(tmp_path, 3).read_text(encoding="utf-8"))
    assert [t["vars"]["text"] for t in config["tests"]] == workload.chunks(3)
    checks = config["defaultTest"]["assert"]
    assert [c["type"] for c in checks] == ["contains", "contains"]
    assert all(c["value"] in workload.answer() for c in checks)
    assert json.dumps(workload.answer()) in (tmp_path / "provider.js").read_text(encoding="utf-8")
    prompt = (tmp_path / "prompt.txt").read_text(encoding="utf-8")
    assert prompt.count("{{text}}") == 1 and "{input_text}" not in prompt


@pytest.mark.parametrize("peer, ours, expected", [(16.6, 9.9, "1.68x"), (None, 1.0, "n/a"), (3.0, 0.0, "n/a")])
def test_ratio(peer, ours, expected):
    sys.path.insert(0, str(ROOT / "bench"))
    from figures import ratio

    assert ratio(peer, ours) == expected
