"""What a suite's recorded run measured, per case: the tokens of every call of the case (the first
extraction, each gleaning continuation and loop check), its calls and, where the run sent its
calls live, their latency. One case is one sample unit of the projection."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError
from ..inputfiles import shown_path
from ..model import CaseResult, first_samples
from ..runfolder import RunData, load_run

# record modes in which every call of the run went to the endpoint: its latencies are the endpoint's
LIVE_MODES = ("all", "rewrite")


@dataclass(frozen=True)
class CaseSample:
    case_id: str
    prompt_tokens: int
    completion_tokens: int
    calls: int
    gleanings: int  # continuation calls (the loop checks between them are counted in `calls`)
    latency_s: float | None  # the case's calls one after another, None where not recorded
    estimated: bool  # some tokens counted by the harness's tokenizer, not reported by the endpoint
    chunk_tokens: int | None = None  # the case's input in the engine's chunk encoding (set by the caller)


@dataclass(frozen=True)
class VariantSample:
    variant: str
    model: str
    cases: list[CaseSample]
    left_out: int  # rows with an error or no tokens counted


def case_sample(row: CaseResult, *, live: bool) -> CaseSample | None:
    """One row's calls, or None when it measured nothing (an error, no usage counted)."""
    if row.error is not None or not row.usage.counted or not row.rounds:
        return None
    return CaseSample(
        case_id=row.case_id, prompt_tokens=row.usage.prompt_tokens, completion_tokens=row.usage.completion_tokens,
        calls=len(row.rounds), gleanings=sum(1 for r in row.rounds if r.kind == "continue"),
        latency_s=sum(r.latency_s for r in row.rounds if r.latency_s is not None)
        if live and all(r.latency_s is not None for r in row.rounds) else None, estimated=row.usage.estimated,
    )


def latest_run(reports: Path, suite: str) -> Path:
    """The newest finished run folder of `suite` under `reports` (run ids sort by time)."""
    folder = reports / suite
    runs = sorted(p for p in folder.iterdir() if (p / "summary.json").is_file()) if folder.is_dir() else []
    if not runs:
        raise InputError(f"{shown_path(folder)}: no finished run of suite {suite}: "
                         f"run it first (harness run) or give --run")
    return runs[-1]


def read_samples(run_path: Path, suite: str, models: dict[str, str]) -> tuple[RunData, list[VariantSample]]:
    """Each variant's cases measured by the run at `run_path` (a run of `suite`); `models`: each
    variant's model name, as the suite says it."""
    run = load_run(run_path)
    summary = run.finished
    if summary.suite != suite:
        raise InputError(f"{shown_path(run.run_dir)}: a run of suite {summary.suite}, not {suite}")
    live = summary.record_mode in LIVE_MODES
    by_variant: dict[str, list[CaseResult]] = {}
    for row in first_samples(run.rows):
        by_variant.setdefault(row.variant, []).append(row)
    samples: list[VariantSample] = []
    for variant, rows in by_variant.items():
        if variant not in models:
            continue  # a variant the suite no longer has: its model is not known
        measured = [s for s in (case_sample(row, live=live) for row in rows) if s is not None]
        samples.append(VariantSample(variant, models[variant], measured, len(rows) - len(measured)))
    if not samples:
        raise InputError(f"{shown_path(run.run_dir)}: the run holds no row of the suite's variants")
    return run, samples


def with_chunk_tokens(sample: VariantSample, texts: dict[str, str], encoding: str) -> VariantSample:
    """The sample with each case's input counted in the corpus's chunk encoding (None for a case
    the suite no longer holds)."""
    from .corpus import chunk_tokens

    cases = [replace(c, chunk_tokens=chunk_tokens(texts[c.case_id], encoding) if c.case_id in texts else None)
             for c in sample.cases]
    return replace(sample, cases=cases)
