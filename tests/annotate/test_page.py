"""The review page as a string (no browser): untrusted data stays data, the script is allowed by hash."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re

from harness.annotate.gold_file import GoldFileCase, ProposedEntity
from harness.annotate.page import embed_json, page_data, render_page
from harness.model import GoldCase

HOSTILE = "</script><script>alert(1)</script> </textarea> {{7*7}} <a href='javascript:alert(2)'>x</a> \u2028 &amp;"


def _page() -> str:
    proposal = GoldFileCase(id="c", review="pending", entities=[ProposedEntity(name=HOSTILE, type=HOSTILE)])
    return render_page(page_data(HOSTILE, [GoldCase(id="c", text=HOSTILE)], {"c": proposal}, ["person"]))


def test_embedded_json_cannot_close_its_block_or_open_markup():
    text = embed_json({"x": HOSTILE})
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == {"x": HOSTILE}


def test_the_page_has_one_script_allowed_by_its_hash_and_the_data_as_json():
    page = _page()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, flags=re.S)
    assert [attrs for attrs, _ in scripts] == [" type='application/json' id='annotate-data'", ""]
    data = json.loads(scripts[0][1])
    assert data["cases"][0]["text"] == HOSTILE and data["suite"] == HOSTILE
    digest = base64.b64encode(hashlib.sha256(scripts[1][1].encode("utf-8")).digest()).decode("ascii")
    csp = re.search(r"http-equiv='Content-Security-Policy' content=\"([^\"]+)\"", page).group(1)
    assert csp == (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
                   "base-uri 'none'; form-action 'none'")
    # outside the JSON block the hostile text appears once, escaped, in the title
    outside = page.replace(scripts[0][1], "")
    title = re.search(r"<title>(.*?)</title>", page, flags=re.S).group(1)
    assert title == html.escape(f"review gold: {HOSTILE}", quote=True)
    rest = outside.replace(title, "")
    assert "alert(" not in rest and "javascript:" not in rest and "{{" not in rest and "<a " not in rest


def test_the_script_builds_no_markup_from_strings():
    from importlib import resources

    script = resources.files("harness.annotate").joinpath("page_script.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                 "javascript:"):
        assert sink not in script, sink


def test_cases_without_a_proposal_are_left_out():
    proposal = GoldFileCase(id="b", review="pending", entities=[ProposedEntity(name="X", type_votes={"thing": 1})])
    data = page_data("s", [GoldCase(id="a", text="A"), GoldCase(id="b", text="X")], {"b": proposal}, ["person"])
    assert [c["id"] for c in data["cases"]] == ["b"] and data["types"] == ["person", "thing"]
