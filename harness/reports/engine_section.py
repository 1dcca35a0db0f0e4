"""The "What the engine keeps" section of report.md and report.html, and its console lines: per
variant, what the engine version the suite names (`engine:`) keeps from the answers (its own
parser, harness.scoring.engine_reading) next to what the harness recovers, every record the
engine would lose, with the reason, and the figures on both graphs: the engine's (the variant's
figures everywhere else, and what the gate judges) and the harness's recovered one, a second
column labelled as such. Shown only when the suite names an engine."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..artifacts import EngineSummary, RunSummary, VariantSummary
from ..metrics.registry import Metric, console_columns
from .view import Column, ReportView

NOTE = ("Kept: the graph the engine's own parser (modelled per version, gleanings glued as the engine glues them) "
        "builds from the answers, merged and named as the engine does. Recovered: records the harness reads. Lost: "
        "recovered records the engine's graph has no counterpart of; why: the records its parser dropped. Every figure "
        "of this report, and the gate, is on the engine's graph; the harness's recovered graph is the second column "
        "below.")


def line(name: str, engine: EngineSummary) -> str:
    """`variant: graphrag-3.3.0 keeps N entities / M relationships, harness recovers ..., lost by the engine: K (reasons)`."""
    text = (f"{name}: {engine.engine} keeps {engine.entities} entities / {engine.relationships} relationships, "
            f"harness recovers {engine.recovered_entities} / {engine.recovered_relationships}, "
            f"lost by the engine: {engine.lost}")
    if engine.lost:
        text += f" in {engine.cases_with_loss}/{engine.cases} cases"
    if engine.reasons:
        text += " (" + "; ".join(f"{n} {why}" for why, n in engine.reasons.items()) + ")"
    return text


def scores_note(view: ReportView) -> str | None:
    """One sentence under the scores legend saying whose graph the figures are on (None: no engine named)."""
    engines = sorted({c.data.engine.engine for c in view.columns if c.data.engine is not None})
    if not engines:
        return None
    return (f"Scored on the graph {', '.join(engines)} would keep (its own parser, modelled per version); the "
            "harness-recovered graph's figures are a second column under \"What the engine keeps\".")


def records_row(view: ReportView) -> tuple[str, list[str]]:
    """The format table's records row: its label and one cell per column. With an engine named,
    each cell also says what the engine loses, so a run whose harness drops nothing never reads
    "0 dropped" alone when the engine loses records."""
    engine = any(c.data.engine is not None for c in view.columns)
    label = "records parsed / seen (dropped" + ("; lost by the engine)" if engine else ")")
    cells = []
    for column in view.columns:
        f, e = column.data.format, column.data.engine
        cell = f"{f.records_parsed}/{f.records_seen} ({f.records_dropped}"
        cells.append(cell + (f"; {e.engine} loses {e.lost})" if e is not None else ")"))
    return label, cells


def _rows(view: ReportView) -> list[tuple[Column, EngineSummary]]:
    return [(column, column.data.engine) for column in view.columns if column.data.engine is not None]


def _figures(variant: VariantSummary, metrics: tuple[Metric, ...]) -> list[tuple[str, str, str]]:
    """(figure, on the engine's graph, on the recovered graph) for the given metrics and the graph size."""
    recovered = variant.recovered
    out = [(m.column_label, m.format(variant.metric(m.name)),
            m.format(recovered.metrics.get(m.name)) if recovered is not None else "n/a") for m in metrics]
    if recovered is not None:
        out += [("entities (union graph)", f"{variant.graph.nodes:,}", f"{recovered.graph.nodes:,}"),
                ("relationships (union graph)", f"{variant.graph.edges:,}", f"{recovered.graph.edges:,}")]
    return out


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    rows = _rows(view)
    if not rows:
        return []
    head = ["## What the engine keeps", "", NOTE, "",
            "| variant | engine (parser) | engine keeps (entities / relationships) | harness recovers | "
            "lost by the engine | why |", "|---|---|---:|---:|---:|---|"]
    body = [f"| {esc(c.name)} | {esc(e.engine)} ({esc(e.parser)}) | {e.entities} / {e.relationships} | "
            f"{e.recovered_entities} / {e.recovered_relationships} | {e.lost} ({e.cases_with_loss}/{e.cases} cases) | "
            + (esc("; ".join(f"{n} {why}" for why, n in e.reasons.items())) or "—") + " |" for c, e in rows]
    figures = ["", "| figure | " + " | ".join(
        f"{esc(c.name)}: {esc(e.engine)}'s graph (scored) | {esc(c.name)}: harness-recovered graph" for c, e in rows) + " |",
        "|---|" + "---:|---:|" * len(rows)]
    tables = [_figures(c.data, view.reported_metrics()) for c, _ in rows]
    for i, (label, _, _) in enumerate(tables[0]):
        figures.append(f"| {esc(label)} | " + " | ".join(f"{t[i][1]} | {t[i][2]}" for t in tables) + " |")
    return head + body + figures + [""]


def html_block(view: ReportView) -> str:
    rows = _rows(view)
    if not rows:
        return ""
    heads = ("variant", "engine (parser)", "engine keeps (entities / relationships)", "harness recovers",
             "lost by the engine", "why")
    cells = "".join(
        f"<tr><td>{escape(c.name)}</td><td>{escape(e.engine)} ({escape(e.parser)})</td>"
        f"<td class='num'>{e.entities} / {e.relationships}</td>"
        f"<td class='num'>{e.recovered_entities} / {e.recovered_relationships}</td>"
        f"<td class='num'>{e.lost} ({e.cases_with_loss}/{e.cases} cases)</td>"
        f"<td>{escape('; '.join(f'{n} {why}' for why, n in e.reasons.items())) or '—'}</td></tr>"
        for c, e in rows)
    tables = [_figures(c.data, view.reported_metrics()) for c, _ in rows]
    figure_heads = "".join(f"<th>{escape(c.name)}: {escape(e.engine)}'s graph (scored)</th>"
                           f"<th>{escape(c.name)}: harness-recovered graph</th>" for c, e in rows)
    figure_rows = "".join(
        f"<tr><td>{escape(label)}</td>" + "".join(f"<td class='num'>{escape(t[i][1])}</td><td class='num'>"
                                                  f"{escape(t[i][2])}</td>" for t in tables) + "</tr>"
        for i, (label, _, _) in enumerate(tables[0]))
    return (f"<h2>What the engine keeps</h2><p class='muted'>{escape(NOTE)}</p><table><tr>"
            + "".join(f"<th>{escape(h)}</th>" for h in heads) + "</tr>" + cells + "</table>"
            + f"<table><tr><th>figure</th>{figure_heads}</tr>{figure_rows}</table>")


def console_lines(summary: RunSummary) -> list[str]:
    """Per variant: what the engine keeps, then its figures on both graphs (the table's are the engine's)."""
    metrics = console_columns(gold=summary.has_gold, kind=summary.suite_kind)
    out = []
    for name, variant in summary.variants.items():
        if variant.engine is None:
            continue
        out.append(line(name, variant.engine))
        if variant.recovered is not None:
            figures = _figures(variant, metrics)
            out.append(f"{name}: figures on {variant.engine.engine}'s graph (the table's, gated) / on the "
                       "harness-recovered graph: " + "; ".join(f"{label} {a} / {b}" for label, a, b in figures))
    return out
