"""The HTML pieces of report.html: one self-contained file (inline CSS, plots as base64 PNG, no
script, no network). Its sections and their order are the one list of sections.py (the same as
report.md's); writers.render_html writes the document. The HTML adds the plots, and its cases
section shows the chunk, the gold entities and relationships, and for every column what it
extracted, missed and added (unmatched). A run of
more than `CASE_LIMIT` cases shows that many of them, the worst (`worst_cases`), so that the file
of 20,000 cases stays a few megabytes: every case is on the per-case pages it links
(case_pages.py) and in results.jsonl.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from html import escape
from typing import Any

from .markdown import RULE_NAMES, annotated_text, delta_text, figure_of, pct, row_label, rule_value, usage_cells
from .plots import PLOTS
from ..artifacts import MetricDelta
from ..metrics.registry import Metric, key_figures
from ..metrics.reference_free import reference_free_metrics
from .repeats import RULE_TEXT, samples_text, spread_rows, verdict_text
from . import engine_section
from .view import SIZE_KEYS, Column, ReportView
from ..model import CaseResult, CaseScore, SummaryScore

CASE_LIMIT = 500  # cases detailed in report.html; more are ranked and the worst shown


def worst_cases(view: ReportView, limit: int | None = None) -> list[str]:
    """The case ids report.html details: all of them up to `limit` (default CASE_LIMIT), else the
    `limit` worst, in report order. Worst first: a case that breaks a per-case rule, then one a
    column could not score, then the lowest first key figure of any column (undefined counts as neither)."""
    limit = CASE_LIMIT if limit is None else limit
    if len(view.case_ids) <= limit:
        return list(view.case_ids)
    figure = key_figures(view.suite_kind)[:1]

    def rank(case_id: str) -> tuple[int, float]:
        failing = any(not check.passed for column in view.columns
                      if (check := view.checks.get((column.variant, case_id))) is not None)
        lowest = 2.0
        errored = False
        for column in view.columns:
            row = column.row(case_id)
            if row is None:
                continue
            if row.score is None:
                errored = True
            elif figure and (value := figure_of(row, figure[0])) is not None:
                lowest = min(lowest, value)
        return (0 if failing else 1 if errored else 2), lowest

    order = {case_id: i for i, case_id in enumerate(view.case_ids)}
    chosen = set(sorted(view.case_ids, key=lambda c: (*rank(c), order[c]))[:limit])
    return [case_id for case_id in view.case_ids if case_id in chosen]


CSS = """
:root { --ok:#2e7d32; --warn:#b26a00; --bad:#c62828; --muted:#666; --line:#d9dde3; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color:#1f2328;
       margin: 0; padding: 24px 32px 64px; max-width: 1280px; line-height: 1.45; font-size: 14px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 6px; } h2 { font-size: 19px; margin: 32px 0 10px; border-bottom: 1px solid var(--line);
     padding-bottom: 4px; } h3 { font-size: 15px; margin: 18px 0 6px; }
p.facts, p.muted, .muted { color: var(--muted); }
blockquote { margin: 8px 0; padding: 6px 12px; border-left: 4px solid var(--line); color: var(--muted); background: var(--bg); }
table { border-collapse: collapse; margin: 8px 0 4px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
th { background: var(--bg); text-align: left; } td.num { text-align: right; white-space: nowrap; }
.delta { display: block; color: var(--muted); font-size: 12px; }
.up { color: var(--ok); } .down { color: var(--bad); }
.banner { display: inline-block; padding: 6px 14px; border-radius: 6px; font-weight: 600; margin: 8px 0; }
.banner.pass { background: #e8f5e9; color: var(--ok); } .banner.warn { background: #fff4e0; color: var(--warn); }
.banner.fail { background: #fdecea; color: var(--bad); }
tr.fail td { background: #fdecea; } tr.warn td { background: #fff8ec; } tr.skip td { color: var(--muted); }
figure { margin: 12px 0 20px; } figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 12px; }
details.case { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.case > summary { cursor: pointer; font-weight: 600; }
details.case.failing > summary { color: var(--bad); }
pre.chunk { white-space: pre-wrap; background: var(--bg); padding: 8px 10px; border-radius: 4px; max-height: 260px;
            overflow: auto; font-size: 12px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 10px 18px; }
ul.items { margin: 2px 0 8px; padding-left: 18px; } ul.items li { margin: 0; }
.missed { color: var(--bad); } .unmatched { color: var(--warn); } .tag { color: var(--muted); font-size: 12px; }
code { background: var(--bg); padding: 0 3px; border-radius: 3px; }
"""


# plain symbols that every font has (headless browsers often lack emoji fonts)
STATUS_ICON = {"pass": "✓ pass", "warn": "! warn", "fail": "✗ FAIL", "skip": "– skip"}
GATE_ICON = {"pass": "PASS", "warn": "PASS with warnings", "fail": "FAIL"}


def e(text: Any) -> str:
    return escape(str(text), quote=True)


def img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{e(alt)}" src="data:image/png;base64,{data}">'


def column_heading(view: ReportView, column: Column) -> str:
    tag = ""
    if column.is_reference and len(view.columns) > 1:
        tag = " <span class='tag'>(reference)</span>" if view.report_of == "comparison" else " <span class='tag'>(baseline)</span>"
    return f"<th>{e(column.name)}{tag}</th>"


def table_head(view: ReportView, first: str = "") -> str:
    return "<tr><th>" + e(first) + "</th>" + "".join(column_heading(view, c) for c in view.columns) + "</tr>"


def delta_html(delta: MetricDelta | None, metric: Metric | None = None) -> str:
    """The delta line of a cell, green when the real difference is for the better and red when for
    the worse (a rise of a lower-is-better count is worse)."""
    text = delta_text(delta, metric)
    if not text:
        return ""
    better = metric is None or metric.higher_is_better
    cls = ""
    if text.endswith("▲"):
        cls = "up" if better else "down"
    elif text.endswith("▼"):
        cls = "down" if better else "up"
    return f"<span class='delta {cls}'>{e(text)}</span>"


def scores_table(view: ReportView) -> str:
    rows = [table_head(view, "metric")]
    for metric in view.reported_metrics():
        cells = "".join(
            f"<td class='num'><b>{e(metric.format(c.metric(metric.name)))}</b> · "
            f"{e(metric.format(c.metric(metric.name, 'macro')))}{delta_html(c.delta(metric.name), metric)}</td>"
            for c in view.columns
        )
        rows.append(f"<tr><td>{e(row_label(metric))}</td>{cells}</tr>")
    rows.append("<tr><td>cases</td>" + "".join(f"<td class='num'>{c.data.cases}</td>" for c in view.columns) + "</tr>")
    if view.uneven_cases:  # the variants ran different cases: Δ is over the cases both ran
        rows.append("<tr><td>paired cases (Δ over these)</td>"
                    + "".join(f"<td class='num'>{e(c.paired_text())}</td>" for c in view.columns) + "</tr>")
    if view.builds_graph:
        rows.append("<tr><td>annotated cases (entities / relationships)</td>"
                    + "".join(f"<td class='num'>{e(annotated_text(c.data))}</td>" for c in view.columns) + "</tr>")
    rows.append("<tr><td>tokens</td>" + "".join(f"<td class='num'>{e(usage_cells(c.data)[0])}</td>" for c in view.columns) + "</tr>")
    rows.append("<tr><td>cost (USD)</td>" + "".join(f"<td class='num'>{e(usage_cells(c.data)[1])}</td>" for c in view.columns) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def size_table(view: ReportView) -> str:
    rows = [table_head(view)]
    for label, key in (*SIZE_KEYS, ("components", "components"), ("isolated entities", "isolates")):
        cells = []
        for column in view.columns:
            ratio = view.ratio(column, key)
            cells.append(f"<td class='num'>{getattr(column.data.graph, key):,}" + ("" if ratio is None else f" ({ratio:.2f}×)") + "</td>")
        rows.append(f"<tr><td>{e(label)}</td>{''.join(cells)}</tr>")
    return "<table>" + "".join(rows) + "</table>"


def gate_html(view: ReportView) -> str:
    verdict = view.verdict
    if verdict is None:
        return "<p class='muted'>Not evaluated.</p>"
    parts = [f"<div class='banner {verdict.status}'>Gate: {e(GATE_ICON[verdict.status])}</div>"]
    if verdict.baseline_file:
        parts.append(f"<p class='muted'>Baseline <code>{e(verdict.baseline_file)}</code> (run <code>{e(verdict.baseline_run_id)}</code>).</p>")
    parts += [f"<p class='muted'>{e(note)}</p>" for note in verdict.notes]
    rows = ["<tr><th>status</th><th>variant</th><th>rule</th><th>metric</th><th>value</th><th>limit</th><th>detail</th></tr>"]
    order = {"fail": 0, "warn": 1, "pass": 2, "skip": 3}
    for rule in sorted(verdict.rules, key=lambda r: order[r.status]):
        value, limit = rule_value(rule)
        rows.append(
            f"<tr class='{rule.status}'><td>{e(STATUS_ICON[rule.status])}</td><td>{e(rule.variant)}</td>"
            f"<td>{e(RULE_NAMES.get(rule.rule, rule.rule))}</td><td>{e(rule.metric)}</td><td class='num'>{e(value)}</td>"
            f"<td class='num'>{e(limit)}</td><td>{e(rule.message)}</td></tr>"
        )
    parts.append("<table>" + "".join(rows) + "</table>")
    return "".join(parts)


def regressions_html(view: ReportView) -> str:
    parts = []
    for column in view.compared():
        comparison = column.comparison
        worst = comparison.worst_regressions[:10] if comparison is not None else []
        parts.append(f"<h3>{e(column.name)} against {e(column.reference)}</h3>")
        if not worst:
            parts.append("<p class='muted'>No case lost F1.</p>")
            continue
        rows = ["<tr><th>case</th><th>entity F1 change</th><th>relationship F1 change</th><th>newly missed entities</th>"
                "<th>newly missed relationships</th><th>no longer extracted</th></tr>"]
        for case in worst:
            diff = comparison.case_diff(case.case_id) if comparison is not None else None
            lost = diff.graph.entities_lost if diff is not None else []
            changes = [None if diff is None else diff.delta.get(m) for m in ("entity_f1", "relationship_f1")]
            rows.append(
                f"<tr><td><a href='#case-{e(case.case_id)}'>{e(case.case_id)}</a></td>"
                + "".join(f"<td class='num'>{'n/a' if c is None else f'{c:+.3f}'}</td>" for c in changes)
                + f"<td class='missed'>{e(', '.join(case.newly_missed_entities)) or '—'}</td>"
                f"<td class='missed'>{e(', '.join(' — '.join(p) for p in case.newly_missed_relationships)) or '—'}</td>"
                f"<td>{e(', '.join(lost)) or '—'}</td></tr>"
            )
        parts.append("<table>" + "".join(rows) + "</table>")
    return "".join(parts) or "<p class='muted'>Nothing is compared (a single variant).</p>"


def format_html(view: ReportView) -> str:
    fmt = [c.data.format for c in view.columns]
    rows = [table_head(view)]
    rows.append("<tr><td>cases with a format error</td>" + "".join(
        f"<td class='num'>{f.cases_with_errors}/{c.data.cases} ({pct(f.format_error_rate)})</td>"
        for f, c in zip(fmt, view.columns)) + "</tr>")
    if view.builds_graph:
        rows.append("<tr><td>completion delimiter present</td>"
                    + "".join(f"<td class='num'>{pct(f.completion_rate)}</td>" for f in fmt) + "</tr>")
    label, cells = engine_section.records_row(view)
    rows.append(f"<tr><td>{e(label)}</td>" + "".join(f"<td class='num'>{e(cell)}</td>" for cell in cells) + "</tr>")
    for code in sorted({code for f in fmt for code in f.issues_by_code}):
        rows.append(f"<tr><td><code>{e(code)}</code></td>" + "".join(
            f"<td class='num'>{f.issues_by_code.get(code, 0)}</td>" for f in fmt) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _items(values: list[str], cls: str = "") -> str:
    if not values:
        return "<p class='muted'>none</p>"
    return f"<ul class='items {cls}'>" + "".join(f"<li>{e(v)}</li>" for v in values) + "</ul>"


def reference_free_html(row: CaseResult, score: CaseScore) -> str:
    """One scored case's reference-free figures (none in rows scored before they existed), with the
    names behind the ungrounded and leaked counts; the figures' values are the row's (`figure_of`)."""
    rf = score.reference_free
    if rf is None:
        return "<p class='muted'>reference-free figures: n/a (a row scored before they existed)</p>"
    shown = [f"{metric.phrase} {metric.format(figure_of(row, metric))}" for metric in reference_free_metrics()
             if metric.name != "distinct_entities"]  # said first, with the grounded ones
    parts = [f"<p class='muted'>grounded {rf.grounded} of {rf.entities} entities · " + e(" · ".join(shown)) + "</p>"]
    if rf.ungrounded:
        parts.append("<b class='unmatched'>Ungrounded entities</b>" + _items(rf.ungrounded, "unmatched"))
    if rf.example_leak_names:
        parts.append("<b class='missed'>Leaked from the prompt's examples</b>" + _items(rf.example_leak_names, "missed"))
    return "".join(parts)


def summary_html(row: CaseResult, found: SummaryScore) -> str:
    """One description summary (`found`: the row's summary score): the answer and its figures,
    with the facts behind them."""
    answer = next((r.output for r in row.rounds if r.kind != "loop"), "")
    person = ", ".join(found.first_or_second_person) or "none"
    return "".join([
        f"<pre class='chunk'>{e(answer)}</pre>",
        f"<p class='muted'>{found.words} words (limit {found.max_length}) · names the entity: "
        f"{'yes' if found.names_entity else 'no'} · first/second person: {e(person)} · facts kept "
        f"{found.facts_kept} of {found.description_facts} · facts added {found.facts_added} of {found.summary_facts}"
        + (f" · gold facts found {found.gold_facts_found} of {found.gold_facts}" if found.gold_facts else "") + "</p>",
        "<b class='missed'>Description facts dropped</b>" + _items(found.dropped_facts, "missed"),
        "<b class='unmatched'>Facts in no description</b>" + _items(found.added_facts, "unmatched"),
    ])


def case_html(view: ReportView, case_id: str, first: bool) -> str:
    gold = view.gold.get(case_id)
    # look up this case's checks by key: scanning every check per case was quadratic in the cases
    failing = any(
        not check.passed for column in view.columns if (check := view.checks.get((column.variant, case_id))) is not None
    )
    summary_bits = []
    for column in view.columns:
        row = column.row(case_id)
        if row is not None and row.score is not None and not view.builds_graph:
            summary_bits.append(f"{column.name}: " + " / ".join(
                m.format(figure_of(row, m)) for m in key_figures(view.suite_kind)[:2]))
        elif row is not None and row.score is not None:
            summary_bits.append(f"{column.name}: {pct(row.score.entities.recall)} / {pct(row.score.relationships.recall)}")
        elif row is not None:
            summary_bits.append(f"{column.name}: error")
    head = f"{'✗ ' if failing else ''}{case_id} — " + "; ".join(summary_bits)
    parts = [f"<details class='case{' failing' if failing else ''}' id='case-{e(case_id)}'{' open' if first else ''}>"
             f"<summary>{e(head)}</summary>"]
    if gold is not None and gold.entity_name is not None and not view.builds_graph:
        parts.append(f"<h3>{e(gold.entity_name)}: descriptions</h3>" + _items(gold.descriptions))
    elif gold is not None:
        parts.append(f"<h3>Chunk{' (' + e(gold.chunk) + ')' if gold.chunk else ''}</h3><pre class='chunk'>{e(gold.text)}</pre>")
        parts.append("<div class='grid'><div><h3>Gold entities</h3>" + _items(
            [f"{g.name} ({g.type})" + (f" — aka {', '.join(g.aliases)}" if g.aliases else "") for g in gold.entities])
            + "</div><div><h3>Gold relationships</h3>" + _items([f"{r.source} — {r.target}" for r in gold.relationships])
            + "</div></div>")
    else:
        parts.append("<p class='muted'>Chunk and gold unavailable (the suite file could not be read).</p>")
    parts.append("<div class='grid'>")
    for column in view.columns:
        row = column.row(case_id)
        parts.append(f"<div><h3>{e(column.name)}</h3>")
        if row is None:
            parts.append("<p class='muted'>not in this run</p></div>")
            continue
        check = view.checks.get((column.variant, case_id))
        if check is not None and not check.passed:
            parts.append(f"<p class='missed'>breaks: {e(check.message())}</p>")
        elif check is not None and check.warnings:
            parts.append(f"<p class='muted'>warns: {e(check.warning_message())}</p>")
        if row.score is None:
            parts.append(f"<p class='missed'>no score: {e(row.error or 'failed')}</p></div>")
            continue
        s = row.score
        summary = s.figures_of("summary", SummaryScore)
        if summary is not None:
            parts.append(summary_html(row, summary) + "</div>")
            continue
        parts.append(
            f"<p class='muted'>entities P {pct(s.entities.precision)} R {pct(s.entities.recall)} · relationships "
            f"P {pct(s.relationships.precision)} R {pct(s.relationships.recall)} · format: {e(row.format_report.completion)} "
            f"completion, {len(row.format_report.issues)} issue(s)</p>"
        )
        parts.append(reference_free_html(row, s))
        parts.append("<b>Extracted entities</b>" + _items([f"{x.name} ({x.type})" + (" [gleaned]" if x.round else "") for x in row.graph.entities]))
        parts.append("<b>Extracted relationships</b>" + _items(
            [f"{r.source} → {r.target}" + ("" if r.strength is None else f" ({r.strength:g})") for r in row.graph.relationships]))
        parts.append("<b class='missed'>Missed entities</b>" + _items(s.entities.missed, "missed"))
        parts.append("<b class='missed'>Missed relationships</b>" + _items([" — ".join(p) for p in s.relationships.missed], "missed"))
        parts.append("<b class='unmatched'>Unmatched entities</b>" + _items(s.entities.unmatched, "unmatched"))
        parts.append("<b class='unmatched'>Unmatched relationships</b>" + _items([" — ".join(p) for p in s.relationships.unmatched], "unmatched"))
        if row.format_report.issues:
            parts.append("<b>Format issues</b>" + _items(
                [f"{i.code}{' (dropped)' if i.dropped else ''}: {i.message}" for i in row.format_report.issues]))
        parts.append("</div>")
    parts.append("</div></details>")
    return "".join(parts)


def figure(plots: Mapping[str, bytes], name: str) -> str:
    if name not in plots:
        return ""
    title = PLOTS[name][0] if name in PLOTS else name
    return f"<figure id='plot-{e(name)}'>{img(plots[name], title)}<figcaption>{e(title)}</figcaption></figure>"


def repeats_html(view: ReportView) -> str:
    """The spread of every metric across the samples of a repeated run."""
    rows = ["<tr><th>metric</th><th>column</th><th>per sample</th><th>min</th><th>median</th><th>max</th>"
            "<th>std</th><th>difference exceeds spread</th></tr>"]
    for row in spread_rows(view):
        cells = row.cells()
        rows.append(f"<tr><td>{e(row.metric)}</td><td>{e(row.column)}</td>"
                    + "".join(f"<td class='num'>{e(c)}</td>" for c in cells) + f"<td>{e(verdict_text(row))}</td></tr>")
    return (f"<p class='muted'>{e(samples_text(view))}; the scores above pool every (case, sample). Per sample: its "
            f"micro value. {e(RULE_TEXT[0].upper() + RULE_TEXT[1:])}.</p><table>" + "".join(rows) + "</table>")


def first_figure_label(view: ReportView) -> str:
    figure = key_figures(view.suite_kind)[:1]
    return figure[0].label if figure else "score"
