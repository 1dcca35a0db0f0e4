"""The tuning report: `<name>.tuning.json` for tools, `<name>.tuning.md` for the pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from ..artifacts import Artifact, Number
from ..atomicfile import atomic_write, atomic_write_json
from ..model import Value


class RejectedExample(Value):
    chunk: str
    kind: str
    reason: str
    answer: str | None = None


class TuningUsage(Value):
    calls: int
    prompt_tokens: int
    completion_tokens: int
    estimated_cost_usd: Number | None


class TypeRecurrence(Value):
    type: str
    samples: int  # how many of the N samples of type discovery named it


class TypeStability(Value):
    """`harness tune --repeat N`: type discovery asked N times, and how often each type recurs."""

    samples: int
    types: list[TypeRecurrence]


class TuningReport(Artifact):
    """`<name>.tuning.json`: what `harness tune` chose and why."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("entity_type_stability",)

    name: str
    model: str
    format: str
    selection: str
    chunks: list[str]
    domain: str
    language: str
    persona: str
    rating_description: str
    entity_types: list[str]
    examples_kept: list[str]
    examples_dropped_for_token_budget: list[str]
    examples_rejected: list[RejectedExample]
    tokens: dict[str, int]  # "budget", then the tokens of each prompt written
    usage: TuningUsage
    prompts: dict[str, str]  # prompt kind -> file written
    lint: list[dict[str, Any]]  # lint findings of the prompts written, as `harness lint --json` prints them
    notes: list[str]
    entity_type_stability: TypeStability | None = None  # with --repeat N (N > 1) only


def report_markdown(report: TuningReport) -> str:
    """What a reviewer needs to trust a tuned prompt before measuring it."""
    tokens = report.tokens
    lines = [
        f"# Tuning report: {report.name}",
        "",
        f"- model: `{report.model}`; chunks ({report.selection}): {', '.join(report.chunks)}",
        f"- domain: {report.domain}",
        f"- language: {report.language}",
        f"- entity types: {', '.join(report.entity_types)}",
        f"- persona: {report.persona}",
        f"- rating: {report.rating_description}",
        "",
        "## Examples",
        "",
        "| chunk | verdict | reason |",
        "| --- | --- | --- |",
    ]
    for chunk in report.examples_kept:
        lines.append(f"| {chunk} | kept | |")
    for chunk in report.examples_dropped_for_token_budget:
        lines.append(f"| {chunk} | dropped | over the token budget of {tokens['budget']} |")
    for item in report.examples_rejected:
        lines.append(f"| {item.chunk} | rejected | {_cell(item.reason)} |")
    stability = report.entity_type_stability
    if stability is not None:
        used = {t.lower() for t in report.entity_types}
        lines += ["", "## Entity-type stability", "",
                  f"Type discovery asked {stability.samples} times with the same request; the prompt uses the "
                  "first answer's types.", "", "| type | recurs | in the prompt |", "| --- | ---: | --- |"]
        lines += [f"| {_cell(t.type)} | {t.samples} of {stability.samples} | {'yes' if t.type.lower() in used else 'no'} |"
                  for t in stability.types]
    lines += ["", "## Prompts", "", "| prompt | file | tokens without the chunk |", "| --- | --- | ---: |"]
    for kind, path in report.prompts.items():
        lines.append(f"| {kind} | `{Path(path).name}` | {tokens.get(kind, '')} |")
    usage = report.usage
    cost = usage.estimated_cost_usd
    lines += ["", f"Tuning calls: {usage.calls}, {usage.prompt_tokens} prompt and "
                  f"{usage.completion_tokens} completion tokens"
              + (f", about ${cost:.4f}." if cost is not None else ".")]
    if report.lint:
        lines += ["", "## Lint", ""] + [f"- `{Path(f['source']).name}:{f['line']}` {f['severity']} {f['code']}: "
                                        f"{_cell(f['message'])}" for f in report.lint]
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {_cell(n)}" for n in report.notes]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def write_tuning_report(report: TuningReport, stem: Path) -> Path:
    """Write `<stem>.json` and `<stem>.md`; returns the JSON path."""
    path = stem.with_name(stem.name + ".json")
    atomic_write_json(path, report.to_json())
    atomic_write(stem.with_name(stem.name + ".md"), report_markdown(report))
    return path

