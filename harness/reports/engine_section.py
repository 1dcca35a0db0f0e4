"""The "What the engine keeps" section of report.md and report.html, and its console lines: per
variant, what the engine version the suite names (`engine:`) would keep from the answers (its own
parser, harness.scoring.engine_reading) next to what the harness recovers, and every record the
engine would lose, with the reason. Shown only when the suite names an engine."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..artifacts import EngineSummary, RunSummary
from .view import ReportView

NOTE = ("Kept: records the engine's own parser (modelled per version, gleanings glued as the engine glues them) "
        "reads from the answers. Recovered: records the harness reads. Lost: recovered records the engine would "
        "not keep; the scores above are on the recovered graph.")


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


def _rows(view: ReportView) -> list[tuple[str, EngineSummary]]:
    return [(column.name, column.data.engine) for column in view.columns if column.data.engine is not None]


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    rows = _rows(view)
    if not rows:
        return []
    head = ["## What the engine keeps", "", NOTE, "",
            "| variant | engine (parser) | engine keeps (entities / relationships) | harness recovers | "
            "lost by the engine | why |", "|---|---|---:|---:|---:|---|"]
    body = [f"| {esc(name)} | {esc(e.engine)} ({esc(e.parser)}) | {e.entities} / {e.relationships} | "
            f"{e.recovered_entities} / {e.recovered_relationships} | {e.lost} ({e.cases_with_loss}/{e.cases} cases) | "
            + (esc("; ".join(f"{n} {why}" for why, n in e.reasons.items())) or "—") + " |" for name, e in rows]
    return head + body + [""]


def html_block(view: ReportView) -> str:
    rows = _rows(view)
    if not rows:
        return ""
    heads = ("variant", "engine (parser)", "engine keeps (entities / relationships)", "harness recovers",
             "lost by the engine", "why")
    cells = "".join(
        f"<tr><td>{escape(name)}</td><td>{escape(e.engine)} ({escape(e.parser)})</td>"
        f"<td class='num'>{e.entities} / {e.relationships}</td>"
        f"<td class='num'>{e.recovered_entities} / {e.recovered_relationships}</td>"
        f"<td class='num'>{e.lost} ({e.cases_with_loss}/{e.cases} cases)</td>"
        f"<td>{escape('; '.join(f'{n} {why}' for why, n in e.reasons.items())) or '—'}</td></tr>"
        for name, e in rows)
    return (f"<h2>What the engine keeps</h2><p class='muted'>{escape(NOTE)}</p><table><tr>"
            + "".join(f"<th>{escape(h)}</th>" for h in heads) + "</tr>" + cells + "</table>")


def console_lines(summary: RunSummary) -> list[str]:
    return [line(name, v.engine) for name, v in summary.variants.items() if v.engine is not None]
