"""Which kind of folder each side of `harness diff` is, and reading it into a `Graph`."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..inputfiles import shown_path
from .graph import Graph
from .graphrag_side import find_output, read_graphrag
from .lightrag_side import find_lightrag, read_lightrag
from .run_side import is_run, read_run

EXPECTED = ("a GraphRAG output folder (entities and relationships tables), a LightRAG working folder "
            "(graph_chunk_entity_relation.graphml or kv_store_*.json) or a run folder (results.jsonl)")


def split_variant(spec: str) -> tuple[Path, str | None]:
    """`RUN:VARIANT` -> (RUN, VARIANT) when RUN is a folder and the whole is not; else (spec, None)."""
    whole = Path(spec)
    head, colon, tail = spec.rpartition(":")
    if colon and head and tail and not whole.exists() and Path(head).is_dir():
        return Path(head), tail
    return whole, None


def read_side(spec: str) -> Graph:
    """One side of the diff, from a path as given on the command line."""
    path, variant = split_variant(spec)
    if not path.exists():
        raise InputError(f"{shown_path(spec)}: not found (expected {EXPECTED})")
    if not path.is_dir():
        raise InputError(f"{shown_path(spec)}: not a folder (expected {EXPECTED})")
    if variant is not None or is_run(path):
        if not is_run(path):
            raise InputError(f"{shown_path(path)}: no results.jsonl here, so no variant to pick (expected a run folder)")
        return read_run(path, variant, spec)
    output = find_output(path)
    if output is not None:
        return read_graphrag(output, spec)
    workdir = find_lightrag(path)
    if workdir is not None:
        return read_lightrag(workdir, spec)
    raise InputError(f"{shown_path(spec)}: none of the graphs harness diff reads is here (expected {EXPECTED})")
