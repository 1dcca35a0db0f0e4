"""bench/figures.py and its workload keep working (not timed: the figures are only printed).

The quick mode runs on a tiny workload with no node/npm on PATH, so the promptfoo row must say
n/a with the reason instead of failing; every other row must carry a figure.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from peers import promptfoo, workload  # noqa: E402

from harness.parsing import has_format_errors, parse  # noqa: E402

AIMS = [
    "replay 4 x 1 variant, whole process",
    "promptfoo 0.121.20, 4 cases, 2 contains assertions",
    "replay 4 x 2 variants (8 calls) <= 4 s whole process",
    "peak memory <= 200 MB, flat from 500 to 20,000 cases",
    "`harness --help` <= 0.3 s",
    "`harness parse` of one answer <= 0.3 s",
    "pytest plugin adds nothing measurable",
    "recording at <= 1.2x the latency-bound ideal",
]


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


def _quick_figures(tmp_path: Path, *extra: str) -> list[str]:
    """The table rows of `bench/figures.py --quick` on 4 cases, with no node/npm on PATH."""
    bare = tmp_path / "bin"  # no node, no npm: promptfoo cannot be installed
    bare.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}
    env.update(PATH=str(bare), KG_HARNESS_BENCH_CACHE=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "figures.py"), "--quick", "--cases", "4", "--memory-sizes", "2", "4",
         "--repeat", "1", "--record-calls", "4", "--record-latency", "0.01", "--record-concurrency", "2", *extra],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "cache").exists()  # nothing installed
    return [line for line in done.stdout.splitlines() if line.startswith("| ") and not line.startswith("| aim")]


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip("|").split(" | ")]


def test_quick_figures_print_every_row(tmp_path):
    rows = _quick_figures(tmp_path)
    assert len(rows) == len(AIMS)
    for aim, row in zip(AIMS, rows):
        cells = _cells(row)
        assert cells[0].startswith(aim), row
        assert cells[2].startswith("`") and cells[2].endswith("`"), row
        if aim.startswith("promptfoo"):
            assert cells[1] == "n/a (node/npm not found on PATH)", row
        else:
            assert not cells[1].startswith("n/a"), row
            assert re.search(r"\d", cells[1]), row
    memory = rows[3]
    assert "MB at 2;" in memory and "MB at 4 " in memory


def test_before_figures_show_both_checkouts_and_their_ratio(tmp_path):
    """`--before CHECKOUT` measures that code, then this one, on the same cassettes (here the same
    checkout twice: the table's shape, not its numbers, is what is checked)."""
    rows = _quick_figures(tmp_path, "--before", str(ROOT))
    assert len(rows) == len(AIMS)
    for aim, row in zip(AIMS, rows):
        figure = _cells(row)[1]
        if aim.startswith("promptfoo"):
            assert figure == "n/a (node/npm not found on PATH)", row
            continue
        assert re.fullmatch(r"before: .+\d.* · after: .+\d.*", figure), row
        if aim.startswith(("replay", "peak memory", "`harness")):
            assert re.search(r"\(\d+\.\d\dx before\)$", figure), row


@pytest.mark.parametrize("peer, ours, expected", [(16.6, 9.9, "1.68x"), (None, 1.0, "n/a"), (3.0, 0.0, "n/a")])
def test_ratio(peer, ours, expected):
    sys.path.insert(0, str(ROOT / "bench"))
    from figures import ratio

    assert ratio(peer, ours) == expected
