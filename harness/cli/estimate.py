"""`harness estimate SUITE`: the command's options; the work is in harness/estimate/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .options import JsonOpt, ReportsOpt, VariantOpt
from .render import emit_json


def estimate_command(
    suite_path: Annotated[Path, typer.Argument(metavar="SUITE", help="The suite whose recorded run is the sample (an extraction, claims, summary or report suite).")],
    corpus: Annotated[Optional[Path], typer.Option("--corpus", help="The documents to index: a folder of .txt/.md files, cut as the suite's engine cuts them, or a GraphRAG project (its own text units and settings; its cache is then read too).")] = None,
    documents: Annotated[Optional[int], typer.Option("--documents", min=1, help="Instead of --corpus: how many documents (with --tokens).")] = None,
    tokens: Annotated[Optional[int], typer.Option("--tokens", min=1, help="Instead of --corpus: their tokens in all (with --documents).")] = None,
    run: Annotated[Optional[Path], typer.Option("--run", help="The run folder that measured the sample (default: the suite's newest finished run under --reports).")] = None,
    cache: Annotated[Optional[Path], typer.Option("--cache", help="A GraphRAG cache folder whose calls give the later stages' ratios (default: the --corpus project's cache, when it has one).")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Calls in flight while indexing, for the wall time (default: the suite's model.concurrency).")] = None,
    variant: VariantOpt = None,
    reports: ReportsOpt = Path("reports"),
    json_out: JsonOpt = False,
) -> None:
    """Project the tokens, dollars and wall time of indexing a whole corpus, per variant, from the
    suite's recorded run and the project's cache (docs/estimate.md)."""
    from ..estimate.estimate import estimate
    from ..estimate.render import render
    from ..suites import load_suite

    suite = load_suite(suite_path)
    result = estimate(suite, run=run, reports=reports, corpus_dir=corpus, documents=documents, tokens=tokens,
                      cache=cache, concurrency=concurrency, variants=variant)
    if json_out:
        emit_json(result.to_json())
        return
    for line in render(result):
        typer.echo(line)
