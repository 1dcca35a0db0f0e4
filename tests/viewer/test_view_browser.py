"""The site in a real browser (Debian's Chromium driven by Playwright; no browser download),
opened from its folder (file://): trend -> two-run comparison -> case -> graph diff, by mouse and
keyboard, over two real replayed runs, with every figure checked against `harness compare`; then
the graph diff `harness diff --json` wrote of the same two runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.compare import compare
from harness.metrics.registry import get
from harness.runfolder import read_rows

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium (apt-get install -y chromium)")]


def test_trend_compare_case_graph_diff(runs_project, tmp_path, capsys):
    reports = tmp_path / "reports"
    shutil.copytree(runs_project / "reports", reports)
    assert main(["baseline", "update", str(reports / "podcast" / "r1")]) == 0
    capsys.readouterr()
    assert main(["diff", f"{reports / 'podcast' / 'r1'}:default", f"{reports / 'podcast' / 'r2'}:default", "--json"]) == 0
    graph_diff = json.loads(capsys.readouterr().out)
    (reports / "diffs").mkdir()
    (reports / "diffs" / "prompt-change.json").write_text(json.dumps(graph_diff), encoding="utf-8")
    assert main(["view", str(reports)]) == 0
    capsys.readouterr()
    rows_a, rows_b = read_rows(reports / "podcast" / "r1"), read_rows(reports / "podcast" / "r2")
    expected = compare(rows_a, rows_b)
    recall = get("entity_recall")
    worst = sorted(expected.cases, key=lambda c: (c.delta["entity_recall"], c.case_id))
    index = (reports / "view" / "index.html").as_uri()

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda message: problems.append(message.text) if message.type in ("error", "warning") else None)
        page.goto(index)
        page.wait_for_function("window.harnessView && window.harnessView.ready === true")

        # the suites, then the trend
        page.get_by_role("link", name="podcast").click()
        page.wait_for_selector("#runs")
        charts = page.locator(".chart")
        assert charts.count() == 3 and charts.first.locator("h4").text_content() == "Entity recall"
        commits = (runs_project / "commits.txt").read_text(encoding="utf-8").split("\n")
        if commits[1]:  # with git: each run shows the commit it was started at
            assert page.locator("#runs tr[data-run='r2'] td.commit").text_content() == commits[1][:10]
        assert charts.first.locator("circle.point").count() == 2  # one series, two runs
        assert charts.first.locator(".baseline-mark").count() == 1  # r1 is the accepted baseline
        assert page.locator("#runs tbody tr").first.get_attribute("data-run") == "r2"  # newest first
        assert "(baseline)" in page.locator("#runs tr[data-run='r1']").text_content()

        # by keyboard: B is the newest run, A the one below it, then compare
        page.keyboard.press("b")
        page.wait_for_function("location.hash.includes('b=r2')")
        page.keyboard.press("j")
        page.keyboard.press("a")
        page.wait_for_function("location.hash.includes('a=r1')")
        page.keyboard.press("c")
        page.wait_for_selector("#cases tbody tr")

        # the two runs side by side: harness compare's statistics
        delta = expected.metrics["entity_recall"]
        row = page.locator("#figures tr[data-metric='entity_recall'] td")
        assert row.nth(3).text_content() == recall.format_change(delta.delta).replace("-", "−")
        assert row.nth(4).text_content() == (f"[{recall.format_change(delta.ci_low)}, "
                                             f"{recall.format_change(delta.ci_high)}]").replace("-", "−")
        assert row.nth(6).text_content() == f"{delta.improved} / {delta.regressed} of {delta.n}"
        cases = page.locator("#cases tbody tr")
        assert cases.count() == len(expected.cases)
        assert [cases.nth(i).get_attribute("data-case") for i in range(3)] == [c.case_id for c in worst[:3]]

        # only the regressed cases, by the filter
        page.select_option("#only", "regressed")
        page.wait_for_function("document.querySelectorAll('#cases tbody tr').length === %d"
                               % sum(1 for c in expected.cases if c.delta["entity_recall"] < 0))
        page.select_option("#only", "")
        page.wait_for_function("document.querySelectorAll('#cases tbody tr').length === %d" % len(expected.cases))

        # the worst case, opened with Enter: its graph diff is harness compare's
        page.keyboard.press("Enter")
        page.wait_for_selector("#entities-only-a")
        first = worst[0]
        lost = page.locator("#entities-only-a li").all_text_contents()
        gained = page.locator("#entities-only-b li").all_text_contents()
        assert sorted(text.split(" [")[0] for text in lost) == sorted(first.graph.entities_lost)
        assert sorted(text.split(" [")[0] for text in gained) == sorted(first.graph.entities_gained)
        assert page.locator("#relationships-only-a li").count() == max(1, len(first.graph.relationships_lost))
        assert page.locator("#relationships-only-b li").count() == max(1, len(first.graph.relationships_gained))
        retyped = {name for name, _, _ in first.graph.entities_retyped}
        shown_retyped = page.locator("#entities-both li.retyped, #entities-both li span.retyped").all_text_contents()
        assert {text.split(" [")[0] for text in shown_retyped} == retyped
        case_url = page.url

        # n: the next case in the same order; u: back to the comparison
        page.keyboard.press("n")
        page.wait_for_function("location.hash.includes('case=%s')" % worst[1].case_id)
        page.keyboard.press("u")
        page.wait_for_selector("#cases tbody tr")

        # a deep link opens the same case in a fresh page
        fresh = browser.new_page()
        fresh.on("pageerror", lambda exc: problems.append(str(exc)))
        fresh.goto(case_url)
        fresh.wait_for_selector("#entities-only-a")
        assert fresh.locator("h2").text_content() == f"Case {first.case_id} (default)"
        assert fresh.locator("#entities-only-a li").all_text_contents() == lost

        # the graph diff harness diff wrote, from the suites page
        page.goto(index)
        page.locator("#diffs a", has_text="prompt-change").click()
        page.wait_for_selector("#diff-entities-added")
        assert page.locator("#diff-entities-added li").all_text_contents() == graph_diff["entities"]["added"]
        assert page.locator("#diff-entities-removed li").all_text_contents() == graph_diff["entities"]["removed"]
        assert page.locator("#diff-relationships-removed li").count() == len(graph_diff["relationships"]["removed"])
        browser.close()
    assert problems == []
