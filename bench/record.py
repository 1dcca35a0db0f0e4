"""Benchmark: live recording against the local server, as a ratio to the ideal wall time.

    .venv/bin/python bench/record.py [--calls 1000] [--latency 0.1] [--concurrency 32]

Records N single-call cases (no gleaning) against the local OpenAI-compatible server with a
fixed latency per call, once without faults and once with 10% of calls answered 429 with
Retry-After. The SDK is imported before the clock starts (a once-per-process cost, printed
apart as `sdk_import_s`). Ideal = calls x latency / concurrency; the harness's CPU per call must stay under
latency / concurrency (3.1 ms at 100 ms and 32) to reach it. Prints figures; asserts nothing.
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
# the code measured: this checkout, or the one KG_BENCH_CODE names (bench/figures.py --before runs
# this same script against an earlier checkout, so both are measured the same way)
CODE = Path(os.environ.get("KG_BENCH_CODE", REPO))
sys.path.insert(0, str(CODE))
sys.path.insert(0, str(REPO / "bench"))

from replay import make_case  # noqa: E402

from harness.run.schedule import RunOptions, run_suite  # noqa: E402
from harness.run.plan import plan_variant
from harness.suites import load_suite  # noqa: E402
from tests.support.fake_server import Script  # noqa: E402


def build(root: Path, calls: int, concurrency: int) -> tuple[Path, Script]:
    rng = random.Random(99)
    (root / "suites").mkdir(parents=True)
    (root / "prompts").mkdir()
    prompt = (REPO / "prompts" / "default" / "extract_graph.txt").read_text(encoding="utf-8")
    (root / "prompts" / "default.txt").write_text(prompt, encoding="utf-8")
    generated = [make_case(rng, i) for i in range(calls)]
    suite = {
        "name": "record-bench",
        "notes": "Generated for benchmarking; answers are synthetic.",
        "model": {"name": "gpt-4o-mini", "max_gleanings": 0, "concurrency": concurrency, "max_retries": 20},
        "variants": {"default": {"prompt": "prompts/default.txt"}},
        "cases": [c for c, _ in generated],
    }
    path = root / "suites" / "bench.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    loaded = load_suite(path)
    plan = plan_variant(loaded, "default")
    script = Script()
    for case, (_, answers) in zip(loaded.cases, generated):
        script.rounds[plan.render(case)[0]["content"]] = answers[:1]
    return path, script


def measure(calls: int, latency: float, concurrency: int, rate_429: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path, script = build(root, calls, concurrency)
        suite = load_suite(path)
        script_file = root / "script.json"
        script_file.write_text(json.dumps({"rounds": script.rounds}), encoding="utf-8")
        # the server runs in its own process, so its work does not share our interpreter lock
        server = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fake_server", "--script", str(script_file),
             "--latency", str(latency), "--rate-429", str(rate_429), "--retry-after", str(latency), "--seed", "5"],
            stdout=subprocess.PIPE, text=True, cwd=REPO,
        )
        try:
            base_url = server.stdout.readline().strip()
            started, cpu = time.perf_counter(), time.process_time()
            outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=root / "reports",
                                                  base_url=base_url, fresh=True))
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        finally:
            server.kill()
            server.wait()
        served = len(outcome.results) + outcome.retries
        ideal = calls * latency / concurrency
        recorded = sum(1 for _ in (root / "fixtures" / "cassettes").rglob("*.json"))
        return {
            "calls": calls, "latency_s": latency, "concurrency": concurrency, "rate_429": rate_429,
            "wall_s": round(wall, 2), "ideal_s": round(ideal, 2), "ratio_to_ideal": round(wall / ideal, 2),
            # CPU of this process (all its threads; the server runs apart): steadier than wall
            # time on a shared machine, and what must fit under latency / concurrency per call
            "cpu_ms_per_call": round(1000 * cpu / calls, 2),
            "http_requests": served, "retries": outcome.retries, "results": len(outcome.results),
            "cassettes": recorded, "lost": calls - len(outcome.results), "failures": len(outcome.failures),
        }


def load_sdk() -> float:
    """Import the SDK the recording sends through, returning the seconds it took.

    A process pays it once, whatever the number of calls, so it is kept out of the per-call
    figures (a run that records pays it on its first sent call) and printed apart."""
    started = time.perf_counter()
    import openai  # noqa: F401

    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    os.environ["OPENAI_API_KEY"] = "bench-no-key"
    sdk_import_s = round(load_sdk(), 2)
    for rate in (0.0, 0.1):
        print(json.dumps({**measure(args.calls, args.latency, args.concurrency, rate), "sdk_import_s": sdk_import_s}))


if __name__ == "__main__":
    main()
