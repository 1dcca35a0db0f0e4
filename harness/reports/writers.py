"""report.md and report.html: each report's head, then every section of `sections.report_sections()`
that applies to the view, in order (the pieces of each format: markdown.py, html_report.py)."""

from __future__ import annotations

from . import html_report as html
from . import markdown as md
from .sections import Plots, report_sections
from .view import ReportView


def render_markdown(view: ReportView) -> str:
    """report.md: fit for a pull-request comment or $GITHUB_STEP_SUMMARY (no timings, no clock:
    a replayed run gives the same bytes)."""
    lines = [f"# {md.esc(view.title)}", ""]
    if view.description:
        lines += [md.esc(view.description), ""]
    if view.notes:
        lines += [f"> {md.esc(view.notes)}", ""]
    lines += [view.facts, ""]
    if view.verdict is not None:
        failed = view.verdict.failed()
        lines += [f"**Gate: {md.GATE_ICON[view.verdict.status]}**"
                  + (f" — {len(failed)} rule(s) failed: " + "; ".join(md.esc(f'{r.variant}: {r.message}') for r in failed[:5])
                     if failed else ""), ""]
    if not view.columns:
        return "\n".join(lines + ["No result rows.", ""])
    for section in report_sections():
        if section.applies(view):
            lines += section.markdown(view)
    return "\n".join(lines)


def render_html(view: ReportView, plots: Plots) -> str:
    """report.html: one self-contained file (inline CSS, plots as base64 PNG, no script, no network)."""
    e = html.e
    body = [f"<h1>{e(view.title)}</h1>"]
    if view.description:
        body.append(f"<p>{e(view.description)}</p>")
    if view.notes:
        body.append(f"<blockquote>{e(view.notes)}</blockquote>")
    body.append(f"<p class='facts'>{e(view.facts.replace('`', ''))}</p>")
    if view.verdict is not None:
        body.append(f"<div class='banner {view.verdict.status}'>Gate: {e(html.GATE_ICON[view.verdict.status])}</div>")
    if not view.columns:
        body.append("<p>No result rows.</p>")
    else:
        for section in report_sections():
            if section.applies(view):
                body += section.html(view, plots)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">"
        f"<title>{e(view.title)}</title><style>{html.CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
