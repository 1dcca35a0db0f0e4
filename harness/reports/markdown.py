"""report.md: fit for a pull-request comment or $GITHUB_STEP_SUMMARY."""

from __future__ import annotations

from typing import Any

from ..model import CaseResult
from ..summary import headline

METRIC_LABELS = {
    "entity_recall": "Entity recall",
    "entity_precision": "Entity precision",
    "entity_f1": "Entity F1",
    "entity_strict_f1": "Entity strict (typed) F1",
    "relationship_recall": "Relationship recall",
    "relationship_precision": "Relationship precision",
    "relationship_f1": "Relationship F1",
}


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _signed_pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f} pt"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _headline_table(summary: dict[str, Any]) -> list[str]:
    names = list(summary["variants"])
    baseline = summary["baseline"]
    lines = [
        "| metric: micro · macro (Δ macro vs baseline [95% CI]) | " + " | ".join(f"{n}{' (baseline)' if n == baseline else ''}" for n in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for metric, label in METRIC_LABELS.items():
        cells = []
        for name in names:
            variant = summary["variants"][name]
            cell = f"{_pct(headline(variant, metric))} · {_pct(headline(variant, metric, 'macro'))}"
            comparison = summary.get("comparisons", {}).get(name)
            delta = _find_delta(comparison, metric) if comparison else None
            if delta is not None:
                low, high = delta.get("ci_low"), delta.get("ci_high")
                interval = f" [{_signed_pct(low)}, {_signed_pct(high)}]" if low is not None and high is not None else ""
                cell += f" ({_signed_pct(delta.get('delta'))}{interval})"
            cells.append(cell)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _find_delta(comparison: dict[str, Any], metric: str) -> dict[str, Any] | None:
    return comparison.get("metrics", {}).get(metric)


def _size_table(summary: dict[str, Any]) -> list[str]:
    lines = [
        "| variant | entities | relationships | communities | components | isolates |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, variant in summary["variants"].items():
        graph = variant["graph"]
        ratio = summary["ratios"].get(name, {})

        def cell(value: int, key: str) -> str:
            r = ratio.get(key)
            return f"{value:,}" if name == summary["baseline"] or r is None else f"{value:,} ({r:.2f}×)"

        lines.append(
            f"| {name} | {cell(graph['nodes'], 'entities')} | {cell(graph['edges'], 'relationships')} | "
            f"{cell(graph['communities'], 'communities')} | {graph['components']:,} | {graph['isolates']:,} |"
        )
    any_graph = next(iter(summary["variants"].values()))["graph"]
    lines.append("")
    lines.append(
        f"Communities: {any_graph['algorithm']} ({any_graph['library']} {any_graph['library_version']}, "
        f"seed {any_graph['seed']}, resolution {any_graph['resolution']}) on each variant's union graph."
    )
    return lines


def _format_table(summary: dict[str, Any]) -> list[str]:
    codes = sorted({code for v in summary["variants"].values() for code in v["format"]["issues_by_code"]})
    names = list(summary["variants"])
    lines = [
        "| | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
        "| cases with a format error | "
        + " | ".join(f"{v['format']['cases_with_errors']}/{v['cases']}" for v in summary["variants"].values())
        + " |",
        "| completion delimiter present | "
        + " | ".join(_pct(v["format"]["completion_rate"]) for v in summary["variants"].values())
        + " |",
        "| records parsed / seen | "
        + " | ".join(f"{v['format']['records_parsed']}/{v['format']['records_seen']}" for v in summary["variants"].values())
        + " |",
    ]
    for code in codes:
        lines.append(
            f"| `{code}` | " + " | ".join(str(v["format"]["issues_by_code"].get(code, 0)) for v in summary["variants"].values()) + " |"
        )
    return lines


def _case_table(summary: dict[str, Any], results: list[CaseResult]) -> list[str]:
    names = list(summary["variants"])
    by_key = {(r.variant, r.case_id): r for r in results}
    case_ids = list(dict.fromkeys(r.case_id for r in results))
    lines = [
        "| case | " + " | ".join(f"{n} ent. / rel. recall" for n in names) + f" | missed by {names[-1]} |",
        "|---|" + "---:|" * len(names) + "---|",
    ]
    for case_id in case_ids:
        cells = []
        for name in names:
            row = by_key.get((name, case_id))
            if row is None or row.score is None:
                cells.append("—")
            else:
                cells.append(f"{_pct(row.score.entities.recall)} / {_pct(row.score.relationships.recall)}")
        last = by_key.get((names[-1], case_id))
        missed = ", ".join(last.score.entities.missed) if last and last.score else ""
        lines.append(f"| {case_id} | " + " | ".join(cells) + f" | {_escape(missed) or '—'} |")
    return lines


def render_run_markdown(summary: dict[str, Any], results: list[CaseResult]) -> str:
    lines = [f"# {summary['suite']}: {len(summary['variants'])} prompt variants", ""]
    if summary.get("description"):
        lines += [summary["description"], ""]
    if summary.get("notes"):
        lines += [f"> {summary['notes']}", ""]
    lines += [
        f"Run `{summary['run_id']}`, baseline `{summary['baseline']}`, record mode `{summary['record_mode']}`. "
        "Deltas are against the baseline, with 95% paired bootstrap intervals over cases.",
        "",
        "## Scores",
        "",
        *_headline_table(summary),
        "",
        "## Graph size",
        "",
        *_size_table(summary),
        "",
        "## Format",
        "",
        *_format_table(summary),
        "",
        "## Cases",
        "",
        *_case_table(summary, results),
        "",
    ]
    return "\n".join(lines)
