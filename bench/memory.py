"""Benchmark: peak memory of `harness run` and time of its finish (summary + reports) by suite size.

    .venv/bin/python bench/memory.py [--cases 500 2000 20000]

One variant, the workload of bench/replay.py (its `make_case`, imported): cassettes are recorded
from the local test server (not timed), then `harness run` replays them in a fresh process, which
prints its peak memory (ru_maxrss) and the seconds spent in `finish.finish_run` (summary,
comparisons, gate, report.md/html, plots, junit). Memory flat in the number of cases is the aim
(issue 18). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from replay import make_case  # noqa: E402

from harness.run.schedule import RunOptions, run_suite  # noqa: E402
from harness.run.plan import plan_variant
from harness.suites import load_suite  # noqa: E402
from tests.support.fake_server import FakeOpenAIServer, Script  # noqa: E402


def build(root: Path, cases: int) -> Path:
    """A one-variant suite of `cases` generated cases with its cassettes recorded."""
    rng = random.Random(1234)
    (root / "suites").mkdir(parents=True)
    (root / "prompts").mkdir()
    prompt = (REPO / "prompts" / "default" / "extract_graph.txt").read_text(encoding="utf-8")
    (root / "prompts" / "default.txt").write_text(prompt, encoding="utf-8")
    generated = [make_case(rng, i) for i in range(cases)]
    (root / "chunks").mkdir()
    for case, _ in generated:  # texts in chunk files: 20,000 inline texts exceed the suite file size limit
        (root / "chunks" / f"{case['id']}.txt").write_text(case.pop("text"), encoding="utf-8")
        case["chunk"] = f"../chunks/{case['id']}.txt"
    suite = {
        "name": "bench",
        "notes": "Generated for benchmarking; answers are synthetic.",
        "model": {"name": "gpt-4o-mini", "max_gleanings": 0, "concurrency": 64},
        "variants": {"default": {"prompt": "prompts/default.txt"}},
        "cases": [c for c, _ in generated],
    }
    path = root / "suites" / "bench.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    loaded = load_suite(path)
    script = Script()
    plan = plan_variant(loaded, "default")
    for case, (_, answers) in zip(loaded.cases, generated):
        script.rounds[plan.render(case)[0]["content"]] = answers
    os.environ["OPENAI_API_KEY"] = "bench-no-key"
    with FakeOpenAIServer(script) as server, tempfile.TemporaryDirectory() as reports:
        run_suite(loaded, RunOptions(record_mode="once", reports_dir=Path(reports), base_url=server.base_url, fresh=True))
    return path


_CHILD = """\
import resource, sys, time
import harness.finish as finish
spent = [0.0]
original = finish.finish_run
def timed(*args, **kwargs):
    t = time.perf_counter()
    try:
        return original(*args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - t
finish.finish_run = timed
from harness.cli import main
t = time.perf_counter()
rc = main(['run', {suite!r}, '--reports', {reports!r}, '--fresh'])
wall = time.perf_counter() - t
print('RESULT', rc, wall, spent[0], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def timed_run(suite: Path, root: Path, code_dir: Path | None = None) -> dict:
    """`harness run` of `suite` in a fresh process; `code_dir`: a checkout whose `harness` it imports
    (for before/after figures back to back), else this one."""
    code = _CHILD.format(suite=str(suite), reports=str(root / "reports"))
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["PYTHONPATH"] = str(code_dir or REPO)
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    line = [l for l in done.stderr.splitlines() if l.startswith("RESULT")]
    if not line:
        raise SystemExit(done.stderr[-2000:])
    _, rc, wall, finish_s, rss_kb = line[0].split()
    return {"exit": int(rc), "wall_s": float(wall), "finish_s": float(finish_s), "peak_rss_mb": int(rss_kb) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, nargs="+", default=[500, 2000, 20000])
    parser.add_argument("--before", type=Path, default=None,
                        help="a checkout of the code before a change (git worktree or `git archive`): "
                             "each size is run with it, then with this one, back to back")
    args = parser.parse_args()
    for cases in args.cases:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            started = time.perf_counter()
            suite = build(root, cases)
            build_s = time.perf_counter() - started
            for label, code_dir in ([("before", args.before)] if args.before else []) + [("this", None)]:
                result = timed_run(suite, root, code_dir)
                print(json.dumps({
                    "code": label, "cases": cases, "variants": 1, "record_s": round(build_s, 2),
                    "run_wall_s": round(result["wall_s"], 2), "finish_s": round(result["finish_s"], 2),
                    "peak_rss_mb": round(result["peak_rss_mb"], 1), "exit": result["exit"],
                }), flush=True)


if __name__ == "__main__":
    main()
