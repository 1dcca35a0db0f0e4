"""Benchmark: entity fragmentation of a generated variant, this code against a checkout before a change.

    .venv/bin/python bench/fragmentation.py --before /path/to/checkout [--cases 20000]

The workload: each case has four persons drawn from few first names and surnames, spelled in full
or with initials, some with an honorific or a rank (so many names share a surname, where the
initials rule compares names), and one organisation. Each checkout computes the fragmentation of
the same rows in a fresh process, every joined cluster listed; the clusters must be equal.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_CHILD = """\
import json, random, sys, time
import harness.scoring.fragmentation as frag
from harness.model import CaseResult, Entity, ExtractedGraph, MatchingConfig
frag.FRAGMENT_LIMIT = 10 ** 9
rng = random.Random(7)
first = ["JULIAN", "JOHN", "JANE", "CECILY", "CARL", "ADA", "ALAN", "RONALD", "ROSE", "MARY", "OMAR", "WEN"]
last = ["ASHWORTH", "SMITH", "TOLKIEN", "MARSH", "LOVELACE", "BERG", "MOSS", "HADDAD"]
orgs = ["KESTREL TRUST", "NORTHGATE ROBOTICS", "CALDERA INSTITUTE", "HARCASTLE BANK"]
rows = []
for c in range({cases}):
    names = []
    for _ in range(4):
        given = rng.sample(first, rng.randint(1, 2))
        spelled = [g[0] + "." if rng.random() < 0.4 else g for g in given]
        prefix = rng.choice(["", "", "MR. ", "CAPTAIN ", "DR. "])
        names.append(Entity(name=prefix + " ".join(spelled + [rng.choice(last)]), type="person"))
    names.append(Entity(name=rng.choice(orgs) + (" " + str(c % 50) if rng.random() < 0.3 else ""), type="organization"))
    rows.append(CaseResult(suite="s", variant="v", case_id=f"c{{c}}", graph=ExtractedGraph(entities=names)))
started = time.perf_counter()
result = frag.fragmentation(rows, None, MatchingConfig())
seconds = time.perf_counter() - started
print(json.dumps({{"seconds": seconds, "fragmentation": result.model_dump(mode="json")}}))
"""


def measure(code_dir: Path, cases: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code_dir))
    done = subprocess.run([sys.executable, "-c", _CHILD.format(cases=cases)], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--cases", type=int, nargs="+", default=[2000, 20000])
    args = parser.parse_args()
    for cases in args.cases:
        before, this = measure(args.before, cases), measure(REPO, cases)
        frag = this["fragmentation"]
        print(json.dumps({
            "cases": cases, "nodes": frag["nodes"], "clusters": frag["clusters"],
            "before_s": round(before["seconds"], 2), "this_s": round(this["seconds"], 2),
            "same_clusters": before["fragmentation"] == frag,
        }), flush=True)


if __name__ == "__main__":
    main()
