"""Checkpoints and exports of an earlier state (``Graph.checkpoint``,
``Graph.export_parquet(as_of=...)``). Expected states are the edges each
test wrote up to that timestamp, listed by hand."""

from __future__ import annotations

import json

import pytest

import stratagraph as sg


def edges_of(g):
    s = g.snapshot()
    src, dst, w = s.edges(weights=True)
    return {(int(a), int(b)): float(x) for a, b, x in zip(src, dst, w)}


def test_export_as_of_gives_the_state_at_that_timestamp(tmp_path):
    g = sg.Graph.open(tmp_path / "store", sync="never")
    g.add_edges([1, 2], [2, 3], [1.0, 0.5])
    base = g.checkpoint()
    assert base["path"].parent.name == "checkpoints"
    assert g.checkpoints() == [(base["timestamp"], base["path"])]
    t1 = g.add_edge(3, 4, 2.5)
    g.remove_edge(1, 2)
    g.add_vertex(9, label="person", name="ann")
    t3 = g.set_property(9, "name", "bob")
    g.add_edge(5, 6)

    done = g.export_parquet(tmp_path / "at-t1", as_of=t1)
    assert done["timestamp"] == t1
    meta = json.loads((tmp_path / "at-t1" / "stratagraph.json").read_text())
    assert meta["timestamp"] == t1
    back = sg.read_parquet(tmp_path / "at-t1")
    assert edges_of(back) == {(1, 2): 1.0, (2, 3): 0.5, (3, 4): 2.5}

    g.export_parquet(tmp_path / "at-t3", as_of=t3)
    back = sg.read_parquet(tmp_path / "at-t3")
    assert edges_of(back) == {(2, 3): 0.5, (3, 4): 2.5}
    assert back.snapshot().vertex(9) == {"id": 9, "label": "person", "properties": {"name": "bob"}}

    # Now, without as_of, is the newest state; as_of the newest commit
    # needs no checkpoint.
    g.export_parquet(tmp_path / "now")
    assert (5, 6) in edges_of(sg.read_parquet(tmp_path / "now"))
    fresh = sg.Graph.open(tmp_path / "fresh", sync="never")
    newest = fresh.add_edge(1, 2)
    assert fresh.export_parquet(tmp_path / "fresh-now", as_of=newest)["timestamp"] == newest


def test_a_checkpoint_into_a_directory_opens_as_a_store(tmp_path):
    g = sg.Graph.open(tmp_path / "store", sync="never")
    g.add_edges([1, 2], [2, 3])
    done = g.checkpoint(tmp_path / "backup")
    assert done["path"] == tmp_path / "backup"
    g.add_edge(7, 8)
    g.close()
    c = sg.Graph.open(tmp_path / "backup")
    assert set(edges_of(c)) == {(1, 2), (2, 3)}
    assert c.snapshot().timestamp == done["timestamp"]


def test_what_cannot_be_exported_as_of_is_refused(tmp_path):
    g = sg.Graph.open(tmp_path / "store", sync="never")
    t0 = g.add_edge(1, 2)
    g.add_edge(2, 3)
    with pytest.raises(sg.ChangesUnavailable, match=r"no checkpoint .* \(it has none\)"):
        g.export_parquet(tmp_path / "x", as_of=t0)
    base = g.checkpoint()["timestamp"]
    with pytest.raises(sg.ChangesUnavailable, match=rf"\(its oldest is at {base}\)"):
        g.export_parquet(tmp_path / "x", as_of=base - 1)
    with pytest.raises(sg.InvalidInput, match="after the newest commit"):
        g.export_parquet(tmp_path / "x", as_of=base + 50)
    assert not (tmp_path / "x").exists()
    m = sg.Graph.in_memory()
    with pytest.raises(sg.InvalidInput, match="in memory"):
        m.checkpoint()
    assert m.checkpoints() == []
