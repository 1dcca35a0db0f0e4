"""Every figure of issue 18 in one table: aim, figure, command.

    .venv/bin/python bench/figures.py [--quick] [--cases 2000] [--no-promptfoo] [--before CHECKOUT]
    make bench-figures

With `--before CHECKOUT` (an earlier commit checked out, e.g. `git worktree add --detach
/tmp/before REV`) every figure is measured with that code and then this one, back to back on the
same recorded cassettes, and each row shows both and their ratio (the peak-memory ratio is of the
largest size); both run in this interpreter with their checkout first on PYTHONPATH.

On the issue's workload (bench/peers/workload.py: 300-word chunks, one fixed 1.6 KB GraphRAG
answer, gold = its 10 entities and 8 relationships), after recording the cassettes from the
local test server (not timed):
- `harness run` replaying N cases x 1 variant and N x 2 variants, each timed as a whole process;
- promptfoo on the same N cases (bench/peers/promptfoo.py; n/a with the reason when it cannot
  be installed or run), and its wall time over ours;
- peak memory (ru_maxrss of the run process, via wait4) at 500 / 2,000 / 20,000 cases, one
  variant (`--quick` leaves 20,000 out);
- start-up: `harness --help` and `harness parse` of one answer, median of `--repeat` fresh
  processes (hyperfine when installed);
- the pytest plugin: `pytest --co` on an empty folder with and without `-p no:kg_prompt_harness`;
- recording: bench/record.py run as a subprocess, its ratio to the latency-bound ideal.
Figures are printed, never asserted. The machine may be shared: timings are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

from peers import promptfoo, workload  # noqa: E402

BIN = Path(sys.executable).parent
HARNESS = BIN / "harness"
NA = "n/a"


@dataclass
class Row:
    aim: str
    figure: str
    command: str


class Rows(list):
    """The table's rows; each is also written to stderr when measured, so that an interrupted
    run (the 20,000-case replay is long) still shows what it got."""

    def append(self, row: Row) -> None:
        print(f"[figure] {row.aim}: {row.figure}", file=sys.stderr, flush=True)
        super().append(row)

    def extend(self, rows) -> None:  # type: ignore[override]
        for row in rows:
            self.append(row)


@dataclass
class Process:
    wall_s: float
    peak_rss_mb: float
    exit: int


# Runs argv[2:] and writes "<wall seconds> <exit> <ru_maxrss kB>" to argv[1]. A child forked from
# this (large) benchmark process would start with our resident pages counted in its ru_maxrss
# (the high-water mark survives exec), so the measured process is forked from this small one.
LAUNCHER = (
    "import os, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "wall = time.perf_counter() - t\n"
    "open(sys.argv[1], 'w').write(f'{wall} {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}')\n"
)


def timed(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0, 1)) -> Process:
    """Runs argv as a whole process (from a small launcher): its wall time and peak resident
    memory (wait4's ru_maxrss: the largest of the process and the children it waited for)."""
    with tempfile.TemporaryDirectory() as scratch, open(Path(scratch) / "err", "w+b") as errors:
        figures = Path(scratch) / "figures"
        done = subprocess.run([sys.executable, "-c", LAUNCHER, str(figures), *argv], cwd=cwd, env=env,
                              stdout=subprocess.DEVNULL, stderr=errors)
        errors.seek(0)
        err = errors.read().decode(errors="replace")
        if done.returncode != 0 or not figures.is_file():
            raise RuntimeError(f"launching {' '.join(argv)} failed: {err.strip()[-500:]}")
        wall, code, rss_kb = figures.read_text().split()
    if int(code) not in ok:
        raise RuntimeError(f"{' '.join(argv)} exited {code}: {err.strip()[-500:]}")
    return Process(wall_s=float(wall), peak_rss_mb=int(rss_kb) / 1024, exit=int(code))


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}


# --- the workload as suites ------------------------------------------------------------------

# Gold of the memory suites: 5 of the answer's entities and 3 relationships between them (49 YAML
# values a case). The full gold is 99 values a case, 1.98 million at 20,000, which the suite
# loader refused before it let a suite stand for four values per character of its text
# (harness/yamlfile.py): cut, the same suites load with `--before` checkouts from before that.
MEMORY_GOLD = (5, 3)
MEMORY_ENTITIES = ("Ana Ruiz", "Omar Haddad", "Kestrel Trust", "Harcastle Bank", "Lowbridge")


def write_suite(root: Path, cases: int, variants: int, gold: tuple[int, int] | None = None) -> Path:
    """suites/bench-<cases>x<variants>.yaml, all named `bench`, so they share chunk files and
    cassettes (`fixtures/cassettes/bench/<variant>/<case>.json`: a smaller suite's cases are a
    prefix of a larger one's); the gold is one YAML anchor every case refers to."""
    (root / "suites").mkdir(parents=True, exist_ok=True)
    (root / "prompts").mkdir(exist_ok=True)
    prompt = (REPO / "prompts" / "default" / "extract_graph.txt").read_text(encoding="utf-8")
    (root / "prompts" / "default.txt").write_text(prompt, encoding="utf-8")
    (root / "prompts" / "tuned.txt").write_text("You are a careful analyst.\n" + prompt, encoding="utf-8")
    entities, relationships = workload.gold()
    if gold is not None:
        keep = MEMORY_ENTITIES[: gold[0]]
        entities = [e for e in entities if e["name"] in keep]
        relationships = [r for r in relationships if r["source"] in keep and r["target"] in keep][: gold[1]]
    named = {"default": {"prompt": "prompts/default.txt"}, "tuned": {"prompt": "prompts/tuned.txt"}}
    suite = {
        "name": "bench",
        "notes": "Generated for benchmarking (issue 18's workload); answers are synthetic.",
        "model": {"name": "gpt-4o-mini", "max_gleanings": 0, "concurrency": 64},
        "variants": dict(list(named.items())[:variants]),
        "cases": [{"id": workload.case_id(i), "chunk": f"chunks/{workload.case_id(i)}.txt",
                   "entities": entities, "relationships": relationships} for i in range(cases)],
    }
    # chunk files, not inline text: a 20,000-case suite inline is over the 16 MB YAML limit
    (root / "chunks").mkdir(exist_ok=True)
    for i, chunk in enumerate(workload.chunks(cases)):
        file = root / "chunks" / f"{workload.case_id(i)}.txt"
        if not file.exists():
            file.write_text(chunk, encoding="utf-8")
    tag = "" if gold is None else f"-gold{gold[0]}+{gold[1]}"
    path = root / "suites" / f"bench-{cases}x{variants}{tag}.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def record(root: Path, suites: list[Path]) -> float:
    """Records the suites' missing cassettes from the local server (its own process, answering
    every request with the fixed answer); returns the seconds it took."""
    from harness.run.schedule import RunOptions, run_suite
    from harness.suites import load_suite

    script = root / "script.json"
    script.write_text(json.dumps({"fallback": workload.answer()}), encoding="utf-8")
    server = subprocess.Popen([sys.executable, "-m", "tests.support.fake_server", "--script", str(script)],
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    started = time.perf_counter()
    saved = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = "bench-no-key"
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        for path in suites:
            with tempfile.TemporaryDirectory() as reports:
                run_suite(load_suite(path), RunOptions(record_mode="once", reports_dir=Path(reports),
                                                       base_url=base_url, fresh=True))
    finally:
        server.kill()
        server.wait()
        if saved is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = saved
    return time.perf_counter() - started


@dataclass(frozen=True)
class Code:
    """The harness a figure is measured with: this checkout, or an earlier one (`--before`), run
    by this interpreter with the checkout first on PYTHONPATH, both the same way."""

    label: str
    root: Path

    def harness(self, *args: str) -> list[str]:
        return [sys.executable, "-c", "import sys; from harness.cli import main; sys.exit(main(sys.argv[1:]))", *args]

    def env(self) -> dict[str, str]:
        return {**clean_env(), "PYTHONPATH": str(self.root)}


THIS = Code("after", REPO)


def replay(root: Path, suite: Path, variant: str | None = None, code: Code = THIS) -> Process:
    argv = code.harness("run", str(suite.relative_to(root)), "--reports", "reports", "--fresh")
    if variant:
        argv += ["--variant", variant]
    return timed(argv, cwd=root, env=code.env())


# --- start-up --------------------------------------------------------------------------------

def median_wall(argv: list[str], *, cwd: Path, repeat: int, ok: tuple[int, ...] = (0, 1),
                env: dict[str, str] | None = None) -> float:
    """Median wall seconds of `repeat` fresh processes (hyperfine when installed)."""
    env = clean_env() if env is None else env
    hyperfine = shutil.which("hyperfine")
    if hyperfine:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            subprocess.run([hyperfine, "--warmup", "1", "--runs", str(repeat), "-N", "-i", "--export-json", out.name,
                            " ".join(argv)], cwd=cwd, env=env, capture_output=True, check=True)
            return float(json.loads(Path(out.name).read_text())["results"][0]["median"])
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True)  # warm-up (page cache)
    walls = []
    for _ in range(repeat):
        walls.append(timed(argv, cwd=cwd, env=env, ok=ok).wall_s)
    return statistics.median(walls)


@dataclass
class Startup:
    help_s: float
    parse_s: float
    with_plugin_s: float
    without_plugin_s: float


def startup(work: Path, repeat: int, code: Code) -> Startup:
    answer = work / "one-answer.txt"
    answer.write_text(workload.answer() + "\n", encoding="utf-8")
    empty = work / "empty"
    empty.mkdir(exist_ok=True)
    env = code.env()
    help_s = median_wall(code.harness("--help"), cwd=empty, repeat=repeat, env=env)
    parse_s = median_wall(code.harness("parse", str(answer)), cwd=empty, repeat=repeat, env=env)
    pytest = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"]
    nothing = (5,)  # pytest's "no tests collected"
    with_plugin = median_wall(pytest, cwd=empty, repeat=repeat, ok=nothing, env=env)
    without = median_wall(pytest + ["-p", "no:kg_prompt_harness"], cwd=empty, repeat=repeat, ok=nothing, env=env)
    return Startup(help_s, parse_s, with_plugin, without)


# --- recording -------------------------------------------------------------------------------

@dataclass
class Recording:
    ratio: float | None
    figure: str


def recording(args: argparse.Namespace, code: Code) -> Recording:
    """This checkout's bench/record.py run on the code's checkout (KG_BENCH_CODE), as a subprocess:
    its ratio to the latency-bound ideal (the SDK imported before its clock, as for every code)."""
    argv = [sys.executable, str(BENCH / "record.py"), "--calls", str(args.record_calls),
            "--latency", str(args.record_latency), "--concurrency", str(args.record_concurrency)]
    done = subprocess.run(argv, cwd=code.root, env={**code.env(), "KG_BENCH_CODE": str(code.root)},
                          capture_output=True, text=True)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    clean = [line for line in lines if not line.get("rate_429")]
    if done.returncode != 0 or not clean:
        tail = " ".join(done.stderr.strip().splitlines()[-2:])[:200]
        return Recording(None, f"{NA} (bench/record.py exited {done.returncode}: {tail})")
    first = clean[0]
    figure = f"{first['ratio_to_ideal']:.2f}x ({first['wall_s']:.2f} s, ideal {first['ideal_s']:.2f} s"
    figure += f"; SDK import {first['sdk_import_s']:.2f} s, before the clock)" if "sdk_import_s" in first else ")"
    faulty = [line for line in lines if line.get("rate_429")]
    if faulty:
        figure += f"; with 10% 429s: {faulty[0]['ratio_to_ideal']:.2f}x"
    return Recording(first["ratio_to_ideal"], figure)


# --- the table -------------------------------------------------------------------------------

def ratio(peer: float | None, ours: float) -> str:
    return NA if peer is None or ours <= 0 else f"{peer / ours:.2f}x"


@dataclass
class Measured:
    """Every figure of one code tree on the same recorded workload."""

    single: Process
    double: Process
    memory: dict[int, float]
    startup: Startup
    recording: Recording


def measure(code: Code, root: Path, suites: dict[str, Path], by_size: dict[int, Path], work: Path,
            args: argparse.Namespace) -> Measured:
    print(f"[figures] measuring {code.label} ({code.root})", file=sys.stderr, flush=True)
    single = replay(root, suites["two"], "default", code)
    double = replay(root, suites["two"], None, code)
    memory: dict[int, float] = {}
    for size, path in sorted(by_size.items()):
        memory[size] = replay(root, path, None, code).peak_rss_mb
        print(f"[figure] {code.label}: peak memory {memory[size]:.0f} MB at {size:,}", file=sys.stderr, flush=True)
    work.mkdir(parents=True, exist_ok=True)
    return Measured(single, double, memory, startup(work, args.repeat, code), recording(args, code))


def versus(after: float | None, before: float | None) -> str:
    """`after` over `before`, as the table prints it next to the after figure."""
    return "" if after is None or before is None or before <= 0 else f" ({after / before:.2f}x before)"


def figures(args: argparse.Namespace) -> list[Row]:
    """The table's rows; with `--before`, each row's figure holds the earlier checkout's figure
    and this one's, measured back to back on the same recorded workload."""
    n = args.cases
    sizes = sorted(set(args.memory_sizes))
    rows = Rows()
    codes = ([Code("before", args.before.resolve())] if args.before else []) + [THIS]
    with tempfile.TemporaryDirectory(prefix="bench-figures-") as tmp:
        root = Path(tmp) / "project"
        one = write_suite(root, n, 1)
        suites = {"two": write_suite(root, n, 2)}
        by_size = {size: write_suite(root, size, 1, MEMORY_GOLD) for size in sizes}
        largest = by_size[max(sizes)] if sizes and max(sizes) > n else one
        record_s = record(root, [largest, suites["two"]])
        print(f"recorded cassettes in {record_s:.1f} s (not timed below)", file=sys.stderr)
        measured = {code.label: measure(code, root, suites, by_size, Path(tmp) / code.label, args) for code in codes}
        peer: float | None = None
        if args.no_promptfoo:
            peer_figure = f"{NA} (--no-promptfoo)"
            peer_command = "python bench/peers/promptfoo.py"
        else:
            try:
                result = promptfoo.run(n)
                peer = result.wall_s
                peer_figure = f"{peer:.2f} s ({result.passed}/{n} passed); promptfoo / harness run: " + "; ".join(
                    f"{label}: {ratio(peer, m.single.wall_s)} (1 variant), {ratio(peer, m.double.wall_s)} (2 variants)"
                    for label, m in measured.items())
                peer_command = f"python bench/peers/promptfoo.py --cases {n} ({result.command})"
            except promptfoo.Unavailable as error:
                peer_figure = f"{NA} ({error})"
                peer_command = "python bench/peers/promptfoo.py"

    before = measured.get("before")
    after = measured["after"]

    def cell(show, number=None) -> str:
        """`show(m)` of each code tree; `number(m)` makes the after/before ratio."""
        if before is None:
            return show(after)
        ratio_text = versus(number(after), number(before)) if number else ""
        return f"before: {show(before)} · after: {show(after)}{ratio_text}"

    run_cmd = f"harness run suites/bench-{n}x2.yaml --fresh"
    rows.append(Row(f"replay {n:,} x 1 variant, whole process (promptfoo >= 3x slower)",
                    cell(lambda m: f"{m.single.wall_s:.2f} s, {n / m.single.wall_s:.0f} calls/s, exit {m.single.exit}",
                         lambda m: m.single.wall_s),
                    run_cmd + " --variant default"))
    rows.append(Row(f"promptfoo {promptfoo.VERSION}, {n:,} cases, 2 contains assertions, mock provider",
                    peer_figure, peer_command))
    rows.append(Row(f"replay {n:,} x 2 variants ({2 * n:,} calls) <= 4 s whole process",
                    cell(lambda m: f"{m.double.wall_s:.2f} s, {2 * n / m.double.wall_s:.0f} calls/s, exit {m.double.exit}",
                         lambda m: m.double.wall_s),
                    run_cmd))
    rows.append(Row(f"peak memory <= 200 MB, flat from 500 to 20,000 cases (1 variant; gold cut to "
                    f"{MEMORY_GOLD[0]} entities and {MEMORY_GOLD[1]} relationships, so that earlier checkouts, whose "
                    "YAML limit of 1,000,000 values refused 20,000 full golds, load them too)",
                    cell(lambda m: "; ".join(f"{mb:.0f} MB at {size:,}" for size, mb in m.memory.items()) or NA,
                         lambda m: max(m.memory.values(), default=0.0)),
                    f"harness run suites/bench-<N>x1-gold{MEMORY_GOLD[0]}+{MEMORY_GOLD[1]}.yaml --fresh "
                    "(ru_maxrss via wait4)"))
    how = "hyperfine" if shutil.which("hyperfine") else "subprocess"
    note = f"median of {args.repeat} ({how})"
    rows.append(Row("`harness --help` <= 0.3 s", cell(lambda m: f"{m.startup.help_s:.3f} s ({note})",
                                                      lambda m: m.startup.help_s), "harness --help"))
    rows.append(Row("`harness parse` of one answer <= 0.3 s",
                    cell(lambda m: f"{m.startup.parse_s:.3f} s ({note})", lambda m: m.startup.parse_s),
                    "harness parse one-answer.txt (the fixed 1.6 KB answer)"))
    rows.append(Row("pytest plugin adds nothing measurable (no suite collected)",
                    cell(lambda m: f"{m.startup.with_plugin_s - m.startup.without_plugin_s:+.3f} s "
                                   f"({m.startup.with_plugin_s:.3f} s with, {m.startup.without_plugin_s:.3f} s without; {note})"),
                    "python -m pytest --co -q -p no:cacheprovider [-p no:kg_prompt_harness] (empty folder)"))
    record_cmd = (f"python bench/record.py --calls {args.record_calls} --latency {args.record_latency} "
                  f"--concurrency {args.record_concurrency}")
    rows.append(Row("recording at <= 1.2x the latency-bound ideal",
                    cell(lambda m: m.recording.figure,
                         lambda m: m.recording.ratio),
                    record_cmd))
    return rows


def table(rows: list[Row]) -> str:
    lines = ["| aim | figure | command |", "|---|---|---|"]
    lines += [f"| {r.aim} | {r.figure} | `{r.command}` |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the 20,000-case memory figure")
    parser.add_argument("--cases", type=int, default=2000, help="cases of the replay and promptfoo figures")
    parser.add_argument("--memory-sizes", type=int, nargs="+", default=None,
                        help="cases of the memory figures (default 500 2000 20000; --quick: 500 2000)")
    parser.add_argument("--repeat", type=int, default=7, help="fresh processes per start-up figure")
    parser.add_argument("--record-calls", type=int, default=1000)
    parser.add_argument("--record-latency", type=float, default=0.1)
    parser.add_argument("--record-concurrency", type=int, default=32)
    parser.add_argument("--no-promptfoo", action="store_true", help="print n/a instead of installing/running promptfoo")
    parser.add_argument("--before", type=Path, default=None,
                        help="a checkout of the code before a change (`git worktree add --detach DIR REV`): every "
                             "figure is measured with it, then with this one, back to back on the same cassettes")
    args = parser.parse_args(argv)
    if args.memory_sizes is None:
        args.memory_sizes = [500, 2000] if args.quick else [500, 2000, 20000]
    started = time.perf_counter()
    rows = figures(args)
    print(table(rows))
    print(f"\n{len(rows)} figures in {time.perf_counter() - started:.0f} s; timings from a possibly shared "
          f"machine ({os.cpu_count()} cores): compare ratios taken in one sitting.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
