"""A LightRAG working folder as one graph. The knowledge graph is `graph_chunk_entity_relation.graphml`
(NetworkX storage: types, descriptions, `<SEP>`-joined source chunk ids); without it, what the
stores still say: `vdb_entities.json`/`vdb_relationships.json` (names, descriptions, chunks; no
types), then `kv_store_entity_chunks.json`/`kv_store_relation_chunks.json` (1.4.9+: names and
chunks), then `kv_store_full_entities.json`/`kv_store_full_relations.json` (names per document).
Stores are read by the importer's reader (harness/importers/lightrag_workdir.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import read_bytes, shown_path
from ..importers.lightrag_workdir import MAX_STORE_BYTES, find_workdir, load_store, read_chunks
from .graph import Graph, GraphEntity, GraphRelationship

GRAPHML = "graph_chunk_entity_relation.graphml"
SEP = "<SEP>"  # LightRAG's GRAPH_FIELD_SEP
STORES = (GRAPHML, "vdb_entities.json", "kv_store_entity_chunks.json", "kv_store_full_entities.json")


def _holds_graph(folder: Path) -> bool:
    return any((folder / name).is_file() for name in STORES)


def find_lightrag(path: Path) -> Path | None:
    """PATH when it holds a graph or a store that names entities, else the working folder under it."""
    if path.is_dir() and _holds_graph(path):
        return path
    folder = find_workdir(path) if path.is_dir() else None
    return folder if folder is not None and _holds_graph(folder) else None


def _split(value: Any) -> tuple[str, ...]:
    if not isinstance(value, str):
        return ()
    return tuple(dict.fromkeys(part.strip() for part in value.split(SEP) if part.strip()))


def _text(value: Any) -> str:
    return "\n".join(_split(value))


def _object(path: Path) -> dict[str, Any]:
    data = load_store(path)
    if not isinstance(data, dict):
        raise InputError(f"{shown_path(path)}: not a JSON object, not a LightRAG store")
    return data


def _from_graphml(graph: Graph, path: Path) -> None:
    import io

    import networkx as nx

    data = read_bytes(path, limit=MAX_STORE_BYTES, what="LightRAG graph file")  # a regular file, bounded
    try:
        kg = nx.read_graphml(io.BytesIO(data))
    except Exception:  # networkx and expat raise many kinds for a file that is not GraphML
        raise InputError(f"{shown_path(path)}: not a GraphML file") from None
    for name, data in kg.nodes(data=True):
        graph.add_entity(GraphEntity(str(name), str(data.get("entity_type", "") or ""), _text(data.get("description")),
                                     _split(data.get("source_id"))))
    for source, target, data in kg.edges(data=True):
        graph.add_relationship(GraphRelationship(str(source), str(target), _text(data.get("description")),
                                                 _split(data.get("source_id"))))


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = _object(path).get("data")
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise InputError(f"{shown_path(path)}: no `data` list of records, not a LightRAG vector store")
    return rows


def _from_vectors(graph: Graph, folder: Path) -> None:
    path = folder / "vdb_entities.json"
    for number, row in enumerate(_rows(path), start=1):
        name = row.get("entity_name")
        if not isinstance(name, str):
            raise InputError(f"{shown_path(path)}: record {number} has no entity_name")
        content = row.get("content")
        content = content if isinstance(content, str) else ""
        description = content.split("\n", 1)[1] if content.startswith(name + "\n") else content
        graph.add_entity(GraphEntity(name, "", _text(description), _split(row.get("source_id"))))
    path = folder / "vdb_relationships.json"
    if path.is_file():
        for number, row in enumerate(_rows(path), start=1):
            source, target = row.get("src_id"), row.get("tgt_id")
            if not isinstance(source, str) or not isinstance(target, str):
                raise InputError(f"{shown_path(path)}: record {number} has no src_id and tgt_id")
            content = row.get("content")
            content = content if isinstance(content, str) else ""
            graph.add_relationship(GraphRelationship(source, target, content.rsplit("\n", 1)[-1].strip(),
                                                     _split(row.get("source_id"))))


def _chunk_ids(path: Path, key: str, value: Any) -> tuple[str, ...]:
    ids = value.get("chunk_ids") if isinstance(value, dict) else None
    if not isinstance(ids, list):
        raise InputError(f"{shown_path(path)}: {key!r} has no chunk_ids list")
    return tuple(str(i) for i in ids)


def _from_chunk_stores(graph: Graph, folder: Path) -> None:
    path = folder / "kv_store_entity_chunks.json"
    for name, value in _object(path).items():
        graph.add_entity(GraphEntity(name, chunks=_chunk_ids(path, name, value)))
    path = folder / "kv_store_relation_chunks.json"
    if path.is_file():
        for key, value in _object(path).items():
            source, _, target = key.partition(SEP)
            if target:
                graph.add_relationship(GraphRelationship(source, target, chunks=_chunk_ids(path, key, value)))


def _from_documents(graph: Graph, folder: Path) -> None:
    """Names per document only: a document is the chunk each name is traced to."""
    graph.chunk_word = "document"
    path = folder / "kv_store_full_entities.json"
    for doc, value in _object(path).items():
        names = value.get("entity_names") if isinstance(value, dict) else None
        if not isinstance(names, list):
            raise InputError(f"{shown_path(path)}: {doc!r} has no entity_names list")
        for name in names:
            graph.add_entity(GraphEntity(str(name), chunks=(doc,)))
    path = folder / "kv_store_full_relations.json"
    if path.is_file():
        for doc, value in _object(path).items():
            pairs = value.get("relation_pairs") if isinstance(value, dict) else None
            if not isinstance(pairs, list):
                raise InputError(f"{shown_path(path)}: {doc!r} has no relation_pairs list")
            for pair in pairs:
                if isinstance(pair, list) and len(pair) == 2:
                    graph.add_relationship(GraphRelationship(str(pair[0]), str(pair[1]), chunks=(doc,)))


def read_lightrag(folder: Path, label: str) -> Graph:
    """The graph of the working folder `folder` (found by `find_lightrag`), from its richest store."""
    used = next(name for name in STORES if (folder / name).is_file())
    graph = Graph(label=label, kind="lightrag", source=f"LightRAG working folder ({used})")
    if used == GRAPHML:
        _from_graphml(graph, folder / GRAPHML)
    elif used == "vdb_entities.json":
        _from_vectors(graph, folder)
    elif used == "kv_store_entity_chunks.json":
        _from_chunk_stores(graph, folder)
    else:
        _from_documents(graph, folder)
    if graph.chunk_word == "chunk":
        chunks = read_chunks(folder)
        graph.chunk_text = {chunk.id: chunk.text for chunk in chunks or []}
    return graph
