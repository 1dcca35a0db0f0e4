"""The review page in a real browser (Debian's Chromium, driven by Playwright; no browser is ever
downloaded): the issue's done-when on the podcast suite with its gold removed, and XSS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.suites import load_suite

from .helpers import CHROMIUM, launch_chromium, replayed_run, run_cli, suite_without_gold

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="no Chromium at /usr/bin/chromium (apt-get install -y chromium)")


def _select_in_chunk(page, text: str) -> None:
    """Select the first occurrence of `text` in the chunk, as a mouse drag would."""
    found = page.evaluate("""(needle) => {
        const box = document.getElementById('chunk');
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.data.indexOf(needle);
            if (at >= 0) {
                const range = document.createRange();
                range.setStart(node, at);
                range.setEnd(node, at + needle.length);
                const sel = window.getSelection();
                sel.removeAllRanges();
                sel.addRange(range);
                return true;
            }
        }
        return false;
    }""", text)
    assert found, text


def _row(page, name: str):
    return page.locator("#entities tr").filter(has=page.locator(f"input.name[value='{name}']"))


def _relationship(page, source: str, target: str):
    return (page.locator("#relationships tr").filter(has=page.locator("td:nth-child(1)", has_text=source))
            .filter(has=page.locator("td:nth-child(3)", has_text=target)))


@pytest.mark.slow
def test_propose_review_in_the_browser_apply_and_recall(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    suite_path = suite_without_gold(tmp_path)
    run_dir = replayed_run(capsys, suite_path)
    code, out, err = run_cli(capsys, "annotate", str(suite_path), "--from", str(run_dir), "--review",
                             "--out", "review.html")
    assert code == 0, err
    assert "12 case(s) proposed" in out
    pending = load_suite(suite_path)
    assert all(case.pending and not case.has_entity_gold for case in pending.cases)

    with sync_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(accept_downloads=True)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto((tmp_path / "review.html").as_uri())
        page.wait_for_function("window.annotateReady === true")
        assert page.locator("#case-title").text_content() == "Case 1 of 12: host-welcomes-guest"
        # accept three, reject one, retype one; accept and drop relationships; rename, add an alias
        # and a relationship; add a missing entity by selecting it in the chunk
        _row(page, "Dana Whitfield").locator("button.accept").click()
        _row(page, "Northgate Robotics").locator("button.accept").click()
        _row(page, "Felix Ardanaz").locator("button.reject").click()
        _row(page, "Harlow Reach").locator("button.accept").click()
        type_box = _row(page, "Harlow Reach").locator("input.type")
        type_box.fill("geo")
        type_box.press("Enter")
        _relationship(page, "Northgate Robotics", "Harlow Reach").locator("button.accept").click()
        _relationship(page, "Dana Whitfield", "Northgate Robotics").locator("button.reject").click()  # dropped
        # rename, keeping the old name as an alias; then a relationship of the reviewer's own, typed
        name_box = _row(page, "Northgate Robotics").locator("input.name")
        name_box.fill("Northgate")
        name_box.press("Enter")
        alias_box = _row(page, "Northgate").locator("input.alias")
        alias_box.fill("Northgate Robotics")
        alias_box.press("Enter")
        page.locator("#rel-source").select_option(label="Dana Whitfield")
        page.locator("#rel-target").select_option(label="Northgate")
        page.locator("#rel-type").fill("works at")
        page.locator("#add-rel").click()
        _select_in_chunk(page, "firmware engineer")
        page.locator("#new-type").fill("role")
        page.locator("#add-selected").click()
        assert page.locator("#message").text_content() == "added: firmware engineer"
        # the keyboard: next case, back
        page.locator("body").click(position={"x": 5, "y": 400})
        page.keyboard.press("n")
        assert page.locator("#case-title").text_content().startswith("Case 2 of 12")
        page.keyboard.press("p")
        assert page.locator("#case-title").text_content().startswith("Case 1 of 12")
        page.locator("#reviewer").fill("Rosa Tester")
        page.locator("#reviewed").fill("2026-11-24")
        with page.expect_download() as info:
            page.locator("#download").click()
        reviewed = tmp_path / "reviewed.yaml"
        info.value.save_as(reviewed)
        assert errors == []
        browser.close()

    code, out, err = run_cli(capsys, "annotate", str(suite_path), "--apply", str(reviewed), "--from", str(run_dir))
    assert code == 0, err
    suite = load_suite(suite_path)  # the suite loads, with the reviewed gold
    case = next(c for c in suite.cases if c.id == "host-welcomes-guest")
    assert (case.review, case.reviewer, case.reviewed, case.annotated) == ("done", "Rosa Tester", "2026-11-24", True)
    gold = {e.name: (e.type, e.aliases) for e in case.entities}
    assert gold == {"Dana Whitfield": ("person", []), "Northgate": ("organization", ["Northgate Robotics"]),
                    "Harlow Reach": ("geo", []), "firmware engineer": ("role", [])}
    # only accepted relationships are gold: the proposed one accepted, the reviewer's own, typed
    assert [(r.source, r.target, r.type) for r in case.relationships] == [
        ("Northgate", "Harlow Reach", ""), ("Dana Whitfield", "Northgate", "works at")]
    assert sum(1 for c in suite.cases if c.pending) == 11
    # recall of each variant against the reviewed gold, re-scored from the stored answers: every
    # variant named Dana Whitfield, Northgate Robotics (now an alias) and Harlow Reach, none
    # "firmware engineer": 3 / 4 = 75.0%; both gold edges were found by all three (the proposal's
    # found_by): 2 / 2 = 100.0%
    assert "each variant of" in out and "against the reviewed gold of 1 case(s)" in out
    for variant in ("default", "tuned", "auto"):
        assert f"  {variant}: entity recall 75.0%" in out
    assert out.count("relationship recall 100.0%") == 3


@pytest.mark.slow
def test_accept_all_grounded_takes_relationships_between_accepted_entities(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    suite_path = suite_without_gold(tmp_path)
    run_dir = replayed_run(capsys, suite_path)
    run_cli(capsys, "annotate", str(suite_path), "--from", str(run_dir), "--case", "series-a-funding",
            "--review", "--out", "review.html")
    side = load_suite(suite_path)
    proposal = next(c for c in side.cases if c.id == "series-a-funding")
    with sync_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(accept_downloads=True)
        page.goto((tmp_path / "review.html").as_uri())
        page.wait_for_function("window.annotateReady === true")
        page.keyboard.press("g")
        with page.expect_download() as info:
            page.locator("#download").click()
        text = Path(info.value.path()).read_text(encoding="utf-8")
        browser.close()
    data = json.loads(text.split("\n", 2)[2])  # after the two comment lines: JSON, which is YAML
    (case,) = data["cases"]
    # every proposal of this case is grounded (the annotate output said so for series-a-funding)
    assert len(case["entities"]) == len(proposal.entities)
    assert len(case["relationships"]) == len(proposal.relationships)


XSS_TEXT = ("Alice <script>window.__pwned = 1</script> met Bob </textarea><img src=x onerror=window.__pwned=2> "
            "at {{7*7}} <a href=\"javascript:window.__pwned=3\">click</a>.")


@pytest.mark.slow
def test_untrusted_chunk_and_answer_render_inert(tmp_path, monkeypatch):
    from harness.annotate.gold_file import GoldFileCase, ProposedEntity, ProposedRelationship
    from harness.annotate.page import page_data, render_page
    from harness.model import GoldCase

    hostile = "<script>window.__pwned=4</script>"
    proposal = GoldFileCase(id="x", review="pending", entities=[
        ProposedEntity(name="Alice", type="<img src=x onerror=window.__pwned=5>", grounded=True,
                       found_by=["</textarea>"], type_votes={"{{x}}": 1}),
        ProposedEntity(name=hostile, aliases=["javascript:window.__pwned=6"], grounded=False),
    ], relationships=[ProposedRelationship(source="Alice", target=hostile, description="<b onmouseover=x>{{y}}</b>")])
    page_path = tmp_path / "page.html"
    page_path.write_text(render_page(page_data("x", [GoldCase(id="x", text=XSS_TEXT)], {"x": proposal}, ["person"])),
                         encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page()
        page.goto(page_path.as_uri())
        page.wait_for_function("window.annotateReady === true")
        assert page.locator("#chunk").text_content() == XSS_TEXT  # shown literally
        assert page.locator("#chunk script, #chunk img, #chunk a, #entities img, #relationships b").count() == 0
        assert page.locator("#relationships").text_content().count("<b onmouseover=x>{{y}}</b>") == 1
        names = page.locator("#entities input.name").evaluate_all("els => els.map(e => e.value)")
        assert names == ["Alice", hostile]
        page.locator("#entities tr").nth(1).locator("button.accept").click()
        page.locator("#chunk mark").first.click()
        assert page.evaluate("window.__pwned") is None
        assert page.locator("a[href^='javascript:']").count() == 0
        browser.close()


@pytest.mark.slow
def test_the_downloaded_yaml_reads_back_whatever_the_names_hold(tmp_path):
    """The page writes JSON (YAML's flow style) with the characters YAML readers refuse raw
    (C1 controls, DEL, U+FFFE/U+FFFF) or reads as line breaks (NEL, U+2028/9) as escapes: every name reads back equal through load_yaml."""
    from harness.annotate.gold_file import GoldFileCase, ProposedEntity, read_gold_file
    from harness.annotate.page import page_data, render_page
    from harness.model import GoldCase

    names = ["a: b # c", "quote \" and \\ back", "tab\there", "next\x85line", "del\x7f", "emoji 😀 é",
             "- dash", "'single'", "yes", "null", "\ufffe odd", "{flow}", "&anchor *alias !tag", "para\u2028sep\u2029end"]
    proposal = GoldFileCase(id="c", review="pending",
                            entities=[ProposedEntity(name=n, grounded=True) for n in names])
    page_path = tmp_path / "page.html"
    page_path.write_text(render_page(page_data("s", [GoldCase(id="c", text="text")], {"c": proposal}, [])),
                         encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(accept_downloads=True)
        page.goto(page_path.as_uri())
        page.wait_for_function("window.annotateReady === true")
        page.keyboard.press("g")
        with page.expect_download() as info:
            page.locator("#download").click()
        target = tmp_path / "reviewed.yaml"
        info.value.save_as(target)
        browser.close()
    (case,) = read_gold_file(target).cases
    assert [e.name for e in case.entities] == names
