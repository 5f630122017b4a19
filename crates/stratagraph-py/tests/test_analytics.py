"""Analytics on snapshots agree with networkx on the real SNAP graphs.

BFS levels, WCC partitions and triangle counts must match exactly;
PageRank within 1e-6. The Rust PageRank spreads the rank of vertices
without out-edges evenly over all vertices, which is networkx's default
(``dangling=None``, uniform ``personalization``), and counts self-loops as
ordinary edges, as networkx does; it runs a fixed number of iterations, so
both sides are run to convergence and compared there.
"""

from collections import defaultdict

import networkx as nx
import numpy as np
import pytest

import stratagraph as sg

from conftest import load_real


def source_of(G):
    """The vertex with the largest out-degree (the README's BFS source)."""
    return max(G.nodes, key=lambda v: (G.out_degree(v) if G.is_directed() else G.degree(v), -v))


def partition(labels_by_vertex):
    groups = defaultdict(set)
    for v, label in labels_by_vertex.items():
        groups[label].add(v)
    return {frozenset(g) for g in groups.values()}


def test_vertices_match(real):
    G, s = real
    assert sorted(s.vertices().tolist()) == sorted(G.nodes)


def test_bfs_levels_are_exact(real):
    G, s = real
    src = source_of(G)
    depth = s.to_dict(s.bfs(src))
    expect = nx.single_source_shortest_path_length(G, src)
    assert {v: d for v, d in depth.items() if d != sg.UNREACHABLE} == expect
    assert all(d == -1 for v, d in depth.items() if v not in expect)


def test_wcc_partition_is_exact(real):
    G, s = real
    comps = nx.weakly_connected_components(G) if G.is_directed() else nx.connected_components(G)
    labels = s.to_dict(s.wcc())
    assert partition(labels) == {frozenset(c) for c in comps}
    # Each label is a member of its own component.
    assert all(labels[label] == label for label in labels.values())


def test_triangle_count_is_exact(real):
    G, s = real
    U = nx.Graph(G)  # direction ignored, reciprocal arcs merged
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    assert s.triangle_count() == sum(nx.triangles(U).values()) // 3


def test_pagerank_within_1e6_of_networkx(real):
    G, s = real
    expect = nx.pagerank(G, alpha=0.85, tol=1e-12, max_iter=10_000)
    got = s.to_dict(s.pagerank(damping=0.85, iterations=200))
    assert got.keys() == expect.keys()
    assert max(abs(got[v] - expect[v]) for v in got) < 1e-6
    assert abs(sum(got.values()) - 1.0) < 1e-9


def test_pagerank_with_few_iterations_is_not_converged_yet():
    # Exactly `iterations` power steps from the uniform vector, no early stop.
    G, g = load_real("p2p-Gnutella04", True)
    s = g.snapshot()
    n = s.num_vertices
    assert np.allclose(s.pagerank(iterations=0), 1.0 / n)
    one = s.pagerank(iterations=1, damping=0.5)
    # One step by hand: base + damping * sum of in-neighbours' rank/outdeg.
    outdeg = dict(G.out_degree())
    dangling = sum(1.0 / n for v in G if outdeg[v] == 0)
    base = 0.5 / n + 0.5 * dangling / n
    by_hand = {v: base + 0.5 * sum((1.0 / n) / outdeg[u] for u in G.predecessors(v)) for v in G}
    got = s.to_dict(one)
    assert max(abs(got[v] - by_hand[v]) for v in G) < 1e-15


def test_lcc_matches_networkx_clustering_on_undirected_graphs():
    for stem in ("facebook_combined", "ca-HepPh"):
        G, g = load_real(stem, False)
        s = g.snapshot()
        got = s.to_dict(s.lcc())
        expect = nx.clustering(G)
        assert max(abs(got[v] - expect[v]) for v in G) < 1e-12


def test_sssp_matches_dijkstra():
    G, _ = load_real("email-Eu-core", True)
    H = nx.DiGraph()
    for u, v in G.edges:
        H.add_edge(u, v, weight=1.0 + ((u * 31 + v * 17) % 10) / 4)
    s = sg.from_networkx(H).snapshot()
    src = source_of(H)
    expect = nx.single_source_dijkstra_path_length(H, src)
    got = s.to_dict(s.sssp(src))
    assert {v: d for v, d in got.items() if d != np.inf}.keys() == expect.keys()
    assert max(abs(got[v] - expect[v]) for v in expect) < 1e-9
    assert all(d == np.inf for v, d in got.items() if v not in expect)


def test_betweenness_matches_single_source_brandes():
    G, g = load_real("email-Eu-core", True)
    s = g.snapshot()
    src = source_of(G)
    expect = nx.betweenness_centrality_subset(G, sources=[src], targets=list(G), normalized=False)
    got = s.to_dict(s.betweenness(src))
    assert max(abs(got[v] - expect[v]) for v in G) < 1e-9


def reference_cdlp(G, iterations):
    """Graphalytics CDLP, written plainly: synchronous rounds, in- and
    out-neighbours both vote (directed), most frequent label, smallest on
    ties, self-loops ignored, no neighbours keeps the label."""
    labels = {v: v for v in G}
    for _ in range(iterations):
        new = {}
        for v in G:
            votes = defaultdict(int)
            nbrs = list(G.successors(v)) + list(G.predecessors(v)) if G.is_directed() else list(G[v])
            for u in nbrs:
                if u != v:
                    votes[labels[u]] += 1
            new[v] = min(votes, key=lambda lab: (-votes[lab], lab)) if votes else labels[v]
        labels = new
    return labels


def test_cdlp_matches_the_graphalytics_definition():
    G, g = load_real("email-Eu-core", True)
    s = g.snapshot()
    assert s.to_dict(s.cdlp(iterations=5)) == reference_cdlp(G, 5)


@pytest.mark.parametrize("threads", [1, 2])
def test_results_do_not_depend_on_threads(threads):
    _, g = load_real("wiki-Vote", True)
    s = g.snapshot()
    base = g.snapshot()
    np.testing.assert_array_equal(s.wcc(threads=threads), base.wcc())
    np.testing.assert_array_equal(s.pagerank(threads=threads), base.pagerank())
    assert s.triangle_count(threads=threads) == base.triangle_count()


def test_analytics_on_a_snapshot_with_deleted_vertices():
    g = sg.Graph.in_memory(directed=False)
    g.add_edges([1, 2, 3, 4], [2, 3, 1, 5])
    g.remove_vertex(3)
    s = g.snapshot()
    assert s.vertices().tolist() == [1, 2, 4, 5]
    assert s.to_dict(s.bfs(1)) == {1: 0, 2: 1, 4: -1, 5: -1}
    assert s.to_dict(s.wcc()) == {1: 1, 2: 1, 4: 4, 5: 4}
    assert s.triangle_count() == 0
    assert len(s.pagerank()) == len(s.lcc()) == len(s.cdlp()) == 4


def test_each_analytics_call_records_its_kernel_time():
    """The split bench/python_speed.py relies on: the kernel's own time,
    recorded by the call, is positive and within the call's time."""
    import time

    from stratagraph import _native

    g = sg.Graph.in_memory()
    g.add_edges(np.arange(2000) % 500, (np.arange(2000) * 7 + 1) % 500)
    s = g.snapshot()
    for call in (lambda: s.bfs(0), lambda: s.sssp(0), s.wcc, s.pagerank, s.lcc, s.cdlp,
                 s.triangle_count, lambda: s.betweenness(0)):
        before = _native._last_kernel_seconds()
        t = time.perf_counter()
        call()
        wall = time.perf_counter() - t
        kernel = _native._last_kernel_seconds()
        assert 0 < kernel <= wall and kernel != before
