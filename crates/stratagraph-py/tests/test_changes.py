"""Graph.changes and Graph.apply_changes: a copy taken at a timestamp
catches up with the store by applying the changes since. The expected ops
are the writes this test makes, listed by hand; the expected graph is the
store's own state, read through its API."""

from __future__ import annotations

import duckdb
import pytest

import stratagraph as sg


def state(g):
    s = g.snapshot()
    vertices = {v: s.vertex(v) for v in s.vertices().tolist()}
    edges = {e["id"]: s.edge(e["id"]) for e in s.property_edges()}
    src, dst, w = s.edges(weights=True)
    return vertices, edges, sorted(zip(src.tolist(), dst.tolist(), w.tolist()))


def test_a_copy_catches_up_by_applying_the_changes_since(tmp_path):
    g = sg.Graph.open(tmp_path / "store")
    g.add_vertex(1, label="person", name="ann")
    g.add_edges([1], [2], weights=0.5)
    since = g.snapshot().timestamp
    copy = sg.from_arrow(*g.snapshot().to_arrow())
    assert state(copy) == state(g)
    with g.transaction() as tx:
        tx.add_vertex(3, label="person", name="bob", age=41)
        e = tx.add_edge(1, 3, "knows", since=2020)
    g.set_property(1, "name", "anne")
    g.add_edges([2, 3], [3, 1], weights=[1.0, 2.0])
    g.remove_vertex(2)
    table = g.changes(since)
    ops = table["op"].to_pylist()
    # The transaction names vertex 1 (an end of its edge) as existing
    # after it: add_vertex means "exists from here on".
    assert ops == [
        "add_vertex", "add_vertex", "set_property", "set_property", "add_edge", "set_edge_property",
        "set_property",
        "put_edge", "put_edge",
        "delete_vertex",
    ], ops
    assert all(ts > since for ts in table["ts"].to_pylist())
    feed = table
    got = dict(duckdb.sql("select op::varchar, count(*) from feed group by 1").fetchall())
    assert got["put_edge"] == 2 and got["delete_vertex"] == 1
    loaded = copy.apply_changes(table)
    assert loaded["batches"] == 4  # the four commits after `since`
    assert state(copy) == state(g)
    assert copy.snapshot().edge(e)["properties"] == {"since": 2020}
    # Nothing after the newest commit.
    assert g.changes(g.snapshot().timestamp).num_rows == 0


def test_an_in_memory_graph_keeps_no_changes():
    g = sg.Graph.in_memory()
    g.add_edges([1], [2])
    with pytest.raises(sg.ChangesUnavailable, match="in-memory"):
        g.changes(0)


def test_a_bad_change_table_changes_nothing(tmp_path):
    import pyarrow as pa

    g = sg.Graph.open(tmp_path / "store")
    g.add_edges([1], [2])
    table = g.changes(0).drop_columns(["weight"])
    copy = sg.Graph.in_memory()
    with pytest.raises(sg.InvalidInput) as e:
        copy.apply_changes(table)
    assert e.value.field == "weight"
    assert len(copy.snapshot()) == 0
    with pytest.raises(TypeError):
        copy.apply_changes(pa.array([1, 2]).to_pylist())
