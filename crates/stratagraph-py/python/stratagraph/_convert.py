"""Conversions between stratagraph and networkx (and plain dicts)."""

from __future__ import annotations

import numbers
from typing import Any, Dict, Iterable, List

import numpy as np

from ._native import Graph, Snapshot

_MAX_ID = 2**64


def _vertex_id(node: Any) -> int:
    """A networkx node as a stratagraph vertex id, or a clear error."""
    if isinstance(node, bool) or not isinstance(node, numbers.Integral):
        raise TypeError(
            f"G: node {node!r} is not an integer; stratagraph vertex ids are "
            "integers in 0..2**64 (relabel first, e.g. with "
            "networkx.convert_node_labels_to_integers)"
        )
    if not 0 <= int(node) < _MAX_ID:
        raise ValueError(f"G: node {node!r} is out of range (ids are integers in 0..2**64)")
    return int(node)


def _ids(nodes: Iterable[Any]) -> np.ndarray:
    return np.array([_vertex_id(n) for n in nodes], dtype=np.uint64)


def from_networkx(
    G: Any,
    *,
    weight: str = "weight",
    threads: int = 0,
) -> Graph:
    """A new in-memory ``Graph`` holding a copy of the networkx graph ``G``.

    Directedness follows ``G.is_directed()``. Nodes must be integers in
    ``0..2**64`` (``TypeError``/``ValueError`` otherwise); they are added in
    ``G``'s node order, so the snapshot's ``vertices()`` keeps that order.
    Edge weights come from the edge attribute named ``weight`` (1.0 where it
    is missing); other attributes are not kept. Multigraphs raise
    ``TypeError``: a stratagraph store has at most one edge per pair.
    """
    if G.is_multigraph():
        raise TypeError(
            "G: multigraphs are not supported (stratagraph keeps one edge per "
            "vertex pair); convert with networkx.DiGraph(G) or networkx.Graph(G)"
        )
    g = Graph.in_memory(directed=G.is_directed(), threads=threads)
    g.add_vertices(_ids(G.nodes))
    src: List[int] = []
    dst: List[int] = []
    weights: List[float] = []
    for u, v, w in G.edges(data=weight, default=1.0):
        src.append(u)
        dst.append(v)
        weights.append(w)
    if src:
        try:
            w = np.array(weights, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise TypeError(f"G: edge attribute {weight!r} must hold numbers ({e})") from None
        g.add_edges(np.array(src, dtype=np.uint64), np.array(dst, dtype=np.uint64), w)
    return g


def snapshot_to_networkx(s: Snapshot) -> Any:
    """Implements ``Snapshot.to_networkx``."""
    import networkx as nx  # type: ignore[import-untyped]

    G = nx.DiGraph() if s.directed else nx.Graph()
    src, dst, w = s.edges(weights=True)
    if s.string_ids:
        # Nodes are the vertices' keys, as every result naming one vertex.
        G.add_nodes_from(s.keys(s.vertices()))
        G.add_weighted_edges_from(zip(s.keys(src), s.keys(dst), w.tolist()))
    else:
        G.add_nodes_from(s.vertices().tolist())
        G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    return G


def as_dict(s: Snapshot, values: Any) -> Dict[Any, Any]:
    """``{vertex id: value}`` for a per-vertex array aligned with
    ``s.vertices()`` (the same as ``s.to_dict(values)``; keyed by the
    vertices' ``str`` keys in a string-keyed store)."""
    return s.to_dict(values)
