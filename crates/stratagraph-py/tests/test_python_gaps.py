"""Graph.remove_property, Snapshot.vertices(label, **equal), the property
edge counts, and the kernels on a projection of property edges.

Expected values come from elsewhere than the code under test: a Python
model of the writes (dicts, with typed values), networkx on the same edges,
and the kernels on a weighted-structure graph built from the same edges
with ``add_edges`` (the path the Graphalytics reference outputs check).
"""

import random
from collections import defaultdict

import networkx as nx
import numpy as np
import pytest

import stratagraph as sg

LABELS = ("road", "rail", "ferry")


# --- remove_property ---------------------------------------------------------


def test_remove_property_removes_and_then_returns_false():
    with sg.Graph.in_memory() as g:
        g.add_vertex(1, "person", age=29, name="marko")
        before = g.snapshot()
        assert g.remove_property(1, "age") is True
        assert g.snapshot().property(1, "age") is None
        assert g.snapshot().properties(1) == {"name": "marko"}
        assert g.remove_property(1, "age") is False
        assert g.remove_property(1, "never") is False
        assert before.property(1, "age") == 29, "an older snapshot keeps it"
        with pytest.raises(sg.NotFound):
            g.remove_property(2, "age")


def test_remove_property_by_key_in_a_string_keyed_store():
    with sg.Graph.in_memory(string_ids=True) as g:
        g.add_vertex("marko", "person", age=29)
        assert g.remove_property("marko", "age") is True
        assert g.remove_property("marko", "age") is False
        with pytest.raises(sg.NotFound):
            g.remove_property("nobody", "age")


# --- vertices(label, **equal) ------------------------------------------------


def same(a, b):
    """The store's typed equality: an np.int32 29 is not an int 29."""
    return type(a) is type(b) and a == b


def typed_values(rng):
    return rng.choice([1, 2, np.int32(1), np.int32(2), 1.0, "1", True])


@pytest.mark.parametrize("indexed", [False, True])
def test_vertices_by_label_and_properties_match_a_model(indexed):
    rng = random.Random(7)
    model = {}  # vertex -> (label, {key: value})
    with sg.Graph.in_memory() as g:
        if indexed:
            g.create_index("person", "age")
        order = list(range(200))
        rng.shuffle(order)  # internal order differs from numeric order
        for v in order:
            label = rng.choice(["person", "place"])
            props = {k: typed_values(rng) for k in ("age", "size") if rng.random() < 0.8}
            g.add_vertex(v, label, **props)
            model[v] = (label, props)
        # Later writes change some values, remove others.
        for v in rng.sample(order, 40):
            if rng.random() < 0.5 and "age" in model[v][1]:
                assert g.remove_property(v, "age") is True
                del model[v][1]["age"]
            else:
                value = typed_values(rng)
                g.set_property(v, "age", value)
                model[v][1]["age"] = value
        s = g.snapshot()
        everyone = s.vertices()
        assert everyone.dtype == np.uint64
        assert sorted(everyone.tolist()) == list(range(200))
        assert everyone.tolist() == order, "vertices() is first-seen order"

        def expected(label, **equal):
            return [
                v
                for v in order
                if model[v][0] == label
                and all(k in model[v][1] and same(model[v][1][k], x) for k, x in equal.items())
            ]

        for label in ("person", "place", "nobody"):
            got = s.vertices(label)
            assert got.dtype == np.uint64
            assert got.tolist() == expected(label)
            assert s.vertices(label=label).tolist() == expected(label)
            for age in (1, 2, np.int32(1), 1.0, "1", True):
                want = expected(label, age=age)
                assert s.vertices(label, age=age).tolist() == want, (label, age)
                for size in (1, np.int32(2)):
                    want = expected(label, age=age, size=size)
                    got = s.vertices(label, age=age, size=size)
                    assert got.dtype == np.uint64
                    assert got.tolist() == want, (label, age, size)
                    # Keyword order does not matter.
                    assert s.vertices(label, size=size, age=age).tolist() == want
        assert s.vertices("person", missing=1).tolist() == []
        assert np.array_equal(s.vertices(), everyone)
        with pytest.raises(ValueError, match="label"):
            s.vertices(age=1)
        with pytest.raises(ValueError, match="label"):
            s.vertices(None, age=1)


def test_vertices_by_label_in_a_string_keyed_store():
    with sg.Graph.in_memory(string_ids=True) as g:
        g.add_vertex("marko", "person", age=29)
        g.add_vertex("lop", "software", lang="java")
        g.add_vertex("josh", "person", age=32)
        s = g.snapshot()
        assert s.keys(s.vertices("person")) == ["marko", "josh"]
        assert s.keys(s.vertices("person", age=32)) == ["josh"]
        assert s.vertices("person", age=np.int32(32)).tolist() == []


# --- property edge counts ----------------------------------------------------


def test_num_property_edges_counts_them_beside_the_weighted_edges():
    with sg.Graph.in_memory() as g:
        assert g.num_property_edges == 0
        with g.transaction() as tx:
            a = tx.add_edge(1, 2, "knows")
            tx.add_edge(1, 2, "knows")
            tx.add_edge(2, 3, "likes")
            tx.add_edge(3, 4, 0.5)  # a weighted edge
        old = g.snapshot()
        assert old.num_property_edges == 3 == len(old.property_edges())
        assert g.num_property_edges == 3
        assert old.num_edges == 1
        g.remove_edge(a)
        assert g.num_property_edges == 2
        assert g.snapshot().num_property_edges == 2
        assert old.num_property_edges == 3, "a snapshot never changes"


# --- kernels on projections --------------------------------------------------


def property_graph(directed, seed=3, n=60, m=220):
    """A random property graph: vertices created in shuffled order (so
    internal order is not numeric order), a few isolated, edges of three
    labels with parallel edges and an int or float ``km`` (or none, on
    some ferries)."""
    rng = random.Random(seed)
    order = list(range(100, 100 + n))
    rng.shuffle(order)
    edges = []  # (src, dst, label, km or None)
    for _ in range(m):
        u, v = rng.sample(order[:-5], 2)  # the last 5 stay isolated
        label = rng.choice(LABELS)
        km = rng.choice([rng.randint(1, 9), rng.uniform(0.5, 9.0)])
        if label == "ferry" and rng.random() < 0.3:
            km = None
        edges.append((u, v, label, km))
        if rng.random() < 0.2:  # a parallel edge, maybe shorter
            edges.append((u, v, label, rng.randint(1, 9)))
    g = sg.Graph.in_memory(directed=directed)
    g.add_vertices(np.array(order, dtype=np.uint64))
    ids = []
    with g.transaction() as tx:
        for u, v, label, km in edges:
            props = {} if km is None else {"km": km}
            ids.append(tx.add_edge(u, v, label, **props))
    return g, order, edges, ids


def collapsed(edges, labels, directed, weight=True, default=None):
    """{(u, v): smallest weight} of the edges of ``labels`` (all if empty);
    an undirected pair once, under (min, max)."""
    out = {}
    for u, v, label, km in edges:
        if labels and label not in labels:
            continue
        w = (km if km is not None else default) if weight else 1.0
        key = (u, v) if directed else (min(u, v), max(u, v))
        out[key] = min(out.get(key, w), w)
    return out


def weighted_structure(order, pairs, directed):
    """The same edges as weighted edges of another store (add_edges)."""
    g = sg.Graph.in_memory(directed=directed)
    g.add_vertices(np.array(order, dtype=np.uint64))
    if pairs:
        src = np.array([u for u, _ in pairs], dtype=np.uint64)
        dst = np.array([v for _, v in pairs], dtype=np.uint64)
        g.add_edges(src, dst, np.array(list(pairs.values()), dtype=np.float64))
    return g


def to_nx(order, pairs, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(order)
    G.add_weighted_edges_from((u, v, w) for (u, v), w in pairs.items())
    return G


SELECTIONS = [["road"], ["road", "rail"], "rail", []]


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("labels", SELECTIONS)
def test_unweighted_kernels_on_a_projection_equal_the_weighted_structure(directed, labels):
    g, order, edges, _ = property_graph(directed)
    chosen = [labels] if isinstance(labels, str) else labels
    pairs = collapsed(edges, chosen, directed, weight=False)
    with g, weighted_structure(order, pairs, directed) as w:
        s, t = g.snapshot(), w.snapshot()
        assert s.vertices().tolist() == t.vertices().tolist() == order
        src = order[0]
        assert np.array_equal(s.bfs(src, labels=labels), t.bfs(src))
        assert np.array_equal(s.wcc(labels=labels), t.wcc())
        np.testing.assert_allclose(
            s.pagerank(labels=labels, iterations=30), t.pagerank(iterations=30), rtol=1e-12
        )
        np.testing.assert_allclose(s.lcc(labels=labels), t.lcc(), rtol=1e-12)
        assert np.array_equal(s.cdlp(labels=labels), t.cdlp())
        assert s.triangle_count(labels=labels) == t.triangle_count()
        np.testing.assert_allclose(
            s.betweenness(src, labels=labels), t.betweenness(src), rtol=1e-12
        )
        # sssp without weight: hop counts, as floats.
        hops = s.sssp(src, labels=labels)
        depth = t.bfs(src)
        assert np.array_equal(hops, np.where(depth < 0, np.inf, depth.astype(float)))
        # The weighted structure of the projected store itself is empty.
        assert s.num_edges == 0


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("labels", [["road"], ["road", "rail"]])
def test_weighted_sssp_on_a_projection_equals_the_weighted_structure(directed, labels):
    g, order, edges, _ = property_graph(directed)
    pairs = collapsed(edges, labels, directed)
    with g, weighted_structure(order, pairs, directed) as w:
        s, t = g.snapshot(), w.snapshot()
        for src in order[:5]:
            got = s.sssp(src, labels=labels, weight="km")
            np.testing.assert_allclose(got, t.sssp(src), rtol=1e-12)


@pytest.mark.parametrize("directed", [True, False])
def test_kernels_on_a_projection_match_networkx(directed):
    g, order, edges, _ = property_graph(directed, seed=11)
    labels = ["road", "rail"]
    pairs = collapsed(edges, labels, directed)
    G = to_nx(order, pairs, directed)
    with g:
        s = g.snapshot()
        pos = {v: i for i, v in enumerate(order)}
        src = order[1]

        depth = nx.single_source_shortest_path_length(G, src)
        want = [depth.get(v, -1) for v in order]
        assert s.bfs(src, labels=labels).tolist() == want

        dist = nx.single_source_dijkstra_path_length(G, src, weight="weight")
        want = [dist.get(v, np.inf) for v in order]
        np.testing.assert_allclose(s.sssp(src, labels=labels, weight="km"), want, rtol=1e-12)

        comps = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
        want = [0] * len(order)
        for comp in comps:
            first = min(comp, key=pos.__getitem__)
            for v in comp:
                want[pos[v]] = first
        assert s.wcc(labels=labels).tolist() == want

        pr = nx.pagerank(G, alpha=0.85, weight=None, max_iter=1000, tol=1e-14)
        np.testing.assert_allclose(
            s.pagerank(labels=labels, iterations=300), [pr[v] for v in order], atol=1e-9
        )

        U = G.to_undirected() if directed else G
        assert s.triangle_count(labels=labels) == sum(nx.triangles(U).values()) // 3
        if not directed:
            cc = nx.clustering(G)
            np.testing.assert_allclose(s.lcc(labels=labels), [cc[v] for v in order], atol=1e-12)


def test_a_label_filter_and_parallel_edges_against_networkx_by_hand():
    # 1 -road 4-> 2, 1 -road 2-> 2 (parallel: 2 kept), 2 -road 1-> 3,
    # 1 -rail 1-> 3 (filtered out with labels="road").
    with sg.Graph.in_memory() as g:
        g.add_vertices(np.array([3, 1, 2, 9], dtype=np.uint64))
        with g.transaction() as tx:
            tx.add_edge(1, 2, "road", km=4)
            tx.add_edge(1, 2, "road", km=2.0)
            tx.add_edge(2, 3, "road", km=np.int32(1))
            tx.add_edge(1, 3, "rail", km=1)
        s = g.snapshot()
        assert s.vertices().tolist() == [3, 1, 2, 9]
        assert s.sssp(1, labels="road", weight="km").tolist() == [3.0, 0.0, 2.0, np.inf]
        assert s.sssp(1, weight="km").tolist() == [1.0, 0.0, 2.0, np.inf]
        assert s.sssp(1, labels=["road", "rail"], weight="km").tolist() == [1.0, 0.0, 2.0, np.inf]
        assert s.bfs(1, labels="road").tolist() == [2, 0, 1, -1]
        assert s.bfs(1, labels=[]).tolist() == [1, 0, 1, -1]
        assert s.bfs(1, labels="nothing").tolist() == [-1, 0, -1, -1]
        # wcc labels: the component member first in vertices() order.
        assert s.wcc(labels="road").tolist() == [3, 3, 3, 9]
        assert s.wcc(labels="nothing").tolist() == [3, 1, 2, 9]
        # The weighted structure (no labels) is untouched: no edges.
        assert s.bfs(1).tolist() == [-1, 0, -1, -1]


def test_weights_that_are_missing_or_not_numbers_name_the_edge():
    with sg.Graph.in_memory() as g:
        with g.transaction() as tx:
            tx.add_edge(1, 2, "road", km=3)
            bare = tx.add_edge(2, 3, "road")
            tx.add_edge(3, 4, "rail", km="far")
        s = g.snapshot()
        with pytest.raises(sg.InvalidInput, match=rf"edge {bare} \(2 -> 3\).*no property \"km\""):
            s.sssp(1, labels="road", weight="km")
        assert s.sssp(1, labels="road", weight="km", default_weight=0.5).tolist() == [
            0.0,
            3.0,
            3.5,
            np.inf,
        ]
        with pytest.raises(sg.InvalidInput, match="not a finite number"):
            s.sssp(1, labels="rail", weight="km")
        with pytest.raises(ValueError, match="default_weight"):
            s.sssp(1, labels="road", default_weight=1.0)
        with pytest.raises(ValueError, match="default_weight"):
            s.sssp(1, labels="road", weight="km", default_weight=float("nan"))
        with pytest.raises(TypeError, match="labels"):
            s.bfs(1, labels=[1, 2])
        with pytest.raises(sg.NotFound):
            s.bfs(99, labels="road")


def test_negative_weights_on_a_projection_are_refused_by_sssp():
    with sg.Graph.in_memory() as g:
        with g.transaction() as tx:
            tx.add_edge(1, 2, "road", km=-1)
        s = g.snapshot()
        with pytest.raises(sg.InvalidInput):
            s.sssp(1, labels="road", weight="km")
        assert s.bfs(1, labels="road").tolist() == [0, 1]


def test_projections_in_a_string_keyed_store_and_after_close():
    with sg.Graph.in_memory(string_ids=True) as g:
        with g.transaction() as tx:
            tx.add_edge("b", "a", "knows")
            tx.add_edge("a", "c", "knows")
        s = g.snapshot()
        assert s.keys(s.vertices()) == ["b", "a", "c"]
        assert s.bfs("a", labels="knows").tolist() == [-1, 0, 1]
        assert s.to_dict(s.wcc(labels="knows")) == {"b": 0, "a": 0, "c": 0}
        s.close()
        with pytest.raises(sg.Closed):
            s.bfs("a", labels="knows")
