"""One variant of a suite's run as one graph: the union of its predicted graphs (first samples),
each case a chunk (its text from the suite, and the suite's matching rules, where the suite file
is still there). Entities are keyed as GraphRAG keys them (`scoring.fragmentation.graphrag_title`),
which is the node key the fragmentation figures count; where the suite names an engine the rows
already hold the graph that engine keeps (harness/scoring/engine_reading.py)."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..inputfiles import shown_path
from ..model import first_samples
from ..runfolder import RESULTS, SUMMARY, load_suite_of, read_rows, read_summary
from ..scoring.fragmentation import graphrag_title
from .graph import Graph, GraphEntity, GraphRelationship


def is_run(path: Path) -> bool:
    return path.is_dir() and (path / RESULTS).is_file()


def read_run(folder: Path, variant: str | None, label: str) -> Graph:
    """The union graph of `variant` (needed when the run has several) of the run in `folder`."""
    rows = first_samples(read_rows(folder))
    variants = list(dict.fromkeys(row.variant for row in rows))
    if not variants:
        raise InputError(f"{shown_path(folder / RESULTS)}: no result rows")
    if variant is None:
        if len(variants) > 1:
            raise InputError(f"{shown_path(folder)}: the run has {len(variants)} variants ({', '.join(variants)}); "
                             f"name one as {shown_path(folder)}:VARIANT")
        variant = variants[0]
    elif variant not in variants:
        raise InputError(f"{shown_path(folder)}: no variant '{variant}' (have {', '.join(variants)})")
    picked = [row for row in rows if row.variant == variant]
    graph = Graph(label=label, kind="run", chunk_word="case",
                  source=f"run of suite '{picked[0].suite}', variant '{variant}' ({len(picked)} cases)")
    for row in picked:
        for ent in row.graph.entities:
            title = graphrag_title(ent.name)
            if title:
                graph.add_entity(GraphEntity(title, ent.type.strip(), ent.description.strip(), (row.case_id,)))
        for rel in row.graph.relationships:
            source, target = graphrag_title(rel.source), graphrag_title(rel.target)
            if source and target:
                graph.add_relationship(GraphRelationship(source, target, rel.description.strip(), (row.case_id,)))
    if (folder / SUMMARY).is_file():
        suite = load_suite_of(read_summary(folder))
        if suite is not None:
            graph.matching = suite.spec.matching
            texts = {case.id: case.text for case in suite.cases}
            graph.chunk_text = {row.case_id: texts[row.case_id] for row in picked if row.case_id in texts}
    return graph
