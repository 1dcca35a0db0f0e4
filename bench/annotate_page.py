"""The review page of `harness annotate --review` at the issue's size: 200 cases of 40 proposed
entities (and 40 relationships) each.

    python bench/annotate_page.py [--cases 200] [--entities 40] [--out /tmp/annotate-bench.html]

Times (wall clock, best of 3 where repeated): building the page (`page_data` + `render_page`) and
its size; then, in Debian's Chromium driven by Playwright (skipped with a reason when either is
missing): loading the file until the page is ready, switching case (one `n` key press: the
render, measured in the page around a synchronous key event and a forced layout; and the round
trip from Playwright's key press until the title shows the next case), "accept all grounded", and
building the reviewed YAML of every case. Figures, not assertions. Chunks are synthetic: ~2,400
characters of sentences naming each case's entities.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.annotate.gold_file import GoldFileCase, ProposedEntity, ProposedRelationship  # noqa: E402
from harness.annotate.page import page_data, render_page  # noqa: E402
from harness.model import GoldCase  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def synthetic(cases: int, entities: int) -> tuple[list[GoldCase], dict[str, GoldFileCase]]:
    gold, proposals = [], {}
    for c in range(cases):
        names = [f"Entity {c}-{e} Holdings" for e in range(entities)]
        text = " ".join(f"On day {i}, {names[i % entities]} met {names[(i * 7 + 3) % entities]} in the city of "
                        f"Town{c}x{i}." for i in range(2 * entities))
        case_id = f"case-{c:03d}"
        gold.append(GoldCase(id=case_id, text=text))
        ents = [ProposedEntity(name=n, type="organization", aliases=[n.replace(" Holdings", "")],
                               found_by=["default", "tuned"], grounded=e % 5 != 0, type_votes={"organization": 2})
                for e, n in enumerate(names)]
        rels = [ProposedRelationship(source=names[e], target=names[(e + 1) % entities], found_by=["default"],
                                     description=f"{names[e]} works with {names[(e + 1) % entities]}")
                for e in range(entities)]
        proposals[case_id] = GoldFileCase(id=case_id, review="pending", entities=ents, relationships=rels)
    return gold, proposals


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--entities", type=int, default=40)
    parser.add_argument("--out", type=Path, default=Path("/tmp/annotate-bench.html"))
    args = parser.parse_args()
    gold, proposals = synthetic(args.cases, args.entities)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        page = render_page(page_data("bench", gold, proposals, ["organization", "person"]))
        times.append(time.perf_counter() - start)
    args.out.write_text(page, encoding="utf-8")
    print(f"{args.cases} cases x {args.entities} entities + {args.entities} relationships: "
          f"page built in {min(times) * 1000:.0f} ms (best of 3), {len(page) / 1e6:.2f} MB")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser figures skipped: playwright is not installed (pip install -e '.[test]')")
        return 0
    if not CHROMIUM.exists():
        print("browser figures skipped: no /usr/bin/chromium (apt-get install -y chromium)")
        return 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        loads = []
        for _ in range(3):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            start = time.perf_counter()
            page.goto(args.out.resolve().as_uri())
            page.wait_for_function("window.annotateReady === true")
            loads.append(time.perf_counter() - start)
            if len(loads) < 3:
                page.close()
        print(f"load until ready: {min(loads) * 1000:.0f} ms (best of 3)")
        in_page = page.evaluate("""(n) => {
            const out = [];
            for (let i = 0; i < n; i++) {
                const t0 = performance.now();
                document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n'}));
                void document.body.offsetHeight;  // force layout
                out.push(performance.now() - t0);
            }
            return out;
        }""", args.cases - 1)
        print(f"switch case in the page (render + layout), {len(in_page)} switches: median "
              f"{statistics.median(in_page):.1f} ms, max {max(in_page):.1f} ms")
        round_trips = []
        for i in range(20):
            start = time.perf_counter()
            page.keyboard.press("p")
            page.wait_for_function(f"document.getElementById('case-title').textContent.startsWith('Case {args.cases - 1 - i} ')")
            round_trips.append(time.perf_counter() - start)
        print(f"switch case, key press to new title through Playwright (20 presses): median "
              f"{statistics.median(round_trips) * 1000:.1f} ms, max {max(round_trips) * 1000:.1f} ms")
        accept = page.evaluate("""() => {
            const t0 = performance.now();
            document.dispatchEvent(new KeyboardEvent('keydown', {key: 'g'}));
            void document.body.offsetHeight;
            return performance.now() - t0;
        }""")
        print(f"accept all grounded (one case): {accept:.1f} ms")
        download = page.evaluate("""(n) => {
            for (let i = 0; i < n; i++) { document.dispatchEvent(new KeyboardEvent('keydown', {key: 'p'})); }
            const t0 = performance.now();
            for (let i = 0; i < n; i++) {
                document.dispatchEvent(new KeyboardEvent('keydown', {key: 'g'}));
                document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n'}));
            }
            const t1 = performance.now();
            document.getElementById('download').click();
            return [t1 - t0, performance.now() - t1, document.getElementById('yaml-preview').textContent.length];
        }""", args.cases)
        print(f"accept all grounded and next, every case: {download[0]:.0f} ms in all; reviewed YAML of "
              f"{args.cases} cases built: {download[1]:.0f} ms ({download[2] / 1e6:.2f} MB)")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
