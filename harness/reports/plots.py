"""The report's plots, as PNG bytes (matplotlib's Agg canvas: no display, no global pyplot state).

- `metrics`: headline metrics per column, bars at the macro mean with 95% bootstrap whiskers
  ("n/a" where a metric is undefined: no case annotated for it); without any gold, the
  reference-free rates (grounding rate, type conformance) instead;
- `recall_scatter`: per-case entity and relationship recall of each compared column (y) against
  its reference (x), with the diagonal: points below it are cases that got worse; without any
  gold, the per-case grounding rate and type conformance; above `POINT_LIMIT` cases, a 2-D
  histogram (a marker per occupied cell of a 40 x 40 grid, larger for more cases);
- `grounding`: grounded and ungrounded predicted entities per column, stacked (pooled over
  cases: distinct entities per case whose name occurs in the chunk, and the others);
- `graph_size`: entities, relationships and communities per column;
- `format_issues`: format issues by code per column;
- `frontier`: each variant's deciding quality figure against dollars per 1,000 chunks (left) and
  p95 latency per chunk (right), Pareto-optimal variants as filled diamonds joined by the
  frontier's steps, the others as hollow circles, the budget as a dashed line; only a run's
  report, and only when some variant has both the figure and a cost.

The PNGs carry no timestamp or software metadata, so the same run gives the same bytes.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

from ..metrics.registry import Metric, console_columns, in_bar_chart, key_figures, of_kind, phrase
from ..scoring.case_metrics import measured
from ..compare import macro_intervals
from .view import SIZE_KEYS, ReportView

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"]
DPI = 100
POINT_LIMIT = 2000  # per-case points of a column drawn one by one; above it, binned (`binned`)
BINS = 40


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None}, facecolor="white")
    return buffer.getvalue()


def _bar_chart_png(fig: Figure, ax: Axes) -> bytes:
    """A bar chart's common finish: horizontal grid lines behind the bars, the legend outside."""
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return _png(fig)


def binned(xs: list[float], ys: list[float], bins: int = BINS) -> tuple[list[float], list[float], list[int]]:
    """Points of [0, 1]^2 counted in a bins x bins grid: the centre of each occupied cell and its count."""
    cells: dict[tuple[int, int], int] = {}
    for x, y in zip(xs, ys):
        cell = (min(bins - 1, max(0, int(x * bins))), min(bins - 1, max(0, int(y * bins))))
        cells[cell] = cells.get(cell, 0) + 1
    ordered = sorted(cells.items())
    return ([(i + 0.5) / bins for (i, _), _ in ordered], [(k + 0.5) / bins for (_, k), _ in ordered],
            [n for _, n in ordered])


def _short(name: str, width: int = 28) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _plotted(view: ReportView, with_gold: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """The metrics a 0-1 plot shows: `with_gold` when the run has gold, else the reference-free
    rates of the compact set (grounding rate, type conformance): recall would be n/a throughout."""
    if not view.builds_graph:  # another suite kind: its own rates, gold or not
        return tuple(m for m in console_columns(gold=True, kind=view.suite_kind) if not m.is_count)
    if view.has_gold:
        return of_kind(view.suite_kind, with_gold)
    return tuple(m for m in console_columns(gold=False) if not m.is_count)


def metrics_plot(view: ReportView) -> bytes:
    fig = _figure(10, 4.2)
    shown = _plotted(view, in_bar_chart())
    ax = fig.add_subplot(1, 1, 1)
    n = max(1, len(view.columns))
    width = 0.8 / n
    for j, column in enumerate(view.columns):
        means, lows, highs, xs = [], [], [], []
        intervals = macro_intervals(column.rows, [metric.name for metric in shown])
        for i, metric in enumerate(shown):
            stats = intervals[metric.name]
            if stats is None:  # undefined (no annotated case): say so rather than draw a bar of 0 or 1
                ax.text(i - 0.4 + width * (j + 0.5), 0.02, "n/a", ha="center", va="bottom", fontsize=7, rotation=90)
                continue
            mean, low, high = stats
            xs.append(i - 0.4 + width * (j + 0.5))
            means.append(mean)
            lows.append(max(0.0, mean - low))
            highs.append(max(0.0, high - mean))
        ax.bar(xs, means, width=width * 0.95, color=PALETTE[j % len(PALETTE)], label=_short(column.name, 40),
               yerr=[lows, highs], capsize=3, error_kw={"elinewidth": 1, "ecolor": "#222222"})
    ax.set_xticks(range(len(shown)))
    ax.set_xticklabels([m.axis_label for m in shown], fontsize=9)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("macro mean over cases")
    ax.set_title("Scores per variant (whiskers: 95% bootstrap interval over cases)", fontsize=11)
    return _bar_chart_png(fig, ax)


def recall_scatter(view: ReportView) -> bytes:
    fig = _figure(10, 4.6)
    compared = view.compared()
    shown = _plotted(view, key_figures())
    if not view.builds_graph:
        shown = shown[:2]  # another suite kind: its two leading figures (yes/no figures scatter on corners)
    for k, metric in enumerate(shown):
        ax = fig.add_subplot(1, len(shown), k + 1)
        ax.plot([0, 1], [0, 1], color="#888888", linestyle="--", linewidth=1, label="no change")
        ax.fill_between([0, 1], [0, 0], [0, 1], color="#C44E52", alpha=0.05)
        for j, column in enumerate(compared):
            ref = view.reference_of(column)
            xs, ys, labels = [], [], []
            for case_id in view.case_ids:
                a, b = ref.row(case_id) if ref else None, column.row(case_id)
                ma, mb = (None, None) if a is None or b is None else (measured(a), measured(b))
                if ma is None or mb is None:
                    continue
                va, vb = ma.value(metric.name), mb.value(metric.name)
                if va is None or vb is None:
                    continue
                xs.append(va)
                ys.append(vb)
                labels.append(case_id)
            label = _short(f"{column.name} vs {column.reference}", 44)
            if len(xs) > POINT_LIMIT:  # a 2-D histogram: one marker per occupied bin, its area the cases in it
                bx, by, counts = binned(xs, ys)
                ax.scatter(bx, by, s=[12 + 60 * math.log10(c) for c in counts], alpha=0.6,
                           color=PALETTE[(j + 1) % len(PALETTE)], edgecolors="white", linewidths=0.5,
                           label=f"{label} ({len(xs):,} cases, binned)")
            else:
                ax.scatter(xs, ys, s=36, alpha=0.7, color=PALETTE[(j + 1) % len(PALETTE)],
                           edgecolors="white", linewidths=0.5, label=label)
            limit = view.case_max_drop if view.case_max_drop is not None else 0.2
            worst = sorted(((x - y, lab, x, y) for x, y, lab in zip(xs, ys, labels) if x - y > limit), reverse=True)[:4]
            for _, lab, x, y in worst:
                ax.annotate(_short(lab, 22), (x, y), fontsize=7, xytext=(4, -10), textcoords="offset points")
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_aspect("equal")
        ax.set_xlabel("reference (baseline)")
        ax.set_ylabel("compared variant")
        ax.set_title(f"{metric.label} per case", fontsize=11)
        ax.grid(alpha=0.3)
        if not compared:
            ax.text(0.5, 0.5, "only one variant: nothing to compare", ha="center", va="center", fontsize=9)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return _png(fig)


def grounding_plot(view: ReportView) -> bytes:
    """Grounded (bottom) and ungrounded (on top) entities per column, each bar labelled with the
    grounding rate; "n/a" for a column with no predicted entity."""
    fig = _figure(10, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    xs = list(range(len(view.columns)))
    grounded = [column.data.metrics.counts.get("grounded", 0) for column in view.columns]
    ungrounded = [column.data.metrics.counts.get("ungrounded", 0) for column in view.columns]
    ax.bar(xs, grounded, width=0.6, color=PALETTE[2], label="grounded (name occurs in the chunk)")
    ax.bar(xs, ungrounded, width=0.6, bottom=grounded, color=PALETTE[3], label="ungrounded")
    top = max([g + u for g, u in zip(grounded, ungrounded)] or [1]) or 1
    for x, g, u in zip(xs, grounded, ungrounded):
        text = "n/a" if g + u == 0 else f"{g:,} of {g + u:,}\n{g / (g + u):.1%}"
        ax.text(x, g + u + top * 0.01, text, ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels([_short(c.name, 24) for c in view.columns], fontsize=8)
    ax.set_ylim(0, top * 1.3)
    ax.set_ylabel("predicted entities (per case, summed)")
    ax.set_title("Grounded vs ungrounded entities per variant", fontsize=11)
    return _bar_chart_png(fig, ax)


def graph_size_plot(view: ReportView) -> bytes:
    fig = _figure(10, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    n = max(1, len(view.columns))
    width = 0.8 / n
    top = max([getattr(c.data.graph, key) for c in view.columns for _, key in SIZE_KEYS] or [1]) or 1
    for j, column in enumerate(view.columns):
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(SIZE_KEYS))]
        values = [getattr(column.data.graph, key) for _, key in SIZE_KEYS]
        bars = ax.bar(xs, values, width=width * 0.95, color=PALETTE[j % len(PALETTE)], label=_short(column.name, 40))
        for bar, (_, key) in zip(bars, SIZE_KEYS):
            ratio = view.ratio(column, key)
            text = f"{bar.get_height():,.0f}" + ("" if ratio is None else f"\n{ratio:.2f}×")
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + top * 0.01, text,
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(SIZE_KEYS)))
    ax.set_xticklabels([label for label, _ in SIZE_KEYS])
    ax.set_ylim(0, top * 1.3)
    ax.set_title("Graph size per variant (union graph over cases; ratios against the reference)", fontsize=11)
    return _bar_chart_png(fig, ax)


def format_issues_plot(view: ReportView) -> bytes:
    codes = sorted({code for c in view.columns for code in c.data.format.issues_by_code})
    height = max(2.6, 0.9 + 0.32 * len(codes) * max(1, min(len(view.columns), 3)))
    fig = _figure(10, min(height, 14))
    ax = fig.add_subplot(1, 1, 1)
    if not codes:
        ax.text(0.5, 0.5, "no format issues in any variant", ha="center", va="center", fontsize=12, color="#2E7D32")
        ax.set_axis_off()
    else:
        n = max(1, len(view.columns))
        width = 0.8 / n
        for j, column in enumerate(view.columns):
            counts = column.data.format.issues_by_code
            ys = [i - 0.4 + width * (j + 0.5) for i in range(len(codes))]
            ax.barh(ys, [counts.get(code, 0) for code in codes], height=width * 0.95,
                    color=PALETTE[j % len(PALETTE)], label=_short(column.name, 40))
        ax.set_yticks(range(len(codes)))
        ax.set_yticklabels(codes, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("issues")
        ax.grid(axis="x", alpha=0.3)
        ax.set_axisbelow(True)
        ax.legend(fontsize=8, loc="lower right")
    ax.set_title("Format issues by code", fontsize=11)
    fig.tight_layout()
    return _png(fig)


def frontier_plot(view: ReportView) -> bytes:
    frontier = view.frontier
    assert frontier is not None  # render_plots draws it only for a view with a frontier
    first = frontier.quality[0]
    fig = _figure(10, 4.2)
    axes = (("usd_per_1k_chunks", "pareto_cost", "dollars per 1,000 chunks"),
            ("p95_chunk_s", "pareto_latency", "p95 latency per chunk (s)"))
    for k, (key, flag, label) in enumerate(axes):
        ax = fig.add_subplot(1, 2, k + 1)
        points = [(p, getattr(p, key), p.quality.get(first)) for p in frontier.points]
        known = [(p, x, y) for p, x, y in points if x is not None and y is not None]
        if not known:
            ax.text(0.5, 0.5, f"n/a: no variant has both {label.split(' (')[0]} and the quality figure",
                    ha="center", va="center", fontsize=9, transform=ax.transAxes)
            ax.set_axis_off()
            continue
        for j, (point, x, y) in enumerate(known):
            optimal = getattr(point, flag)
            colour = PALETTE[[q.variant for q in frontier.points].index(point.variant) % len(PALETTE)]
            ax.scatter([x], [y], s=70 if optimal else 40, marker="D" if optimal else "o",
                       facecolors=colour if optimal else "none", edgecolors=colour, zorder=3)
            ax.annotate(_short(point.variant, 24), (x, y), textcoords="offset points", xytext=(5, 5), fontsize=8)
        steps = sorted((x, y) for p, x, y in known if getattr(p, flag))
        if len(steps) > 1:
            ax.plot([x for x, _ in steps], [y for _, y in steps], color="#555555", linewidth=1, linestyle="-", zorder=2)
        if key == "usd_per_1k_chunks" and frontier.budget is not None:
            ax.axvline(frontier.budget, color="#C44E52", linestyle="--", linewidth=1)
            ax.text(frontier.budget, ax.get_ylim()[1], " budget", color="#C44E52", fontsize=8, va="top")
        ax.set_xlabel(label)
        ax.set_ylabel(phrase(first))
        ax.grid(alpha=0.3)
        ax.set_axisbelow(True)
    fig.suptitle("Quality against cost and latency (◆ Pareto-optimal)", fontsize=11)
    fig.tight_layout()
    return _png(fig)


PLOTS = {
    "metrics": ("Scores per variant", metrics_plot),
    "recall_scatter": ("Per case against the reference", recall_scatter),
    "grounding": ("Grounded vs ungrounded entities", grounding_plot),
    "graph_size": ("Graph size", graph_size_plot),
    "format_issues": ("Format issues by code", format_issues_plot),
    "frontier": ("Quality against cost and latency", frontier_plot),
}


def render_plots(view: ReportView) -> dict[str, bytes]:
    """name -> PNG bytes, in report order (none for a run without rows)."""
    if not view.columns:
        return {}
    # grounding and graph size are figures of extraction answers: a summary or report run has neither,
    # and a kind without key figures has no scores to plot
    skipped: tuple[str, ...] = () if view.builds_graph else ("grounding", "graph_size")
    if not view.builds_graph and not _plotted(view, key_figures()):
        skipped += ("metrics", "recall_scatter")
    if view.frontier is None or not any(p.quality.get(view.frontier.quality[0]) is not None
                                        and (p.usd_per_1k_chunks is not None or p.p95_chunk_s is not None)
                                        for p in view.frontier.points):
        skipped += ("frontier",)
    return {name: make(view) for name, (_, make) in PLOTS.items() if name not in skipped}
