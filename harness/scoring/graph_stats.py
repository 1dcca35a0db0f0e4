"""Statistics of a variant's union graph: is the new prompt's graph bigger, or just noisier?

The union graph is undirected and simple: nodes are normalised entity names (declared
entities and relationship endpoints, as GraphRAG builds its graph), edges are relationships
between them, merged across cases; self-loops are dropped and counted. Nodes and edges are
sorted before the graph is built, so the Louvain result (which depends on node order for a
given seed) is the same for any input order.
"""

from __future__ import annotations

import networkx as nx
from networkx.algorithms import community as nx_community

from ..model import ExtractedGraph, GraphStats
from .normalize import normalize_name

RESOLUTION = 1.0


def union_graph(graphs: list[ExtractedGraph]) -> tuple[nx.Graph, int]:
    """The union graph (built in sorted order) and the number of self-loops dropped."""
    nodes: set[str] = set()
    edges: set[tuple[str, str]] = set()
    self_loops = 0
    for graph in graphs:
        for ent in graph.entities:
            if ent.name.strip():
                nodes.add(normalize_name(ent.name))
        for rel in graph.relationships:
            if not rel.source.strip() or not rel.target.strip():
                continue
            s, t = normalize_name(rel.source), normalize_name(rel.target)
            nodes.update((s, t))
            if s == t:
                self_loops += 1
                continue
            edges.add((s, t) if s < t else (t, s))
    g = nx.Graph()
    g.add_nodes_from(sorted(nodes))
    g.add_edges_from(sorted(edges))
    return g, self_loops


def graph_stats(graphs: list[ExtractedGraph], *, seed: int = 42) -> GraphStats:
    """Size, connectivity and Louvain communities of the union of `graphs`."""
    g, self_loops = union_graph(graphs)
    n = g.number_of_nodes()
    if n == 0:
        return GraphStats(
            nodes=0, edges=0, components=0, largest_component=0, density=0.0, isolates=0,
            self_loops_dropped=self_loops, communities=0, largest_community=0, modularity=None,
            resolution=RESOLUTION, library_version=nx.__version__, seed=seed,
        )
    components = [len(c) for c in nx.connected_components(g)]
    communities = nx_community.louvain_communities(g, seed=seed, resolution=RESOLUTION)
    modularity = (
        float(nx_community.modularity(g, communities, resolution=RESOLUTION)) if g.number_of_edges() else None
    )
    return GraphStats(
        nodes=n,
        edges=g.number_of_edges(),
        components=len(components),
        largest_component=max(components),
        density=float(nx.density(g)),
        isolates=nx.number_of_isolates(g),
        self_loops_dropped=self_loops,
        communities=len(communities),
        largest_community=max(len(c) for c in communities),
        modularity=modularity,
        resolution=RESOLUTION,
        library_version=nx.__version__,
        seed=seed,
    )
