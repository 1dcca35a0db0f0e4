"""Benchmark: replay a generated suite end to end (render, replay, parse, score, report).

    .venv/bin/python bench/replay.py [--cases 2000] [--gleanings 0] [--variants 2]

Generates a suite of N cases x 1 or 2 variants in a temporary folder, records its cassettes
from the local test server (not timed), then times `harness run` in a fresh process and
reads that process's peak memory. Running it at two sizes shows whether memory stays flat
in the number of cases. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.run.schedule import RunOptions, run_suite  # noqa: E402
from harness.run.plan import plan_variant
from harness.suites import load_suite  # noqa: E402
from tests.support.fake_server import FakeOpenAIServer, Script  # noqa: E402

FIRST = ["Ana", "Tomas", "Ida", "Lucia", "Omar", "Wen", "Kofi", "Mira", "Jonas", "Elif"]
LAST = ["Ruiz", "Berg", "Moss", "Peñalver", "Haddad", "Li", "Mensah", "Kowal", "Lind", "Demir"]
ORGS = ["Kestrel Trust", "Northgate Robotics", "Red Lantern Society", "Caldera Institute", "Harcastle Bank"]
PLACES = ["Lowbridge", "Millbrook", "Oakfield", "Velmora", "Saint Arlo", "Ribaseca"]


def make_case(rng: random.Random, index: int) -> tuple[dict, list[str]]:
    people = rng.sample([f"{f} {l}" for f in FIRST for l in LAST], 3)
    org, place = rng.choice(ORGS), rng.choice(PLACES)
    sentences = [
        f"{people[0]} of {org} met {people[1]} in {place} on day {index}.",
        f"{people[2]} joined {org} after years in {place}.",
    ]
    filler = " ".join(f"The meeting covered item {i} of the agenda in some detail." for i in range(25))
    text = " ".join(sentences) + " " + filler
    entities = [{"name": p, "type": "person"} for p in people] + [
        {"name": org, "type": "organization"}, {"name": place, "type": "geo"}]
    relationships = [{"source": people[0], "target": org}, {"source": people[1], "target": place},
                     {"source": people[2], "target": org}]
    records = [f'("entity"<|>{e["name"].upper()}<|>{e["type"]}<|>seen in the text)' for e in entities[: rng.randint(3, 5)]]
    records += [f'("relationship"<|>{r["source"].upper()}<|>{r["target"].upper()}<|>related<|>{rng.randint(1, 10)})'
                for r in relationships[: rng.randint(1, 3)]]
    answer = "##\n".join(records) + "\n<|COMPLETE|>"
    return {"id": f"case-{index:05d}", "text": text, "entities": entities, "relationships": relationships}, [answer, "<|COMPLETE|>"]


def build(root: Path, cases: int, gleanings: int, variants: int = 2, *, chunk_files: bool = False) -> Path:
    """The generated suite with its cassettes recorded from the local test server; with
    `chunk_files`, its texts in chunk files (20,000 inline texts exceed the suite file size limit)."""
    rng = random.Random(1234)
    (root / "suites").mkdir(parents=True)
    (root / "prompts").mkdir()
    prompt = (REPO / "prompts" / "default" / "extract_graph.txt").read_text(encoding="utf-8")
    (root / "prompts" / "default.txt").write_text(prompt, encoding="utf-8")
    (root / "prompts" / "tuned.txt").write_text("You are a careful analyst.\n" + prompt, encoding="utf-8")
    generated = [make_case(rng, i) for i in range(cases)]
    if chunk_files:
        (root / "chunks").mkdir()
        for case, _ in generated:
            (root / "chunks" / f"{case['id']}.txt").write_text(case.pop("text"), encoding="utf-8")
            case["chunk"] = f"../chunks/{case['id']}.txt"
    suite = {
        "name": "bench",
        "notes": "Generated for benchmarking; answers are synthetic.",
        "model": {"name": "gpt-4o-mini", "max_gleanings": gleanings, "concurrency": 64},
        "variants": dict(list({"default": {"prompt": "prompts/default.txt"},
                               "tuned": {"prompt": "prompts/tuned.txt"}}.items())[:variants]),
        "cases": [c for c, _ in generated],
    }
    path = root / "suites" / "bench.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    loaded = load_suite(path)
    script = Script()
    for variant in loaded.variant_names():
        plan = plan_variant(loaded, variant)
        for case, (_, answers) in zip(loaded.cases, generated):
            script.rounds[plan.render(case)[0]["content"]] = answers
    os.environ["OPENAI_API_KEY"] = "bench-no-key"
    with FakeOpenAIServer(script) as server, tempfile.TemporaryDirectory() as reports:
        run_suite(loaded, RunOptions(record_mode="once", reports_dir=Path(reports), base_url=server.base_url, fresh=True))
    return path


def timed_replay(suite: Path, root: Path) -> dict:
    code = (
        "import resource, sys, time\n"
        "from harness.cli import main\n"
        "t = time.perf_counter()\n"
        f"rc = main(['run', {str(suite)!r}, '--reports', {str(root / 'reports')!r}, '--fresh'])\n"
        "wall = time.perf_counter() - t\n"
        "print('RESULT', rc, wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    line = [l for l in done.stderr.splitlines() if l.startswith("RESULT")]
    if not line:
        raise SystemExit(done.stderr[-2000:])
    _, rc, wall, rss_kb = line[0].split()
    return {"exit": int(rc), "wall_s": float(wall), "peak_rss_mb": int(rss_kb) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--gleanings", type=int, default=0)
    parser.add_argument("--variants", type=int, choices=(1, 2), default=2)
    args = parser.parse_args()
    for cases in args.cases:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            started = time.perf_counter()
            suite = build(root, cases, args.gleanings, args.variants)
            build_s = time.perf_counter() - started
            result = timed_replay(suite, root)
            calls = cases * args.variants * (1 + args.gleanings)
            print(json.dumps({
                "cases": cases, "variants": args.variants, "calls": calls, "record_s": round(build_s, 2),
                "replay_wall_s": round(result["wall_s"], 2),
                "calls_per_s": round(calls / result["wall_s"], 1),
                "peak_rss_mb": round(result["peak_rss_mb"], 1), "exit": result["exit"],
            }))


if __name__ == "__main__":
    main()
