"""Benchmark: a generated suite on a two-node local Ray setup equals the one-process run.

    .venv/bin/python bench/ray_cluster.py [--cases 20000] [--variants 2] [--shards 2]

Generates a suite of N cases x 2 variants (bench/replay.py's generator; its cassettes recorded
from the local test server, not timed), replays it with `harness run` in one process, then
starts two Ray nodes on 127.0.0.1 (two `ray start` processes: a head and a node joining it, one
CPU each, small object stores) and replays it with `harness run --ray 127.0.0.1:PORT`. Prints
both times and whether the runs match: every row, summary.json and report.md equal apart from
timings (keys ending in `_s`), created_at and the run id. Needs the ray extra. The Ray processes
are stopped by their process groups at the end. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import replay  # noqa: E402  (bench/replay.py's generated suite)


RAY = Path(sys.executable).parent / "ray"


def build(root: Path, cases: int, variants: int) -> Path:
    """bench/replay.py's suite (no gleaning), its texts in chunk files, with its cassettes recorded."""
    path = replay.build(root, cases, 0, variants, chunk_files=True)
    os.environ.pop("OPENAI_API_KEY")  # the runs replay: they need none
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stripped(value: object) -> object:
    if isinstance(value, dict):
        return {k: stripped(v) for k, v in value.items() if not k.endswith("_s") and k not in ("created_at", "run_id")}
    if isinstance(value, list):
        return [stripped(v) for v in value]
    return value


def same_run(a: Path, b: Path) -> dict[str, bool]:
    """Rows, summary and report.md of two run folders, compared without timings."""
    def rows(run: Path) -> list[object]:
        with (run / "results.jsonl").open(encoding="utf-8") as f:
            return [stripped(json.loads(line)) for line in f]

    def summary(run: Path) -> object:
        return stripped(json.loads((run / "summary.json").read_text(encoding="utf-8")))

    return {"rows": rows(a) == rows(b), "summary": summary(a) == summary(b),
            "report_md": (a / "report.md").read_bytes() == (b / "report.md").read_bytes()}


def timed(argv: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness.cli", *argv], cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: a gate verdict, not a failure of the run
        raise SystemExit(f"harness {' '.join(argv)} exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, done.stderr


def start_nodes(port: int, temp: str, nodes: int) -> list[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    common = ["--block", "--num-cpus=1", "--object-store-memory=80000000", "--node-ip-address=127.0.0.1",
              "--disable-usage-stats"]
    started = [subprocess.Popen([str(RAY), "start", "--head", f"--port={port}", "--include-dashboard=false",
                                 f"--temp-dir={temp}", *common],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    wait_for(port)
    for _ in range(nodes - 1):
        started.append(subprocess.Popen([str(RAY), "start", f"--address=127.0.0.1:{port}", *common],
                                        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True))
    time.sleep(5)  # the nodes register with the head
    return started


def wait_for(port: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                time.sleep(2)
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("the Ray head did not start")


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):  # the joining nodes first, then the head
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
                process.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--variants", type=int, choices=(1, 2), default=2)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--shards", type=int, default=2)
    args = parser.parse_args()
    if not RAY.exists():
        raise SystemExit("the ray command is not installed: pip install 'kg-prompt-harness[ray]'")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        suite = build(root, args.cases, args.variants)
        build_s = time.perf_counter() - started
        one_s, _ = timed(["run", str(suite), "--reports", str(root / "one"), "--run-id", "run"], root)
        port, temp = free_port(), tempfile.mkdtemp(prefix="kgh-ray-", dir="/tmp")
        nodes = start_nodes(port, temp, args.nodes)
        try:
            ray_s, err = timed(["run", str(suite), "--reports", str(root / "ray"), "--run-id", "run",
                                "--ray", f"127.0.0.1:{port}", "--ray-shards", str(args.shards)], root)
        finally:
            stop(nodes)
            subprocess.run(["rm", "-rf", temp], check=False)
        placed = [line.split("note: ", 1)[1] for line in err.splitlines() if "shard(s) on" in line]
        match = same_run(root / "one" / "bench" / "run", root / "ray" / "bench" / "run")
        print(json.dumps({
            "cases": args.cases, "variants": args.variants, "nodes": args.nodes, "shards": args.shards,
            "record_s": round(build_s, 1), "one_process_wall_s": round(one_s, 1), "ray_wall_s": round(ray_s, 1),
            "ray_placement": placed[0] if placed else None, "equal": match, "all_equal": all(match.values()),
        }))


if __name__ == "__main__":
    main()
