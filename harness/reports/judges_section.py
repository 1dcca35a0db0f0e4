"""The "Judged figures" section of report.md and report.html, and its console lines: every judged
figure of every variant beside the judge's calibration against reviewers (Cohen's kappa,
accuracy, per verdict class), or "uncalibrated" where no reviewer verdict exists (docs/judges.md).
Shown only for a suite with `judge:`."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..artifacts import Calibration, JudgesSummary, PairwiseSummary, RunSummary, VariantSummary
from ..metrics import get as get_metric
from .view import ReportView

HEAD = ("variant", "judged figure", "value", "calibration")


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def calibration_text(c: Calibration | None) -> str:
    """`kappa 0.81, accuracy 90.9% over 11 reviewed questions (same: judge 7, reviewers 6, both 6; ...)`
    or `uncalibrated (no reviewer verdict)`."""
    if c is None or c.status == "uncalibrated":
        return "uncalibrated (no reviewer verdict on the judge's questions)"
    kappa = "n/a (one class only)" if c.kappa is None else f"{c.kappa:.2f}"
    classes = "; ".join(f"{name}: judge {a.judge}, reviewers {a.human}, both {a.both}" for name, a in c.per_class.items())
    text = f"kappa {kappa}, accuracy {_rate(c.accuracy)} over {c.questions} reviewed question(s) ({classes})"
    if c.unreadable:
        text += f", {c.unreadable} unreadable judge answer(s) left out"
    if c.min_kappa is not None:
        text += f"; judge.min_kappa {c.min_kappa:g}"
    return text


def rows(judges: JudgesSummary, variants: dict[str, VariantSummary]) -> list[tuple[str, str, str, str]]:
    found = []
    for decision, figures in judges.figures.items():
        calibration = calibration_text(judges.calibration.get(decision))
        for name, data in variants.items():
            for metric in figures:
                aggregate = data.metrics.metrics.get(metric)
                if aggregate is None or aggregate.micro is None:
                    continue
                found_metric = get_metric(metric)
                label = found_metric.label if found_metric is not None else metric
                found.append((name, label, _rate(aggregate.micro), calibration))
    return found


def pairwise_text(p: PairwiseSummary) -> str:
    """`tuned over default: win rate 62.5% [95% CI 30.6%-86.3%] over 8 verdicts (tuned 4, default 2, ties 2;
    1 unreadable); order flips 1 of 4; first shown chosen in 50.0% of decided verdicts — uncalibrated`."""
    interval = "" if p.interval is None else f" [95% CI {_rate(p.interval[0])}-{_rate(p.interval[1])}]"
    read = p.b_wins + p.a_wins + p.ties
    text = (f"{p.b} over {p.a}: win rate {_rate(p.b_win_rate)}{interval} over {read} verdict(s) in {p.cases} case(s) "
            f"({p.b} {p.b_wins}, {p.a} {p.a_wins}, ties {p.ties} as halves")
    text += f"; {p.unreadable} unreadable)" if p.unreadable else ")"
    text += (f"; order flips {p.order_flips} of {p.order_pairs}; first shown chosen in "
             f"{_rate(p.first_position_rate)} of decided verdicts")
    return text + f" — {calibration_text(p.calibration)}"


def _note(judges: JudgesSummary) -> str:
    text = (f"Judge `{judges.model}`: {judges.questions} question(s), {judges.unreadable} answer(s) unreadable (n/a)")
    if judges.left_out:
        text += f", {judges.left_out} open pair(s) not asked (judge.max_candidates / judge.max_questions)"
    return text + ". Judged figures stand beside the string ones, never in their place."


def markdown_lines(view: ReportView, esc: Callable[[str], str]) -> list[str]:
    if view.judges is None:
        return []
    data = {column.name: column.data for column in view.columns}
    lines = ["## Judged figures", "", esc(_note(view.judges)), ""]
    lines += ["| " + " | ".join(HEAD) + " |", "|---|---|---:|---|"] if view.judges.figures else []
    lines += [f"| {esc(a)} | {esc(b)} | {c} | {esc(d)} |" for a, b, c, d in rows(view.judges, data)]
    if view.judges.pairwise is not None:
        lines += ["", "Pairwise preference (both orders): " + esc(pairwise_text(view.judges.pairwise))]
    return lines + [""]


def html_block(view: ReportView) -> str:
    if view.judges is None:
        return ""
    data = {column.name: column.data for column in view.columns}
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in HEAD) + "</tr>"
    body = "".join(f"<tr><td>{escape(a)}</td><td>{escape(b)}</td><td class='num'>{escape(c)}</td><td>{escape(d)}</td></tr>"
                   for a, b, c, d in rows(view.judges, data))
    pair = view.judges.pairwise
    more = "" if pair is None else f"<p>Pairwise preference (both orders): {escape(pairwise_text(pair))}</p>"
    return f"<h2>Judged figures</h2><p class='muted'>{escape(_note(view.judges))}</p><table>{head}{body}</table>{more}"


def console_lines(summary: RunSummary) -> list[str]:
    """The note, then per variant its judged figures on one line, followed by their calibration."""
    if summary.judges is None:
        return []
    lines = [_note(summary.judges)]
    by_variant: dict[tuple[str, str], list[str]] = {}
    for variant, label, value, calibration in rows(summary.judges, summary.variants):
        by_variant.setdefault((variant, calibration), []).append(f"{label.lower()} {value}")
    lines += [f"{variant}: {', '.join(figures)} — judge {calibration}" for (variant, calibration), figures in by_variant.items()]
    if summary.judges.pairwise is not None:
        lines.append("pairwise (both orders): " + pairwise_text(summary.judges.pairwise))
    return lines
