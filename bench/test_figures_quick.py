"""`bench/figures.py --quick` prints every row of the table (run by `make bench`, not `make test`).

A benchmark, not a unit test: it runs the real processes it times (about 95 s each), so it stays
out of `make test`; tests/test_bench_figures.py keeps the cheap checks of the workload.
The quick mode runs on a tiny workload with no node/npm on PATH, so the promptfoo row must say
n/a with the reason instead of failing; every other row must carry a figure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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
