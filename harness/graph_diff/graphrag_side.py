"""A GraphRAG output folder as one graph: the entities and relationships tables of any version
(0.x-1.x `create_final_entities`/`create_final_relationships`, entities keyed by `name` up to 0.x
and `title` from 1.0; 2.x and 3.x `entities`/`relationships`), parquet, CSV, JSON or JSON lines,
read by the importer's table reader (harness/importers/graphrag_chunks.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import shown_path
from ..importers.graphrag_chunks import (TABLE_NAMES, TABLE_SUFFIXES, id_list, output_folders,
                                                 read_output_text_units, table_rows)
from .graph import Graph, GraphEntity, GraphRelationship

ENTITY_TABLES = ("entities", "create_final_entities")
RELATIONSHIP_TABLES = ("relationships", "create_final_relationships")


def _table(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        for suffix in TABLE_SUFFIXES:
            path = folder / f"{name}{suffix}"
            if path.is_file():
                return path
    return None


def find_output(path: Path) -> Path | None:
    """The folder holding the entities table: PATH itself, its `output/` (newest 0.x run first)."""
    for folder in [path, *output_folders({}, path)]:
        if folder.is_dir() and _table(folder, ENTITY_TABLES) is not None:
            return folder
    return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def read_graphrag(folder: Path, label: str) -> Graph:
    """The graph of the output tables in `folder` (found by `find_output`)."""
    entities_path = _table(folder, ENTITY_TABLES)
    relationships_path = _table(folder, RELATIONSHIP_TABLES)
    if entities_path is None or relationships_path is None:
        missing = "entities" if entities_path is None else "relationships"
        raise InputError(f"{shown_path(folder)}: no GraphRAG {missing} table here "
                         f"({' or '.join(f'{n}.parquet' for n in (ENTITY_TABLES if missing == 'entities' else RELATIONSHIP_TABLES))})")
    graph = Graph(label=label, kind="graphrag", source=f"GraphRAG output ({entities_path.name}, {relationships_path.name})",
                  chunk_word="text unit")
    for number, row in enumerate(table_rows(entities_path, "GraphRAG entities table"), start=1):
        title = row.get("title", row.get("name"))
        if not isinstance(title, str):
            raise InputError(f"{shown_path(entities_path)}: row {number} has no title (or name) column, "
                             "not a GraphRAG entities table")
        graph.add_entity(GraphEntity(title, _text(row.get("type")), _text(row.get("description")),
                                     id_list(row.get("text_unit_ids"))))
    for number, row in enumerate(table_rows(relationships_path, "GraphRAG relationships table"), start=1):
        source, target = row.get("source"), row.get("target")
        if not isinstance(source, str) or not isinstance(target, str):
            raise InputError(f"{shown_path(relationships_path)}: row {number} has no source and target columns, "
                             "not a GraphRAG relationships table")
        graph.add_relationship(GraphRelationship(source, target, _text(row.get("description")),
                                                 id_list(row.get("text_unit_ids"))))
    units = _table(folder, TABLE_NAMES)
    if units is not None:
        graph.chunk_text = {unit.id: unit.text for unit in read_output_text_units(units)}
    return graph
