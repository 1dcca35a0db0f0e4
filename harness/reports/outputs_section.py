"""The "Scored outputs" section of report.md and report.html: a run of `harness evaluate` says which
file it scored, what in it was not scored or missing, and, under `--conventions text2kgbench`,
Text2KGBench's figures beside the harness's own (docs/benchmarks.md). Shown only for such a run."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from .view import ReportView


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _facts(view: ReportView) -> list[str]:
    outputs = view.outputs
    assert outputs is not None
    facts = [f"Answers read from `{outputs.file}` ({outputs.rows} rows), scored with no model call."]
    missing_word = ("not scored: n/a, left out of every figure of the harness's"
                    + ("; each contributes zero to every Text2KGBench figure" if outputs.conventions == "text2kgbench"
                       else ""))
    if outputs.missing_cases:
        facts.append(f"Cases without a row ({len(outputs.missing_cases)}, {missing_word}): "
                     + ", ".join(outputs.missing_cases))
    if outputs.unknown_ids:
        facts.append("Rows whose id is not a case (not scored): " + ", ".join(outputs.unknown_ids))
    if outputs.duplicate_ids:
        facts.append("Ids given again (only the last row scored): " + ", ".join(outputs.duplicate_ids))
    return facts


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    """The section with its heading, or nothing for a run that did not score an outputs file."""
    if view.outputs is None:
        return []
    lines = ["## Scored outputs", "", *[f"- {esc(fact)}" for fact in _facts(view)], ""]
    conventions = view.conventions
    if conventions is not None:
        lines += [f"Variant `{esc(conventions.variant)}` under {esc(conventions.name)}'s conventions, averaged over "
                  f"{conventions.cases} sentences:", "",
                  "| " + " | ".join(esc(name) for name in conventions.metrics) + " |",
                  "|" + "---:|" * len(conventions.metrics),
                  "| " + " | ".join(_figure(v) for v in conventions.metrics.values()) + " |", ""]
    return lines


def html_block(view: ReportView) -> str:
    """The section with its heading, or "" for a run that did not score an outputs file."""
    if view.outputs is None:
        return ""
    body = "<ul>" + "".join(f"<li>{escape(fact)}</li>" for fact in _facts(view)) + "</ul>"
    conventions = view.conventions
    if conventions is not None:
        body += (f"<p>Variant <code>{escape(conventions.variant)}</code> under {escape(conventions.name)}'s "
                 f"conventions, averaged over {conventions.cases} sentences:</p><table><tr>"
                 + "".join(f"<th>{escape(name)}</th>" for name in conventions.metrics) + "</tr><tr>"
                 + "".join(f"<td class='num'>{_figure(v)}</td>" for v in conventions.metrics.values())
                 + "</tr></table>")
    return "<h2>Scored outputs</h2>" + body
