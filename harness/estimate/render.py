"""The console lines of `harness estimate`: a head, then per variant one row per stage and the total."""

from __future__ import annotations

from .estimate import Estimate
from .projection import INTERVAL_METHOD, Figure, Stage

_HEAD = ("variant", "stage", "calls", "input tokens", "output tokens", "tokens (95% interval)", "dollars (95% interval)",
         "wall time")


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _interval(figure: Figure, shown: str, *, ratio: bool = False) -> str:
    if figure.value is None:
        return "n/a"
    if ratio:  # a later stage from the cache's ratios: no interval of its own
        return shown
    if figure.low is None or figure.high is None:
        return f"{shown} (n/a)"
    return f"{shown} ({_plain(figure.low, shown)}-{_plain(figure.high, shown)})"


def _plain(value: float, like: str) -> str:
    return f"${value:,.4f}" if like.startswith("$") else f"{value:,.0f}"


def _dollars(figure: Figure, *, ratio: bool) -> str:
    return "n/a" if figure.value is None else _interval(figure, f"${figure.value:,.4f}", ratio=ratio)


def _wall(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def _cells(variant: str, stage: Stage, *, ratio: bool) -> tuple[str, ...]:
    return (variant, stage.name, _number(stage.calls.value), _number(stage.prompt_tokens.value),
            _number(stage.completion_tokens.value), _interval(stage.tokens, _number(stage.tokens.value), ratio=ratio),
            _dollars(stage.dollars, ratio=ratio), _wall(stage.wall_s.value))


def render(result: Estimate) -> list[str]:
    corpus = result.corpus
    lines = [f"{result.suite}: indexing {corpus.chunks:,} chunk(s) of {corpus.documents:,} document(s)"
             + f", {corpus.tokens:,} tokens in its chunks",
             f"  chunks: {corpus.source}", f"  measured: run {result.run}"]
    if result.cache is not None:
        cache = result.cache
        lines.append(f"  cache: {cache.source} ({cache.model or 'model not stored'}; chunks: {cache.chunks_source})")
    lines.append(f"  interval: {INTERVAL_METHOD}; later stages from the cache's ratios, without an interval "
                 f"of their own; wall time at concurrency {result.concurrency}")
    rows: list[tuple[str, ...]] = []
    for variant in result.variants:
        rows += [_cells(variant.variant, stage, ratio=i > 0) for i, stage in enumerate(variant.stages)]
        if len(variant.stages) > 1:
            rows.append(_cells(variant.variant, variant.total, ratio=False))
    widths = [max(len(r[i]) for r in [_HEAD, *rows]) for i in range(len(_HEAD))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i]) for i, c in enumerate(cells)).rstrip()

    lines += ["", line(_HEAD), *(line(r) for r in rows), ""]
    for variant in result.variants:
        gleaning = "n/a" if variant.gleanings_per_chunk is None else f"{variant.gleanings_per_chunk:.2f}"
        left = f", {variant.left_out} left out (error or no tokens)" if variant.left_out else ""
        estimated = "; some tokens counted by the harness (the endpoint reported none)" if variant.estimated_usage else ""
        lines.append(f"{variant.variant} ({variant.model}): {variant.sampled} case(s) measured{left}, "
                     f"gleanings per chunk {gleaning}{estimated}")
        lines += [f"  - {stage.name}: {stage.source}" for stage in variant.stages]
        lines += [f"  - {note}" for note in variant.notes]
    lines += [f"note: {note}" for note in result.notes]
    return lines
