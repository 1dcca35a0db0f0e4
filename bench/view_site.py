"""`harness view` at the issue's size: 200 runs of one suite, 2,000 cases each.

    python bench/view_site.py [--runs 200] [--cases 2000] [--variants 1] [--work /tmp/view-bench] [--quick]

The runs are made from one real replay of the podcast suite (variants `default` and `tuned`):
each synthetic run's rows are that replay's rows repeated under new case ids, each case taking
its row from a template that shifts with the run, so consecutive runs differ case by case (their
graphs and figures); the rows' answer texts (`rounds`) are left out to keep the folder small,
since the viewer reads only graphs and scores. Summaries are the replay's, renamed and dated one
hour apart; run 0 is accepted as the baseline, so the site precomputes 199 consecutive pairs and
198 pairs against the baseline's run.

Figures (wall clock and CPU time, one build each; not assertions): the cold build, a rebuild with nothing new,
a rebuild after one more run, the index's size, one run's data file, the whole site; and, in
Debian's Chromium when Playwright and /usr/bin/chromium are there, the time from opening a
comparison's deep link to its case table and from there to a case's graph diff.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.runfolder import RESULTS, SUMMARY, read_rows, read_summary, write_artifact  # noqa: E402
from harness.atomicfile import atomic_write  # noqa: E402
from harness.viewer.build import build_site  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PLACE = "@@CASE@@"


def source_run(work: Path) -> Path:
    from harness.cli import main as cli

    reports = work / "source"
    os.chdir(ROOT)
    with contextlib.redirect_stdout(io.StringIO()):
        cli(["run", "suites/podcast.yaml", "--record-mode", "none", "--variant", "default", "--variant", "tuned",
             "--run-id", "src", "--reports", str(reports)])
    run = reports / "podcast" / "src"
    if not (run / SUMMARY).exists():
        raise SystemExit("the podcast replay did not finish")
    return run


def write_runs(source: Path, reports: Path, runs: int, cases: int, variants: int) -> None:
    rows = read_rows(source)
    summary = read_summary(source)
    names = list(summary.variants)[:variants]
    templates = {name: [row.model_copy(update={"rounds": [], "round_reports": [], "case_id": PLACE}).model_dump_json()
                        for row in rows if row.variant == name] for name in names}
    kept = {name: summary.variants[name].model_copy(update={"cases": cases}) for name in names}
    for run in range(runs):
        run_id = f"run-{run:04d}"
        folder = reports / "podcast" / run_id
        folder.mkdir(parents=True)

        def lines(run: int = run):
            for name in names:
                pool = templates[name]
                for case in range(cases):
                    yield pool[(case * 5 + run) % len(pool)].replace(PLACE, f"case-{case:05d}", 1) + "\n"

        atomic_write(folder / RESULTS, lines())
        created = f"2026-01-{1 + run // 24:02d}T{run % 24:02d}:00:00+00:00"
        write_artifact(folder / SUMMARY, summary.model_copy(update={"run_id": run_id, "created_at": created,
                                                                    "variants": kept, "comparisons": {}}))


def timed(label: str, action):
    """Wall clock and this process's CPU time (on a shared machine the CPU time is the steadier one)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = action()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    print(f"{label:<40} {seconds:8.2f} s wall, {cpu_seconds:8.2f} s CPU")
    return result


def browser_figures(site: Path, first: str, second: str) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser figures skipped: playwright is not installed")
        return
    if not CHROMIUM.exists():
        print("browser figures skipped: no /usr/bin/chromium")
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        page.goto((site / "index.html").as_uri() + "#view=trend&suite=podcast")
        page.wait_for_selector("#runs tbody tr")
        print(f"{'trend page, 200 runs (open to table)':<40} {time.perf_counter() - start:8.2f} s")
        start = time.perf_counter()
        page.goto((site / "index.html").as_uri() + f"#view=compare&suite=podcast&a={first}&b={second}")
        page.wait_for_selector("#cases tbody tr")
        print(f"{'comparison (deep link to case table)':<40} {time.perf_counter() - start:8.2f} s")
        start = time.perf_counter()
        page.keyboard.press("Enter")
        page.wait_for_selector("#entities-only-a")
        print(f"{'case graph diff (Enter to lists)':<40} {time.perf_counter() - start:8.2f} s")
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--variants", type=int, default=1, choices=(1, 2))
    parser.add_argument("--work", type=Path, default=Path("/tmp/view-bench"))
    parser.add_argument("--quick", action="store_true", help="20 runs of 200 cases")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.cases = 20, 200
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    source = source_run(args.work)
    reports = args.work / "reports"
    print(f"{args.runs} runs x {args.cases} cases x {args.variants} variant(s)")
    timed("writing the runs", lambda: write_runs(source, reports, args.runs, args.cases, args.variants))
    from harness.cli import main as cli

    with contextlib.redirect_stdout(io.StringIO()):
        cli(["baseline", "update", str(reports / "podcast" / "run-0000")])
    site = args.work / "view"
    cold = timed("cold build", lambda: build_site(reports, site))
    warm = timed("rebuild, nothing new", lambda: build_site(reports, site))
    extra = reports / "podcast" / f"run-{args.runs:04d}"
    shutil.copytree(reports / "podcast" / "run-0001", extra)
    summary = read_summary(extra)
    write_artifact(extra / SUMMARY, summary.model_copy(update={"run_id": extra.name, "created_at": "2027-01-01T00:00:00+00:00"}))
    one_more = timed("rebuild after one new run", lambda: build_site(reports, site))
    data = site / "data"
    run_files = sorted(data.glob("run-*.js"))
    print(f"{'index.html':<40} {cold.index_bytes:>10,} bytes")
    print(f"{'one run data file':<40} {run_files[0].stat().st_size:>10,} bytes")
    print(f"{'whole site':<40} {sum(p.stat().st_size for p in site.rglob('*') if p.is_file()):>10,} bytes")
    print(f"data files: cold {cold.written} written; unchanged {warm.reused} reused, {warm.written} written; "
          f"one more run {one_more.written} written ({cold.pairs} pairs precomputed)")
    browser_figures(site, "run-0000", "run-0001")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
