"""promptfoo on the issue-18 workload: two `contains` assertions on N cases, a mock provider.

    .venv/bin/python bench/peers/promptfoo.py [--cases 2000]

Installs promptfoo (pinned) from npm into ~/.cache/kg-harness-bench/promptfoo (once; outside
the repository, never in `make test`), writes a config: the extraction prompt with the chunk as
`{{text}}`, a custom JavaScript provider that returns the fixed 1.6 KB GraphRAG answer in
process (the cheapest mock that renders each case's prompt and returns the answer), and two
`contains` assertions on two of the answer's entity names. Then times `promptfoo eval` as a
whole process, with telemetry, update checks, sharing and remote generation off and its
database in a temporary folder. Prints the wall time; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from peers import workload  # noqa: E402

VERSION = "0.121.20"
CACHE = Path(os.environ.get("KG_HARNESS_BENCH_CACHE", Path.home() / ".cache" / "kg-harness-bench")) / "promptfoo"
REPO = Path(__file__).resolve().parents[2]
QUIET_ENV = {
    "PROMPTFOO_DISABLE_TELEMETRY": "1",
    "PROMPTFOO_DISABLE_UPDATE": "1",
    "PROMPTFOO_DISABLE_SHARING": "1",
    "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
    "PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION": "1",
    "PROMPTFOO_DISABLE_RUNTIME_WARNINGS": "1",
    "PROMPTFOO_SELF_HOSTED": "1",
    "NO_COLOR": "1",
}
PROVIDER_JS = """// Mock provider: every call returns the benchmark's fixed GraphRAG answer.
const ANSWER = {answer};
module.exports = class FixedAnswer {{
  id() {{ return 'fixed-answer'; }}
  async callApi(prompt) {{ return {{ output: ANSWER }}; }}
}};
"""


class Unavailable(Exception):
    """promptfoo cannot be installed or run here; the message says why."""


@dataclass
class PeerRun:
    wall_s: float
    cases: int
    passed: int | None
    command: str


def binary() -> Path:
    return CACHE / "node_modules" / ".bin" / "promptfoo"


def installed_version() -> str | None:
    package = CACHE / "node_modules" / "promptfoo" / "package.json"
    if not package.is_file():
        return None
    return json.loads(package.read_text(encoding="utf-8")).get("version")


def install(version: str = VERSION) -> Path:
    """promptfoo `version` under CACHE (npm install --prefix), once; raises Unavailable."""
    if installed_version() == version and binary().exists():
        return binary()
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise Unavailable("node/npm not found on PATH")
    CACHE.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run([npm, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund",
                               f"promptfoo@{version}"], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise Unavailable("npm install promptfoo timed out after 900 s") from None
    if done.returncode != 0 or installed_version() != version:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"npm install promptfoo@{version} failed: {last}")
    return binary()


def prompt_template() -> str:
    """The shipped extraction prompt with the chunk as promptfoo's `{{text}}` variable."""
    text = (REPO / "prompts" / "default" / "extract_graph.txt").read_text(encoding="utf-8")
    return text.replace("{input_text}", "{{text}}")


def write_config(folder: Path, cases: int) -> Path:
    """promptfooconfig.yaml (JSON is valid YAML), provider and prompt for `cases` cases."""
    (folder / "provider.js").write_text(PROVIDER_JS.format(answer=json.dumps(workload.answer())), encoding="utf-8")
    (folder / "prompt.txt").write_text(prompt_template(), encoding="utf-8")
    names = [workload.ENTITIES[0][0].upper(), workload.ENTITIES[5][0].upper()]
    config = {
        "description": f"kg-prompt-harness bench: {cases} cases, fixed answer",
        "prompts": ["file://prompt.txt"],
        "providers": [{"id": "file://provider.js"}],
        "defaultTest": {"assert": [{"type": "contains", "value": name} for name in names]},
        "tests": [{"description": workload.case_id(i), "vars": {"text": chunk}}
                  for i, chunk in enumerate(workload.chunks(cases))],
        "sharing": False,
    }
    path = folder / "promptfooconfig.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def run(cases: int, *, install_version: str = VERSION) -> PeerRun:
    """Times `promptfoo eval` on `cases` cases as a whole process; raises Unavailable."""
    exe = install(install_version)
    with tempfile.TemporaryDirectory(prefix="bench-promptfoo-") as tmp:
        folder = Path(tmp)
        config = write_config(folder, cases)
        out = folder / "out.json"
        env = {**os.environ, **QUIET_ENV, "PROMPTFOO_CONFIG_DIR": str(folder / "home"),
               "PROMPTFOO_CACHE_PATH": str(folder / "cache")}
        env.pop("OPENAI_API_KEY", None)
        argv = [str(exe), "eval", "-c", str(config), "--no-cache", "--no-share", "--no-table",
                "--no-progress-bar", "-o", str(out)]
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        # exit 100 means "some assertions failed": still a complete run
        if done.returncode not in (0, 100) or not out.is_file():
            tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
            raise Unavailable(f"promptfoo eval exited {done.returncode}: {tail[:300]}")
        stats = json.loads(out.read_text(encoding="utf-8")).get("results", {}).get("stats", {})
        command = (f"{exe.relative_to(Path.home()) if exe.is_relative_to(Path.home()) else exe} eval -c "
                   "promptfooconfig.yaml --no-cache --no-share --no-table --no-progress-bar -o out.json")
        return PeerRun(wall_s=wall, cases=cases, passed=stats.get("successes"), command=command)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    args = parser.parse_args()
    try:
        result = run(args.cases)
    except Unavailable as error:
        print(json.dumps({"promptfoo": "n/a", "reason": str(error)}))
        return 0
    print(json.dumps({"promptfoo": VERSION, "cases": result.cases, "wall_s": round(result.wall_s, 2),
                      "passed": result.passed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
