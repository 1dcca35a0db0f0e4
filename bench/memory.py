"""Benchmark: peak memory of `harness run` and the size of its run files, by suite size.

    .venv/bin/python bench/memory.py [--cases 500 2000 20000] [--variants 2] [--before CHECKOUT] [--work DIR]

The workload of bench/figures.py (issue 18's: 300-word chunks, one fixed 1.6 KB answer, gold cut
to MEMORY_GOLD so that earlier checkouts load 20,000 cases too), N cases x 1 or 2 variants. The
largest suite's cassettes are recorded once from the local test server (not timed; smaller suites
are prefixes of it and share them); then `harness run SUITE --fresh` replays each in a fresh
process and its peak memory (ru_maxrss via wait4), wall time and the bytes of summary.json,
report.html and the per-case file are printed as one JSON line. With `--before`, each size is run
with that checkout first, then this one, back to back on the same cassettes, and the ratios of
this one's figures to the earlier ones are printed last. `--work DIR` keeps the recorded project
in DIR (reused when it is there). Issue 31's aims: peak at most 200 MB at every size, and the
largest at most 1.25x the smallest; summary.json at most 1 MB at 20,000 x 2. Printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from figures import MEMORY_GOLD, THIS, Code, record, replay, write_suite  # noqa: E402


def run_files(root: Path) -> dict[str, int]:
    """Bytes of the newest run folder's summary.json, report.html and per-case file (if any)."""
    runs = sorted((p for p in (root / "reports").rglob("summary.json")), key=lambda p: p.stat().st_mtime)
    if not runs:
        return {}
    folder = runs[-1].parent
    return {name: (folder / name).stat().st_size
            for name in ("summary.json", "case_diffs.jsonl", "report.html", "results.jsonl") if (folder / name).exists()}


_SPLIT = """\
import resource, sys
import harness.finish as finish
at = []
original = finish.finish_run
def wrapped(*args, **kwargs):
    at.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return original(*args, **kwargs)
finish.finish_run = wrapped
from harness.cli import main
rc = main(['run', {suite!r}, '--reports', 'reports', '--fresh'])
print('SPLIT', rc, at[0] if at else 0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def split(root: Path, suite: Path, code: Code) -> dict[str, float]:
    """Peak memory of the run before its finish began, and at its end (MB)."""
    done = subprocess.run([sys.executable, "-c", _SPLIT.format(suite=str(suite.relative_to(root)))], cwd=root,
                          env=code.env(), capture_output=True, text=True)
    line = [part for part in done.stderr.splitlines() if part.startswith("SPLIT")]
    if not line:
        raise SystemExit(done.stderr[-2000:])
    _, _, before, after = line[0].split()
    return {"peak_before_finish_mb": round(int(before) / 1024, 1), "peak_at_end_mb": round(int(after) / 1024, 1)}


def measure(root: Path, suites: dict[int, Path], code: Code, with_split: bool = False) -> dict[int, dict]:
    figures: dict[int, dict] = {}
    for size, suite in sorted(suites.items()):
        process = replay(root, suite, None, code)
        figures[size] = {"code": code.label, "cases": size, "peak_rss_mb": round(process.peak_rss_mb, 1),
                         "wall_s": round(process.wall_s, 2), "exit": process.exit, "bytes": run_files(root)}
        if with_split:
            figures[size].update(split(root, suite, code))
        print(json.dumps(figures[size]), flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[500, 2000, 20000])
    parser.add_argument("--variants", type=int, choices=(1, 2), default=2)
    parser.add_argument("--before", type=Path, default=None,
                        help="a checkout of the code before a change (`git worktree add --detach DIR REV`)")
    parser.add_argument("--work", type=Path, default=None, help="keep (and reuse) the recorded project here")
    parser.add_argument("--split", action="store_true", help="also the peak before the finish began and at its end")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        root = (args.work or Path(tmp)).resolve() / "project"
        fresh = not (root / "suites").exists()
        suites = {size: write_suite(root, size, args.variants, MEMORY_GOLD) for size in args.cases}
        if fresh:
            seconds = record(root, [suites[max(suites)]])
            print(f"recorded cassettes in {seconds:.1f} s (not timed)", file=sys.stderr, flush=True)
        codes = ([Code("before", args.before.resolve())] if args.before else []) + [THIS]
        measured = {code.label: measure(root, suites, code, args.split) for code in codes}
    after = measured["after"]
    smallest, largest = min(after), max(after)
    print(json.dumps({"flat": round(after[largest]["peak_rss_mb"] / after[smallest]["peak_rss_mb"], 2),
                      "max_peak_rss_mb": max(f["peak_rss_mb"] for f in after.values())}))
    if "before" in measured:
        before = measured["before"]
        print(json.dumps({f"after/before peak at {size:,}": round(after[size]["peak_rss_mb"] / before[size]["peak_rss_mb"], 2)
                          for size in after}))


if __name__ == "__main__":
    main()
