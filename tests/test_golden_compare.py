"""The golden comparison by meaning (tests/support/golden_compare.py) and the plot probe
(tests/support/plot_probe.py): what is cosmetic passes, what is meaning fails, readably."""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import pytest

from tests.support.golden_compare import Change, change_lines, differences, html_lines, importance, xml_lines
from tests.support.plot_probe import describe, png_size

# --- JSON ---------------------------------------------------------------------------------------


def test_json_is_compared_by_value_not_spelling() -> None:
    old = '{"a": 0.5, "b": [1, 2.0], "c": {"x": "é", "y": null}}\n'
    new = '{"c":{"y":null,"x":"\\u00e9"},"b":[1.0,2],"a":5e-1}'
    assert differences("s/summary.json", old, new) == []
    assert differences("s/summary.json", '{"ok": true}', '{"ok": 1}') == ["ok: true -> 1"]


def test_json_differences_are_paths_with_old_and_new_values_most_important_first() -> None:
    old = {"variants": {"tuned": {"metrics": {"f1": 0.61}, "prompt": "x" * 300, "status": "pass"}}}
    new = {"variants": {"tuned": {"metrics": {"f1": 0.58}, "prompt": "x" * 299 + "y", "status": "fail",
                                  "added": 1}}}
    assert differences("podcast/summary.json", json.dumps(old), json.dumps(new)) == [
        'variants.tuned.status: "pass" -> "fail"',
        "variants.tuned.metrics.f1: 0.61 -> 0.58",
        'variants.tuned.prompt: "' + "x" * 26 + ' [...] ' + "x" * 26 + '" -> "' + "x" * 26 + " [...] " + "x" * 25 + 'y"',
        "variants.tuned.added: (absent) -> 1",
    ]


def test_json_lists_are_aligned_and_named_by_their_items_labels() -> None:
    old = [{"label": "a", "v": 1}, {"label": "b", "v": 2}, {"label": "c", "v": 3}]
    new = [{"label": "z", "v": 0}, *old[:2], {"label": "c", "v": 4}]
    assert differences("p.json", json.dumps({"bars": old}), json.dumps({"bars": new})) == [
        "bars[c].v: 3 -> 4", 'bars[z]: (absent) -> {"label": "z", "v": 0}']


def test_jsonl_rows_are_named_by_variant_and_case() -> None:
    rows = [{"variant": "tuned", "case_id": "c1", "f1": 0.5}, {"variant": "tuned", "case_id": "c2", "f1": 0.7}]
    old = "".join(json.dumps(row) + "\n" for row in rows)
    new = json.dumps({**rows[0], "f1": 0.4}) + "\n"
    assert differences("s/results.jsonl", old, new) == [
        "[tuned/c1].f1: 0.5 -> 0.4", '[tuned/c2]: {"case_id": "c2", "f1": 0.7, "variant": "tuned"} -> (absent)']


def test_differences_are_cut_to_max_lines_and_long_values_cropped() -> None:
    changes = [Change(f"k{i}", i, i + 1) for i in range(100)]
    lines = change_lines(changes, max_lines=5)
    assert lines[:2] == ["k0: 0 -> 1", "k1: 1 -> 2"] and lines[-1] == "[... 95 more changes]"
    assert importance(Change("[0].exit_code", 0, 1)) == 0 < importance(Change("a.f1", 0.1, 0.2)) == 1
    assert importance(Change("a.name", "x", "y")) == 2
    long = differences("r.md", "x" * 1000 + "a\n", "x" * 1000 + "b\n")
    assert all(len(line) <= 220 for line in long) and any(line.endswith("b") for line in long)


# --- HTML ---------------------------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html lang='en'><head><style>
 h1 { color: red; margin: 0 }
</style></head><body>
<h1 class='big title'>Run &#x27;golden&#x27;</h1>
<table><tr><td class='num'>0.61 &middot; 0.58</td></tr></table>
<figure id='plot-metrics'><img alt="Scores" src="plots/metrics.png"></figure>
<pre>a  b
 c</pre>
<h2>Gate</h2><p>PASS</p>
</body></html>
"""

COSMETIC = """<!doctype html>
<html  lang="en">
  <head>
    <style>/* same rules */ h1{color:red;margin:0;}</style>
  </head>
  <body>
    <h1 class="title  big">
      Run 'golden'
    </h1>
    <table>
      <tr><td class="num">0.61  ·
        0.58</td></tr>
    </table>
    <figure id="plot-metrics"><img src='plots/metrics.png' alt='Scores'/></figure>
<pre>a  b
 c</pre>
    <h2>Gate</h2>
    <p>PASS</p>
  </body>
</html>"""


def test_html_formatting_attribute_order_quoting_class_order_and_css_formatting_are_cosmetic() -> None:
    assert differences("s/report.html", PAGE, COSMETIC) == []


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("0.61 &middot; 0.58", "0.61 &middot; 0.57", "+html > body > table > tr > td.num | 0.61 · 0.57"),
    ("<h2>Gate</h2><p>PASS</p>\n", "", "-html > body > h2 | Gate"),
    ('src="plots/metrics.png"', 'src="plots/graph.png"', '+html > body > figure#plot-metrics > img [alt="Scores" src="plots/graph.png"]'),
    ("class='num'", "class='num bad'", "+html > body > table > tr > td.bad.num"),
    ("<pre>a  b", "<pre>a b", "+html > body > pre | a b\\n c"),
    ("margin: 0", "margin: 1px", "+html > head > style | h1{color:red;margin:1px}"),
])
def test_html_changes_in_text_structure_attributes_and_preformatted_text_fail(old: str, new: str, expected: str) -> None:
    assert old in PAGE
    lines = differences("s/report.html", PAGE, PAGE.replace(old, new))
    assert expected in lines, lines


def test_html_lines_name_each_elements_path() -> None:
    lines = html_lines("<div id='a'><ul class='items'><li>one<br>two</li><li>three</ul></div><p>after")
    assert lines == ["div#a", "div#a > ul.items", "div#a > ul.items > li", "div#a > ul.items > li | one",
                     "div#a > ul.items > li > br", "div#a > ul.items > li | two", "div#a > ul.items > li",
                     "div#a > ul.items > li | three", "p", "p | after"]


# --- XML and text -------------------------------------------------------------------------------


def test_xml_is_compared_by_structure_attributes_and_stripped_text() -> None:
    old = ('<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="h" tests="2">\n  <testsuite name="s">\n'
           '    <testcase name="c1" time="0"><failure message="m">text</failure></testcase>\n  </testsuite>\n</testsuites>\n')
    new = ("<testsuites tests='2' name='h'><testsuite name='s'><testcase time='0' name='c1'>"
           "<failure message='m'>\n text \n</failure></testcase></testsuite></testsuites>")
    assert differences("s/junit.xml", old, new) == []
    lines = differences("s/junit.xml", old, old.replace('tests="2"', 'tests="3"'))
    assert '+testsuites[name=h] [tests="3"]' in lines
    assert xml_lines(old)[-1] == "testsuites[name=h] > testsuite[name=s] > testcase[name=c1] > failure | text"
    broken = differences("s/junit.xml", old, "<testsuites>")
    assert any("not XML" in line for line in broken)


def test_markdown_ignores_trailing_whitespace_but_not_leading() -> None:
    assert differences("s/report.md", "# T\n\n| a | b |\n", "# T  \n\n| a | b |\n\n\n") == []
    assert differences("s/report.md", "- a\n  - b\n", "- a\n- b\n") != []


# --- plots --------------------------------------------------------------------------------------


def _bars(heights: list[float], rc: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """A bar chart like the report's (title, tick labels, legend, error bars, a text), drawn under `rc`."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(rc):
        fig = Figure(figsize=(6, 3), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        ax.bar([0, 1, 2], heights, width=0.4, color="#4C72B0", label="tuned", yerr=[0.05, 0.05, 0.05], capsize=3)
        ax.plot([0, 2], [0, 1], linestyle="--", color="#888888", label="no change")
        ax.text(1, 0.02, "n/a", rotation=90)
        ax.set_xticks([0, 1, 2])
        ax.set_xticklabels(["Entity\nrecall", "Entity\nprecision", "F1"])
        ax.set_ylim(0, 1.05)
        ax.set_title("Scores per variant")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
        return buffer.getvalue(), describe(fig)


def test_a_plot_drawn_with_other_font_rendering_plots_the_same_and_a_changed_bar_does_not() -> None:
    png, plotted = _bars([0.6, 0.8, 0.7], {})
    other_png, other = _bars([0.6, 0.8, 0.7], {"text.hinting": "no_hinting", "text.antialiased": False,
                                                 "lines.antialiased": False, "patch.antialiased": False})
    assert hashlib.sha256(png).digest() != hashlib.sha256(other_png).digest()  # other pixels...
    assert other == plotted  # ...same plot
    assert png_size(png) == (600, 300)
    _, changed = _bars([0.6, 0.75, 0.7], {})
    lines = differences("s/plots/m.png.json", json.dumps({"plots": plotted}), json.dumps({"plots": changed}))
    assert "plots.axes[0].bars[tuned].rects[1].height: 0.8 -> 0.75" in lines
    assert plotted["axes"][0]["title"] == "Scores per variant"
    assert plotted["axes"][0]["xticks"][0] == [0, "Entity\nrecall"]
    assert plotted["axes"][0]["legend"] == ["no change", "tuned"]
    assert {entry["kind"] for entry in plotted["axes"][0]["collections"]} == {"segments"}  # the whiskers
    assert plotted["axes"][0]["texts"] == [{"text": "n/a", "at": [1, 0.02]}]


def test_what_matplotlib_versions_spell_differently_is_described_the_same_way() -> None:
    """Seen replaying under matplotlib 3.9.4 against a 3.11.2 capture: an error bar's caps (markers
    on an undrawn line) had another line colour, and fill_between another vertex list."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    ax.errorbar([0, 1], [0.5, 0.6], yerr=[0.1, 0.1], fmt="none", ecolor="#222222", capsize=3)
    ax.plot([0, 1], [0, 0], linestyle="None")  # draws nothing
    ax.fill_between([0, 1], [0, 0], [0, 1])
    axes = describe(fig)["axes"][0]
    assert [{key: value for key, value in line.items() if key != "points"} for line in axes["lines"]] == [
        {"label": "", "marker": "_", "marker_edge": "#222222ff"}] * 2
    polygons = [entry["polygons"] for entry in axes["collections"] if entry["kind"] == "polygons"]
    assert polygons == [[[[0, 0], [1, 0], [1, 1]]]]
    assert describe(fig)["inches"] == [4, 3]
