"""Benchmark: `harness tune` on the example podcast suite, recorded against the local server
with a fixed latency per call, then replayed offline.

    .venv/bin/python bench/tune.py [--latency 0.5] [--limit 6]

The tuning steps that do not depend on each other run concurrently (domain with language,
persona with entity types, the rating with every example), so a recording takes about three
round trips instead of one per call. Prints the recorded wall time as a ratio to the sequential
time (calls x latency) and to the critical path (3 x latency), and the replay time. The answers
are the team's hand-written ones (fixtures/responses/podcast/tune/answers.yaml). Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from record_tuning import ANSWERS, SUITE, responder  # noqa: E402

from harness.llm.client import EndpointSettings  # noqa: E402
from harness.llm.tokens import count_tokens  # noqa: E402
from harness.suites import load_suite  # noqa: E402
from harness.tune.pipeline import TuneOptions, tune  # noqa: E402
from tests.support.fake_server import FakeOpenAIServer, Faults  # noqa: E402


def options(suite, root: Path, mode: str, limit: int, base_url: str | None) -> TuneOptions:
    return TuneOptions(texts=[c.text for c in suite.cases], names=[c.id for c in suite.cases],
                       out=root / "out" / f"{mode}.yaml", cassettes=root / "cassettes",
                       endpoint=EndpointSettings(model=suite.spec.model.name, base_url=base_url),
                       record_mode=mode, selection="top", limit=limit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--limit", type=int, default=6, help="chunks (example calls); answers exist for the first 6")
    parser.add_argument("--replays", type=int, default=5)
    args = parser.parse_args()
    suite = load_suite(SUITE)
    answers = yaml.safe_load(ANSWERS.read_text(encoding="utf-8"))
    os.environ["OPENAI_API_KEY"] = "bench-no-key"
    count_tokens("warm up", suite.spec.model.name)  # the server counts usage tokens: load the encoding first
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with FakeOpenAIServer(responder(answers, {c.id: c.text for c in suite.cases}),
                              Faults(latency_s=args.latency)) as server:
            started = time.perf_counter()
            tune(options(suite, root, "once", args.limit, server.base_url))
            recorded = time.perf_counter() - started
            calls = server.calls
        times = []
        for _ in range(args.replays):
            started = time.perf_counter()
            tune(options(suite, root, "none", args.limit, None))
            times.append(time.perf_counter() - started)
        same = (root / "out" / "once.yaml").read_text().replace("once", "X") == \
            (root / "out" / "none.yaml").read_text().replace("none", "X")
    sequential = calls * args.latency
    critical = 3 * args.latency
    print(f"tuning calls: {calls} at {args.latency * 1000:.0f} ms latency each")
    print(f"recorded in {recorded:.2f} s: {sequential / recorded:.2f}x faster than sequential ({sequential:.2f} s), "
          f"{recorded / critical:.2f}x the critical path of 3 round trips ({critical:.2f} s)")
    print(f"replayed offline in {min(times) * 1000:.0f} ms (best of {args.replays}), "
          f"median {sorted(times)[len(times) // 2] * 1000:.0f} ms; same prompt as recorded: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
