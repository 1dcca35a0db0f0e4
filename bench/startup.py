"""Start-up time of light commands, this tree against an earlier commit.

    python bench/startup.py [--before REF] [--repeat N]     (default: 40a08d8, best of 5)

Times, in a fresh interpreter each time: `harness --help`, `harness parse one-answer.txt` (a
small GraphRAG answer), and `python -m pytest --co -q` on an empty folder with and without the
plugin (`-p no:kg_prompt_harness`). The earlier code is `git archive REF harness` extracted to a
temporary folder and put first on PYTHONPATH (no worktree, no stash); this tree is put there the
same way. Prints the best wall time of each and the ratio after/before, and which heavy packages
each command left loaded. Figures, not assertions: tests/test_startup.py checks the imports.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("openai", "httpx2", "vcr", "scipy", "numpy", "pandas", "matplotlib", "networkx", "deepdiff", "tiktoken")
ANSWER = (
    '("entity"<|>ANA RUIZ<|>person<|>Mayor of Lowbridge)##\n'
    '("entity"<|>LOWBRIDGE<|>geo<|>A river town)##\n'
    '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>Ana Ruiz is the mayor of Lowbridge<|>8)\n'
    "<|COMPLETE|>\n"
)
# What the `harness` console script runs; an atexit hook reports the heavy packages loaded.
HARNESS = ("import atexit, sys; atexit.register(lambda: sys.stderr.write('HEAVY ' + ','.join("
           "m for m in {heavy!r} if m in sys.modules) + '\\n')); "
           "from harness.cli import main; sys.exit(main())")
PYTEST = ("import atexit, sys; atexit.register(lambda: sys.stderr.write('HEAVY ' + ','.join("
          "m for m in {heavy!r} if m in sys.modules) + '\\n')); "
          "import pytest; sys.exit(pytest.main())")


def export(ref: str, into: Path) -> Path:
    """`harness/` as it was at `ref`, extracted under `into`."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "harness"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    return into


def best_of(argv: list[str], *, code_root: Path, cwd: Path, repeat: int) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}
    env["PYTHONPATH"] = str(code_root)
    best = float("inf")
    heavy = "?"
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        lines = [line for line in done.stderr.splitlines() if line.startswith("HEAVY ")]
        if not lines:
            raise SystemExit(f"{' '.join(argv)} (exit {done.returncode}): {done.stderr.strip()[-500:]}")
        heavy = lines[-1].removeprefix("HEAVY ") or "-"
    return best, heavy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="40a08d8", help="commit to compare against (default: 40a08d8)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per command; the best is kept")
    args = parser.parse_args()
    python = sys.executable
    harness = [python, "-c", HARNESS.format(heavy=HEAVY)]
    pytest = [python, "-c", PYTEST.format(heavy=HEAVY), "--co", "-q", "-p", "no:cacheprovider"]
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as scratch:
        work = Path(scratch)
        answer = work / "one-answer.txt"
        answer.write_text(ANSWER, encoding="utf-8")
        empty = work / "empty"
        empty.mkdir()
        old = export(args.before, work / "before")
        commands = {
            "harness --help": harness + ["--help"],
            "harness parse one-answer.txt": harness + ["parse", str(answer)],
            "pytest --co -q (empty folder, plugin)": pytest,
            "pytest --co -q (empty folder, -p no:kg_prompt_harness)": pytest + ["-p", "no:kg_prompt_harness"],
        }
        print(f"best of {args.repeat}, fresh interpreter each; before = {args.before}, after = this tree")
        print(f"{'command':56s} {'before':>8s} {'after':>8s} {'after/before':>12s}  heavy packages loaded (before -> after)")
        rows = {}
        for label, argv in commands.items():
            before, heavy_before = best_of(argv, code_root=old, cwd=empty, repeat=args.repeat)
            after, heavy_after = best_of(argv, code_root=ROOT, cwd=empty, repeat=args.repeat)
            rows[label] = {"before_s": round(before, 4), "after_s": round(after, 4), "ratio": round(after / before, 3)}
            print(f"{label:56s} {before:7.3f}s {after:7.3f}s {after / before:12.2f}  {heavy_before} -> {heavy_after}")
        plugin = rows["pytest --co -q (empty folder, plugin)"]["after_s"]
        bare = rows["pytest --co -q (empty folder, -p no:kg_prompt_harness)"]["after_s"]
        print(f"plugin cost after: {plugin - bare:+.3f}s on an empty collection")
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
