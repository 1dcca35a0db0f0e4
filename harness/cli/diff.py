"""`harness diff A B`: the command's options; the work is in harness/graph_diff/."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .render import emit_json

SideArg = ("A GraphRAG output folder (entities and relationships tables, any version), a LightRAG working "
           "folder, or a run folder (RUN:VARIANT picks a variant)")


def diff_command(
    a: Annotated[str, typer.Argument(help=f"The graph before. {SideArg}.")],
    b: Annotated[str, typer.Argument(help=f"The graph after. {SideArg}.")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the diff as JSON (docs/diff.md).")] = False,
    top: Annotated[int, typer.Option("--top", min=1, help="Chunks listed, most change first.")] = 10,
    examples: Annotated[int, typer.Option("--examples", min=1, help="Examples listed per kind of change.")] = 5,
    fuzzy_threshold: Annotated[Optional[float], typer.Option("--fuzzy-threshold", min=0.0, max=1.0, help="Name similarity at which two names are one thing (the fragmentation clusters' fuzzy rule; default: a run's suite's, else 0.9).")] = None,
) -> None:
    """What changed between two graphs: entities and relationships added, removed, merged, split,
    retyped and re-described, per type and per source chunk, with the chunks that explain most of it."""
    # imported here: the fragmentation rules load numpy and scipy, which `harness --help` must not
    from ..model import MatchingConfig
    from ..graph_diff.diff import diff_graphs
    from ..graph_diff.read import read_side
    from ..graph_diff.render import render

    before, after = read_side(a), read_side(b)
    matching = before.matching or after.matching or MatchingConfig.model_validate({})
    if fuzzy_threshold is not None:
        matching = matching.model_copy(update={"fuzzy_threshold": fuzzy_threshold})
    diff = diff_graphs(before, after, matching)
    if json_out:
        emit_json(diff.model_dump(mode="json"))
        return
    for line in render(diff, top=top, examples=examples):
        typer.echo(line)
