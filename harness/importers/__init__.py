"""Importers that turn a GraphRAG project or a LightRAG setup into a suite skeleton."""

from __future__ import annotations

from .common import SuiteDraft, write_draft
from .graphrag import GraphRAGProject, graphrag_draft, read_graphrag_project
from .lightrag import LightRAGProject, lightrag_draft, read_lightrag_project

__all__ = [
    "GraphRAGProject",
    "LightRAGProject",
    "SuiteDraft",
    "graphrag_draft",
    "lightrag_draft",
    "read_graphrag_project",
    "read_lightrag_project",
    "write_draft",
]
