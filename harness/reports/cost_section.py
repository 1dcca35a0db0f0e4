"""The "Cost and latency" and "Frontier" sections of report.md and report.html, and the console's
lines for them (docs/reports.md): per column, tokens, calls and dollars per chunk with the price
they were reckoned at, latency percentiles labelled by where they come from; then quality against
dollars per 1,000 chunks and p95 latency, Pareto-optimal variants marked, and the budget's pick."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..artifacts import CostFigures, Frontier, LatencyFigures, RunSummary
from ..frontier import dollars, seconds
from ..metrics.registry import format_metric, phrase
from .view import ReportView

COST_HEAD = ("variant", "chunks", "calls per chunk", "input tokens", "cached", "output tokens",
             "$ per 1,000 chunks", "price", "latency p50 / p95 per call", "p50 / p95 per chunk")
COST_NOTE = ("A chunk is a case that got an answer; its calls are the extraction, every gleaning round and loop "
             "check. Tokens marked * were counted with the offline tokenizer (the endpoint reported none). "
             "Dollars from the price table's entry and date shown (batch prices for calls answered by the Batch "
             "API, the cached-input price for cached tokens): estimates, not invoices. Latency: measured live, or "
             "recorded (kept in the cassettes when they were recorded, and read back by a replay); n/a where no "
             "call's latency is known.")


def _latency_source(latency: LatencyFigures | None) -> str:
    if latency is None or latency.source is None:
        return ""
    return {"measured": " (measured)", "recorded": " (recorded)", "mixed": " (measured and recorded)"}[latency.source]


def latency_cells(latency: LatencyFigures | None) -> tuple[str, str]:
    """"0.52 s / 1.9 s (recorded)" per call and per chunk; n/a without timed calls."""
    if latency is None or latency.source is None:
        return "n/a", "n/a"
    label = _latency_source(latency)
    return (f"{seconds(latency.p50_call_s)} / {seconds(latency.p95_call_s)}{label}",
            f"{seconds(latency.p50_chunk_s)} / {seconds(latency.p95_chunk_s)}{label}")


def price_text(cost: CostFigures) -> str:
    if cost.price is None:
        return "no price for the model"
    date = f", {cost.price.as_of}" if cost.price.as_of else ", undated"
    batch = f"; {cost.batch_calls} batch calls" if cost.batch_calls else ""
    return f"{cost.price.model} ({cost.price.source}{date}){batch}"


def _cost_cells(cost: CostFigures, latency: LatencyFigures | None) -> list[str]:
    mark = "*" if cost.tokens_estimated else ""
    per_chunk = "n/a" if cost.calls_per_chunk is None else f"{cost.calls_per_chunk:.2f}"
    return [f"{cost.chunks:,}", per_chunk, f"{cost.input_tokens:,}{mark}", f"{cost.cached_tokens:,}",
            f"{cost.output_tokens:,}{mark}", dollars(cost.usd_per_1k_chunks), price_text(cost),
            *latency_cells(latency)]


def _cost_rows(view: ReportView) -> list[tuple[str, list[str]]]:
    return [(c.name, _cost_cells(c.data.cost, c.data.latency)) for c in view.columns if c.data.cost is not None]


def has_cost(view: ReportView) -> bool:
    return any(c.data.cost is not None for c in view.columns)


def cost_markdown(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    lines = ["## Cost and latency", "", COST_NOTE, "", "| " + " | ".join(COST_HEAD) + " |",
             "|---|" + "---:|" * 6 + "---|---:|---:|"]
    lines += [f"| {esc(name)} | " + " | ".join(esc(cell) for cell in cells) + " |" for name, cells in _cost_rows(view)]
    return lines + [""]


def cost_html(view: ReportView) -> str:
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in COST_HEAD) + "</tr>"
    rows = [f"<tr><td>{escape(name)}</td>" + "".join(
        f"<td>{escape(cell)}</td>" if i == 6 else f"<td class='num'>{escape(cell)}</td>" for i, cell in enumerate(cells))
        + "</tr>" for name, cells in _cost_rows(view)]
    return (f"<h2>Cost and latency</h2><p class='muted'>{escape(COST_NOTE)}</p>"
            "<table>" + head + "".join(rows) + "</table>")


# --------------------------------------------------------------------------- the frontier


def frontier_note(frontier: Frontier) -> str:
    first = phrase(frontier.quality[0])
    return (f"Quality ({', '.join(phrase(q) for q in frontier.quality)}) against dollars per 1,000 chunks and p95 "
            f"latency per chunk. Pareto-optimal (◆): no other variant has at least its {first} for at most its "
            "cost (or latency), better in one; a variant with an n/a figure is on no frontier of it.")


def _frontier_head(frontier: Frontier) -> list[str]:
    return ["variant", *(phrase(q) for q in frontier.quality), "$ per 1,000 chunks", "p95 per chunk", "Pareto: cost", "Pareto: latency"]


def _frontier_rows(frontier: Frontier) -> list[list[str]]:
    rows = []
    for point in frontier.points:
        latency = seconds(point.p95_chunk_s)
        if point.p95_chunk_s is not None and point.latency_source is not None:
            latency += f" ({point.latency_source})"
        name = point.variant + (" (pick)" if point.variant == frontier.pick else "")
        rows.append([name, *(format_metric(q, point.quality.get(q)) for q in frontier.quality),
                     dollars(point.usd_per_1k_chunks), latency, "◆" if point.pareto_cost else "",
                     "◆" if point.pareto_latency else ""])
    return rows


def has_frontier(view: ReportView) -> bool:
    return view.frontier is not None and bool(view.frontier.points)


def frontier_markdown(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    frontier = view.frontier
    if frontier is None:
        return []
    head = _frontier_head(frontier)
    lines = ["## Frontier", "", frontier_note(frontier), "", "| " + " | ".join(esc(h) for h in head) + " |",
             "|---|" + "---:|" * (len(head) - 3) + ":---:|:---:|"]
    lines += ["| " + " | ".join(esc(cell) for cell in row) + " |" for row in _frontier_rows(frontier)]
    return lines + ["", f"**{esc(frontier.sentence)}**", ""]


def frontier_html(view: ReportView, figure: str) -> str:
    frontier = view.frontier
    if frontier is None:
        return ""
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in _frontier_head(frontier)) + "</tr>"
    rows = ["<tr><td>" + escape(row[0]) + "</td>" + "".join(f"<td class='num'>{escape(c)}</td>" for c in row[1:])
            + "</tr>" for row in _frontier_rows(frontier)]
    return (f"<h2>Frontier</h2><p class='muted'>{escape(frontier_note(frontier))}</p>"
            f"<table>{head}{''.join(rows)}</table><p><b>{escape(frontier.sentence)}</b></p>{figure}")


def console_lines(summary: RunSummary) -> list[str]:
    """Per variant, dollars per 1,000 chunks and p95 latency (labelled), then the frontier's sentence."""
    lines = []
    for name, variant in summary.variants.items():
        if variant.cost is None:
            continue
        per_call, per_chunk = latency_cells(variant.latency)
        mark = " (tokens estimated)" if variant.cost.tokens_estimated else ""
        calls = "n/a" if variant.cost.calls_per_chunk is None else f"{variant.cost.calls_per_chunk:.2f}"
        lines.append(f"{name}: {dollars(variant.cost.usd_per_1k_chunks)} per 1,000 chunks{mark}, {calls} calls "
                     f"per chunk; latency p50 / p95 per call {per_call}, per chunk {per_chunk}")
    if summary.frontier is not None and summary.frontier.points:
        lines.append(summary.frontier.sentence)
    return lines
