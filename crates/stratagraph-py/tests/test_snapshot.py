"""Snapshot reads, extraction, and stability under concurrent writes."""

import threading

import numpy as np
import pytest

import stratagraph as sg


@pytest.fixture
def small():
    g = sg.Graph.in_memory()
    # 30 -> 10 -> 20, 10 -> 30, 20 -> 20 (self-loop); 40 isolated.
    g.add_edges([30, 10, 10, 20], [10, 20, 30, 20], weights=[1.0, 2.0, 3.0, 4.0])
    g.add_vertex(40)
    return g


def test_vertices_are_in_first_seen_order(small):
    s = small.snapshot()
    assert s.vertices().dtype == np.uint64
    assert s.vertices().tolist() == [30, 10, 20, 40]
    assert len(s) == 4 and 40 in s and 50 not in s and "x" not in s and -1 not in s


def test_neighbors_are_numpy_arrays_in_internal_id_order(small):
    s = small.snapshot()
    n = s.neighbors(10)
    assert n.dtype == np.uint64 and n.tolist() == [30, 20]
    assert s.in_neighbors(20).tolist() == [10, 20]
    assert s.neighbors(40).tolist() == []
    with pytest.raises(sg.NotFound, match="vertex 99 does not exist"):
        s.neighbors(99)


def test_degrees_follow_networkx(small):
    s = small.snapshot()
    assert (s.out_degree(10), s.in_degree(10), s.degree(10)) == (2, 1, 3)
    assert s.degree(20) == 3  # in from 10 and itself, out to itself
    assert s.degree().tolist() == [2, 3, 3, 0]
    assert s.out_degree().tolist() == [1, 2, 1, 0]
    assert s.in_degree().tolist() == [1, 1, 2, 0]
    u = sg.Graph.in_memory(directed=False)
    u.add_edges([1, 1], [1, 2])
    su = u.snapshot()
    assert su.degree(1) == 3 and su.out_degree(1) == 2  # the loop counts twice in degree


def test_edges_with_and_without_weights(small):
    s = small.snapshot()
    src, dst = s.edges()
    assert list(zip(src.tolist(), dst.tolist())) == [(30, 10), (10, 30), (10, 20), (20, 20)]
    src, dst, w = s.edges(weights=True)
    assert w.dtype == np.float64 and w.tolist() == [1.0, 3.0, 2.0, 4.0]


def test_weight_and_has_edge(small):
    s = small.snapshot()
    assert s.has_edge(10, 20) and not s.has_edge(20, 10)
    assert s.weight(20, 20) == 4.0
    with pytest.raises(sg.NotFound, match=r"edge \(20, 10\)"):
        s.weight(20, 10)


def test_closed_snapshot_raises_and_context_manager(small):
    with small.snapshot() as s:
        assert s.num_edges == 4
    assert s.closed
    with pytest.raises(sg.Closed, match="snapshot is closed"):
        s.vertices()
    small.add_edge(1, 2)  # the graph itself is still open


def test_snapshot_is_stable_while_another_thread_writes():
    g = sg.Graph.in_memory()
    rng = np.random.default_rng(7)
    g.add_edges(rng.integers(0, 5000, 50_000), rng.integers(0, 5000, 50_000))
    s = g.snapshot()
    base = s.edges(weights=True)
    base_ts, base_m = s.timestamp, s.num_edges
    done = threading.Event()
    errors = []
    batches = [0]

    def writer():
        try:
            for i in range(30):
                src = rng.integers(0, 10_000, 40_000)
                dst = rng.integers(0, 10_000, 40_000)
                g.add_edges(src, dst, weights=float(i + 2))
                if i % 3 == 0:
                    g.remove_edges(base[0][i * 10 : i * 10 + 5], base[1][i * 10 : i * 10 + 5])
                batches[0] += 1
        except Exception as e:  # reported by the main thread
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=writer)
    t.start()
    reads = 0
    while not done.is_set() or reads < 3:
        now = s.edges(weights=True)
        for a, b in zip(base, now):
            np.testing.assert_array_equal(a, b)
        assert s.num_edges == base_m and s.timestamp == base_ts
        assert s.bfs(int(base[0][0])).shape == (s.num_vertices,)
        reads += 1
    t.join()
    assert not errors, errors
    assert batches[0] == 30
    assert g.snapshot().num_edges > base_m
    for a, b in zip(base, s.edges(weights=True)):
        np.testing.assert_array_equal(a, b)


def test_to_dict_and_as_dict(small):
    s = small.snapshot()
    depth = s.bfs(30)
    assert s.to_dict(depth) == {30: 0, 10: 1, 20: 2, 40: sg.UNREACHABLE}
    assert sg.as_dict(s, depth) == s.to_dict(depth)
    assert type(next(iter(s.to_dict(depth).values()))) is int
    assert s.to_dict(["a", "b", "c", "d"])[40] == "d"
