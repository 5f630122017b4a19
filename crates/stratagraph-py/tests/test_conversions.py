"""Round trips through numpy, networkx and scipy."""

import networkx as nx
import numpy as np
import pytest

import stratagraph as sg

from conftest import load_real


def weighted_edges(G):
    return {(u, v, d.get("weight", 1.0)) for u, v, d in G.edges(data=True)}


def same_graph(G, H):
    assert G.is_directed() == H.is_directed()
    assert set(G.nodes) == set(H.nodes)
    if G.is_directed():
        assert weighted_edges(G) == weighted_edges(H)
    else:
        norm = lambda E: {(min(u, v), max(u, v), w) for u, v, w in E}  # noqa: E731
        assert norm(weighted_edges(G)) == norm(weighted_edges(H))


@pytest.mark.parametrize("directed", [True, False])
def test_networkx_round_trip_keeps_nodes_edges_and_weights(directed):
    G = nx.gnm_random_graph(300, 1500, seed=3, directed=directed)
    rng = np.random.default_rng(1)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 100)) / 7
    G.add_node(1000)  # isolated
    G.add_edge(5, 5, weight=0.25)  # self-loop
    g = sg.from_networkx(G)
    s = g.snapshot()
    assert s.directed == directed
    assert s.vertices().tolist() == list(G.nodes)  # G's node order is kept
    same_graph(G, s.to_networkx())
    assert nx.utils.graphs_equal(G, s.to_networkx())


def test_from_networkx_uses_the_weight_attribute_and_defaults_to_one():
    G = nx.DiGraph()
    G.add_edge(1, 2, weight=3.5, color="red")
    G.add_edge(2, 3)
    G.add_edge(3, 4, cost=9)
    s = sg.from_networkx(G).snapshot()
    assert (s.weight(1, 2), s.weight(2, 3), s.weight(3, 4)) == (3.5, 1.0, 1.0)
    s = sg.from_networkx(G, weight="cost").snapshot()
    assert (s.weight(1, 2), s.weight(3, 4)) == (1.0, 9.0)


def test_numpy_round_trip_through_edges():
    rng = np.random.default_rng(5)
    src = rng.integers(0, 2**40, 20_000, dtype=np.uint64)
    dst = rng.integers(0, 2**40, 20_000, dtype=np.uint64)
    w = rng.random(20_000)
    g = sg.Graph.in_memory()
    g.add_edges(src, dst, w)
    s, d, ws = g.snapshot().edges(weights=True)
    assert s.dtype == d.dtype == np.uint64
    expect = {}
    for a, b, c in zip(src.tolist(), dst.tolist(), w.tolist()):
        expect[(a, b)] = c  # a later duplicate wins, as in the engine
    assert dict(zip(zip(s.tolist(), d.tolist()), ws.tolist())) == expect
    h = sg.Graph.in_memory()
    h.add_edges(s, d, ws)
    for a, b in zip(g.snapshot().edges(weights=True), h.snapshot().edges(weights=True)):
        np.testing.assert_array_equal(np.sort(a), np.sort(b))


@pytest.mark.parametrize("directed", [True, False])
def test_to_scipy_matches_networkx_in_the_same_node_order(directed):
    G = nx.gnm_random_graph(200, 900, seed=11, directed=directed)
    for i, (u, v) in enumerate(G.edges):
        G[u][v]["weight"] = 1.0 + i % 5
    G.add_edge(7, 7, weight=2.5)
    s = sg.from_networkx(G).snapshot()
    A = s.to_scipy()
    assert A.format == "csr" and A.shape == (len(G), len(G))
    B = nx.to_scipy_sparse_array(G, nodelist=s.vertices().tolist(), weight="weight")
    assert (A != B).nnz == 0


def test_to_scipy_and_networkx_on_a_real_graph():
    G, g = load_real("email-Eu-core", True)
    s = g.snapshot()
    B = nx.to_scipy_sparse_array(G, nodelist=s.vertices().tolist())
    assert (s.to_scipy() != B).nnz == 0
    same_graph(G, s.to_networkx())


def test_from_networkx_refuses_what_it_cannot_store():
    with pytest.raises(TypeError, match="multigraphs"):
        sg.from_networkx(nx.MultiGraph([(1, 2)]))
    with pytest.raises(TypeError, match="node 'a' is not an integer"):
        sg.from_networkx(nx.Graph([("a", "b")]))
    with pytest.raises(ValueError, match="node -1 is out of range"):
        sg.from_networkx(nx.Graph([(-1, 2)]))
    with pytest.raises(TypeError, match="'weight' must hold numbers"):
        sg.from_networkx(nx.Graph([(1, 2, {"weight": "heavy"})]))
