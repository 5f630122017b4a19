"""Property edges: edges with their own id, one label and properties, any
number of them between two vertices, beside the weighted edges.

Expected values come from a model kept beside the calls (plain dicts and
lists), never from the code under test; the only thing taken from it is
the id ``add_edge`` hands out, which the model then checks is new.
"""

import copy
import datetime as dt
import random
import uuid

import numpy as np
import pytest

import stratagraph as sg

WHEN = dt.datetime(2007, 12, 3, 10, 15, 30, 123456, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
EVERY_TYPE = {
    "none": None,
    "flag": False,
    "count": 7,
    "big": 2**63 - 1,
    "weight": 0.5,
    "name": "knows",
    "raw": b"\x00\xfe",
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "when": WHEN,
    "list": [1, "a", [2.5, None]],
    "tags": {"x", "y"},
    "map": {"k": 1, 2: "two"},
}


def as_dict(eid, src, dst, label, props=None):
    d = {"id": eid, "src": src, "dst": dst, "label": label}
    if props is not None:
        d["properties"] = props
    return d


# --- A model of the property edges, and checks of a view against it ------


class Model:
    """The property edges and vertices a view should show."""

    def __init__(self):
        self.vertices = set()
        self.edges = {}  # id -> [src, dst, label, {key: value}]

    def add(self, eid, src, dst, label, props):
        self.vertices |= {src, dst}
        self.edges[eid] = [src, dst, label, dict(props)]

    def remove_vertex(self, v):
        self.vertices.discard(v)
        for eid in [e for e, (s, d, _, _) in self.edges.items() if v in (s, d)]:
            del self.edges[eid]

    def listing(self, v, label=None, direction="out"):
        """``v``'s edges as dicts, by id (the view's order is checked apart)."""
        out = []
        for eid in sorted(self.edges):
            s, d, lab, _ = self.edges[eid]
            if label is not None and lab != label:
                continue
            side = {"out": s == v, "in": d == v, "both": v in (s, d)}[direction]
            if side:
                out.append(as_dict(eid, s, d, lab))
        return out

    def neighbours(self, v, label, out):
        ends = [d if out else s for eid, (s, d, lab, _) in self.edges.items()
                if lab == label and (s if out else d) == v]
        return sorted(ends)


def by_id(edges):
    return sorted(edges, key=lambda e: e["id"])


def check_order(edges, v, order):
    """Edges of one vertex come grouped by label, and within a label by the
    other end (in ``order``, the order of ``vertices()``), then by id."""
    seen, last = [], None
    for e in edges:
        if e["label"] != last:
            assert e["label"] not in seen, f"label {e['label']!r} is split: {edges}"
            seen.append(e["label"])
            last = e["label"]
    pos = {x: i for i, x in enumerate(order)}
    other = [pos[e["dst"] if e["src"] == v else e["src"]] for e in edges]
    for label in seen:
        keys = [(o, e["id"]) for o, e in zip(other, edges) if e["label"] == label]
        assert keys == sorted(keys), f"edges of {v} labelled {label!r} out of order: {edges}"


def check_view(view, model, labels=("a", "b", "c")):
    """Every read of a Snapshot or Transaction agrees with the model."""
    for eid, (s, d, lab, props) in model.edges.items():
        assert view.edge(eid) == as_dict(eid, s, d, lab, props)
        assert view.edge_properties(eid) == props
        for key, value in props.items():
            assert view.edge_property(eid, key) == value
        assert view.edge_property(eid, "absent", "dflt") == "dflt"
    for v in model.vertices:
        for direction in ("out", "in", "both"):
            got = view.edges_of(v, direction=direction)
            assert by_id(got) == model.listing(v, direction=direction)
            for label in labels:
                got = view.edges_of(v, label, direction)
                assert by_id(got) == model.listing(v, label, direction)
                ids = view.edge_ids(v, label, direction=direction)
                assert ids.dtype == np.uint64 and list(ids) == [e["id"] for e in got]
        for label in labels:
            assert sorted(view.neighbors(v, label)) == model.neighbours(v, label, True)
            assert sorted(view.in_neighbors(v, label)) == model.neighbours(v, label, False)


def check_snapshot(s, model):
    check_view(s, model)
    assert s.property_edges() == [as_dict(e, *model.edges[e][:3]) for e in sorted(model.edges)]
    order = list(s.vertices())
    for v in model.vertices:
        for direction in ("out", "in", "both"):
            check_order(s.edges_of(v, direction=direction), v, order)


# --- Behaviour, case by case ----------------------------------------------


def test_parallel_edges_have_their_own_ids_labels_and_properties():
    g = sg.Graph.in_memory()
    model = Model()
    with g.transaction() as tx:
        for src, dst, label, props in [
            (1, 2, "knows", {"since": 2010}),
            (1, 2, "knows", {"since": 2015, "weight": 0.5}),
            (1, 2, "likes", {}),
            (2, 1, "knows", {"since": 1999}),
        ]:
            eid = tx.add_edge(src, dst, label, **props)
            assert isinstance(eid, int) and eid not in model.edges
            model.add(eid, src, dst, label, props)
        check_view(tx, model, labels=("knows", "likes"))
    check_snapshot(g.snapshot(), model)
    s = g.snapshot()
    assert len(s.edge_ids(1, "knows")) == 2
    # The weighted structure does not see them.
    assert s.num_edges == 0 and not s.has_edge(1, 2)
    assert list(s.neighbors(1)) == [] and list(s.edges()[0]) == []


def test_directions_order_and_self_loops():
    g = sg.Graph.in_memory()
    g.add_vertices([5, 3, 4])  # vertices() order 5, 3, 4: not numeric
    ids = {}
    for name, (src, dst, label) in {
        "a43": (5, 4, "a"),
        "a3": (5, 3, "a"),
        "loop": (5, 5, "a"),
        "b3": (5, 3, "b"),
        "a3_again": (5, 3, "a"),
        "in4": (4, 5, "a"),
    }.items():
        ids[name] = g.add_edge(src, dst, label)
    s = g.snapshot()
    assert list(s.vertices()) == [5, 3, 4]
    # Grouped by label (in the order labels were first used here), then by
    # the other end in vertices() order, then by id.
    out_ids = [e["id"] for e in s.edges_of(5)]
    assert out_ids == [ids["loop"], ids["a3"], ids["a3_again"], ids["a43"], ids["b3"]]
    assert [e["id"] for e in s.edges_of(5, direction="in")] == [ids["loop"], ids["in4"]]
    both = [e["id"] for e in s.edges_of(5, direction="both")]
    assert both.count(ids["loop"]) == 1, "a self-loop appears once in 'both'"
    assert both == [ids["loop"], ids["a3"], ids["a3_again"], ids["a43"], ids["in4"], ids["b3"]]
    assert list(s.edge_ids(5, "b", "both")) == [ids["b3"]]
    assert s.edges_of(3, direction="in") == [
        as_dict(ids["a3"], 5, 3, "a"),
        as_dict(ids["a3_again"], 5, 3, "a"),
        as_dict(ids["b3"], 5, 3, "b"),
    ]
    assert s.edges_of(3, "nosuchlabel", "both") == []
    # Labelled neighbours: once per edge, parallel edges repeat the vertex.
    assert list(s.neighbors(5, "a")) == [5, 3, 3, 4]
    assert list(s.in_neighbors(5, "a")) == [5, 4]
    assert list(s.in_neighbors(3, "a")) == [5, 5]
    assert s.neighbors(5, "a").dtype == np.uint64
    assert list(s.neighbors(3, "a")) == []
    with g.transaction() as tx:
        assert list(tx.neighbors(5, "a")) == [5, 3, 3, 4]
        assert list(tx.in_neighbors(3, "b")) == [5]
        assert [e["id"] for e in tx.edges_of(5, direction="both")] == both


def test_labelled_neighbours_leave_the_weighted_ones_alone():
    g = sg.Graph.in_memory()
    g.add_edge(1, 2)
    g.add_edge(1, 3, 0.5)
    g.add_edge(1, 4, "knows")
    g.add_edge(1, 4, "knows")
    s = g.snapshot()
    assert sorted(s.neighbors(1)) == [2, 3]
    assert list(s.neighbors(1, "knows")) == [4, 4]
    assert list(s.in_neighbors(4)) == [] and list(s.in_neighbors(4, label="knows")) == [1, 1]
    with g.transaction() as tx:
        assert sorted(tx.neighbors(1)) == [2, 3]
        assert list(tx.neighbors(1, "knows")) == [4, 4]
        tx.add_edge(1, 5, "knows")
        assert list(tx.neighbors(1, "knows")) == [4, 4, 5]
        assert sorted(tx.neighbors(1)) == [2, 3]


def test_property_edges_keep_their_direction_in_an_undirected_graph():
    g = sg.Graph.in_memory(directed=False)
    e = g.add_edge(1, 2, "knows")
    s = g.snapshot()
    assert s.edge(e) == as_dict(e, 1, 2, "knows", {})
    assert list(s.neighbors(1, "knows")) == [2] and list(s.neighbors(2, "knows")) == []
    assert list(s.in_neighbors(2, "knows")) == [1]
    assert [x["id"] for x in s.edges_of(2, direction="both")] == [e]


def test_every_python_value_type_round_trips_on_an_edge():
    g = sg.Graph.in_memory()
    e = g.add_edge(1, 2, "knows", **EVERY_TYPE)
    s = g.snapshot()
    back = s.edge_properties(e)
    assert back == EVERY_TYPE
    assert list(back) == list(EVERY_TYPE), "properties come back in the order set"
    assert isinstance(back["flag"], bool) and isinstance(back["count"], int)
    assert back["when"].utcoffset() == dt.timedelta(hours=-5)
    assert back["none"] is None and s.edge_property(e, "none", "dflt") is None
    assert s.edge(e)["properties"] == EVERY_TYPE
    # Set one by one (and numpy scalars keep their width on the way in).
    f = g.add_edge(2, 1, "knows")
    for key, value in EVERY_TYPE.items():
        g.set_edge_property(f, key, value)
    g.set_edge_property(f, "i32", np.int32(-3))
    g.set_edge_property(f, "tuple", (1, 2))
    expected = dict(EVERY_TYPE, i32=-3, tuple=[1, 2])
    assert g.snapshot().edge_properties(f) == expected
    with g.transaction() as tx:
        assert tx.edge_properties(f) == expected
        assert tx.edge(e) == as_dict(e, 1, 2, "knows", EVERY_TYPE)


def test_removing_edges_and_properties():
    g = sg.Graph.in_memory()
    e1 = g.add_edge(1, 2, "knows", since=2010, note="x")
    e2 = g.add_edge(1, 2, "knows", since=2011)
    with g.transaction() as tx:
        assert tx.remove_edge_property(e1, "note") is True
        assert tx.remove_edge_property(e1, "note") is False
        assert tx.remove_edge_property(e1, "never") is False
        assert tx.edge_properties(e1) == {"since": 2010}
        tx.remove_edge(e2)
        assert [x["id"] for x in tx.edges_of(1)] == [e1]
        with pytest.raises(sg.NotFound, match=f"edge {e2} does not exist"):
            tx.edge(e2)
        assert tx.edge_property(e2, "since") is None
    s = g.snapshot()
    assert s.property_edges() == [as_dict(e1, 1, 2, "knows")]
    assert s.edge_properties(e1) == {"since": 2010}
    with pytest.raises(sg.NotFound):
        s.edge_properties(e2)
    ts = g.remove_edge(e1)
    assert g.snapshot().timestamp == ts and g.snapshot().property_edges() == []
    assert s.edge(e1)["properties"] == {"since": 2010}, "an older snapshot still sees it"
    # The vertices stay.
    assert g.snapshot().has_vertex(1) and g.snapshot().has_vertex(2)


def test_removing_a_vertex_takes_its_property_edges_along():
    g = sg.Graph.in_memory()
    keep = g.add_edge(1, 2, "a", n=1)
    gone = [g.add_edge(3, 1, "a"), g.add_edge(2, 3, "b", n=2), g.add_edge(3, 3, "a")]
    with g.transaction() as tx:
        tx.remove_vertex(3)
        for e in gone:
            with pytest.raises(sg.NotFound):
                tx.edge(e)
        assert [x["id"] for x in tx.edges_of(1, direction="both")] == [keep]
        assert list(tx.neighbors(2, "b")) == []
        with pytest.raises(sg.NotFound, match="vertex 3 does not exist"):
            tx.edges_of(3)
        with pytest.raises(sg.InvalidInput, match="which this transaction deleted"):
            tx.add_edge(3, 1, "a")
    s = g.snapshot()
    assert s.property_edges() == [as_dict(keep, 1, 2, "a")]
    assert [x["id"] for x in s.edges_of(2, direction="both")] == [keep]
    with pytest.raises(sg.NotFound, match="vertex 3 does not exist"):
        s.edges_of(3)
    with pytest.raises(sg.NotFound):
        s.neighbors(3, "a")
    # The vertex can come back, without its old edges.
    g.add_vertex(3)
    assert g.snapshot().edges_of(3, direction="both") == []


def test_read_your_writes_isolation_and_rollback():
    g = sg.Graph.in_memory()
    e0 = g.add_edge(1, 2, "knows", since=2010)
    before = g.snapshot()
    tx = g.transaction()
    e1 = tx.add_edge(2, 3, "knows", w=1)
    tx.set_edge_property(e0, "since", 2020)
    tx.set_edge_property(e1, "w", 2)
    assert tx.edge(e1) == as_dict(e1, 2, 3, "knows", {"w": 2})
    assert tx.edge_property(e0, "since") == 2020
    assert [x["id"] for x in tx.edges_of(2, direction="both")] == [e0, e1]
    assert tx.has_vertex(3)
    # Nobody else sees any of it yet.
    s = g.snapshot()
    assert s.property_edges() == [as_dict(e0, 1, 2, "knows")] and s.edge_property(e0, "since") == 2010
    with pytest.raises(sg.NotFound):
        s.edge(e1)
    tx.rollback()
    s = g.snapshot()
    assert s.timestamp == before.timestamp
    assert s.property_edges() == [as_dict(e0, 1, 2, "knows")]
    assert s.edge_properties(e0) == {"since": 2010} and 3 not in s
    with pytest.raises(sg.Closed):
        tx.edge(e0)
    # A rolled-back id is not handed out again.
    e2 = g.add_edge(1, 2, "knows")
    assert e2 not in (e0, e1)
    # The same writes committed are seen by later snapshots, not earlier ones.
    with g.transaction() as tx:
        tx.set_edge_property(e0, "since", 2020)
    assert g.snapshot().edge_property(e0, "since") == 2020
    assert before.edge_property(e0, "since") == 2010


def test_two_transactions_setting_one_edge_property_conflict():
    g = sg.Graph.in_memory()
    e = g.add_edge(1, 2, "knows", n=0)
    other = g.add_edge(1, 2, "knows", n=0)
    t1, t2, t3 = g.transaction(), g.transaction(), g.transaction()
    t1.set_edge_property(e, "n", t1.edge_property(e, "n") + 1)
    t2.set_edge_property(e, "n", t2.edge_property(e, "n") + 1)
    t3.set_edge_property(other, "n", t3.edge_property(other, "n") + 1)
    t1.commit()
    with pytest.raises(sg.Conflict, match=f'property "n" of edge {e}'):
        t2.commit()
    t3.commit()  # another edge of the same pair does not conflict
    s = g.snapshot()
    assert s.edge_property(e, "n") == 1 and s.edge_property(other, "n") == 1


def test_removing_an_edge_conflicts_with_a_property_written_meanwhile():
    g = sg.Graph.in_memory()
    e = g.add_edge(1, 2, "knows")
    t1, t2 = g.transaction(), g.transaction()
    assert t1.edge(e)["id"] == e and t2.edge(e)["id"] == e
    t1.set_edge_property(e, "n", 1)
    t2.remove_edge(e)
    t1.commit()
    with pytest.raises(sg.Conflict):
        t2.commit()
    assert g.snapshot().edge_properties(e) == {"n": 1}


def test_an_on_disk_store_keeps_property_edges(tmp_path):
    path = tmp_path / "g"
    model = Model()
    with sg.Graph.open(path) as g:
        g.add_edge(1, 2, 0.25)
        for src, dst, label, props in [
            (1, 2, "a", EVERY_TYPE),
            (1, 2, "a", {"n": 1}),
            (2, 2, "b", {}),
            (3, 1, "c", {"s": "x"}),
        ]:
            model.add(g.add_edge(src, dst, label, **props), src, dst, label, props)
        dead = g.add_edge(4, 1, "a", n=9)
        g.remove_edge(dead)
        g.remove_vertex(3)
        model.remove_vertex(3)
    with sg.Graph.open(path) as g:
        s = g.snapshot()
        check_snapshot(s, model)
        assert s.weight(1, 2) == 0.25
        with pytest.raises(sg.NotFound):
            s.edge(dead)
        # Ids handed out after a reopen are new ones.
        e = g.add_edge(1, 2, "a")
        assert e not in model.edges and e != dead
        model.add(e, 1, 2, "a", {})
        with g.transaction() as tx:
            tx.set_edge_property(e, "late", True)
        model.edges[e][3]["late"] = True
    with sg.Graph.open(path, read_only=True) as g:
        check_snapshot(g.snapshot(), model)


def test_add_edge_with_id():
    g = sg.Graph.in_memory()
    with g.transaction() as tx:
        assert tx.add_edge_with_id(100, 1, 2, "knows", since=2010) is None
        assert tx.edge(100) == as_dict(100, 1, 2, "knows", {"since": 2010})
        with pytest.raises(sg.InvalidInput, match="edge id 100 is already in use"):
            tx.add_edge_with_id(100, 2, 3, "knows")
        assert tx.add_edge(1, 2, "knows") > 100
    with g.transaction() as tx:
        with pytest.raises(sg.InvalidInput, match="edge id 100 is already in use"):
            tx.add_edge_with_id(100, 2, 3, "knows")
        tx.remove_edge(100)
    with g.transaction() as tx:  # a removed edge's id may be used again
        tx.add_edge_with_id(100, 3, 4, "likes", n=1)
    assert g.snapshot().edge(100) == as_dict(100, 3, 4, "likes", {"n": 1})


def test_graph_conveniences_return_ids_and_timestamps():
    g = sg.Graph.in_memory()
    ts = g.add_edge(1, 2)
    assert ts == g.snapshot().timestamp
    e = g.add_edge(1, 2, "knows", weight=0.5, since=2010)
    s = g.snapshot()
    assert s.edge(e) == as_dict(e, 1, 2, "knows", {"weight": 0.5, "since": 2010})
    assert s.weight(1, 2) == 1.0, "weight= is a property of a property edge"
    ts = g.set_edge_property(e, "since", 2011)
    assert ts == g.snapshot().timestamp and g.snapshot().edge_property(e, "since") == 2011
    ts = g.remove_edge(e)
    assert ts == g.snapshot().timestamp and g.snapshot().property_edges() == []
    assert g.snapshot().has_edge(1, 2)
    g.remove_edge(1, 2)
    assert not g.snapshot().has_edge(1, 2)


def test_the_weighted_add_edge_forms_still_work():
    g = sg.Graph.in_memory()
    assert isinstance(g.add_edge(1, 2), int)
    g.add_edge(2, 3, 0.5)
    g.add_edge(3, 4, weight=0.25)
    g.add_edge(4, 5, np.float32(2.5))
    g.add_edge(5, 6, 3)
    g.add_edge(6, 7, None)
    with g.transaction() as tx:
        assert tx.add_edge(10, 11) is None
        assert tx.add_edge(11, 12, 0.5) is None
        assert tx.add_edge(12, 13, weight=0.25) is None
        tx.add_edge(1, 2, 9.0)  # re-weights
        tx.remove_edge(5, 6)
    s = g.snapshot()
    expected = {(1, 2): 9.0, (2, 3): 0.5, (3, 4): 0.25, (4, 5): 2.5, (6, 7): 1.0,
                (10, 11): 1.0, (11, 12): 0.5, (12, 13): 0.25}
    src, dst, w = s.edges(weights=True)
    assert {(int(a), int(b)): float(c) for a, b, c in zip(src, dst, w)} == expected
    assert s.property_edges() == []


@pytest.mark.parametrize("where", ["graph", "transaction"])
def test_wrong_argument_types_raise_type_error_and_change_nothing(where):
    g = sg.Graph.in_memory()
    g.add_edge(1, 2, 0.5)
    e = g.add_edge(1, 2, "knows", n=1)
    before = g.snapshot()
    tx = g.transaction()
    target = g if where == "graph" else tx
    with pytest.raises(TypeError, match="third argument is a label .* not a bool"):
        target.add_edge(1, 2, True)
    with pytest.raises(TypeError, match="third argument is a label .* not a list"):
        target.add_edge(1, 2, [0.5])
    with pytest.raises(TypeError, match='keyword argument "since" without a label'):
        target.add_edge(1, 2, since=2010)
    with pytest.raises(TypeError, match='keyword argument "label" without a label'):
        target.add_edge(1, 2, label="knows")
    with pytest.raises(TypeError, match="weight is given twice"):
        target.add_edge(1, 2, 0.5, weight=0.5)
    with pytest.raises(TypeError, match="weight: expected a weight"):
        target.add_edge(1, 2, weight="heavy")
    with pytest.raises(TypeError, match="a property value cannot be a object"):
        target.add_edge(1, 2, "knows", x=object())
    with pytest.raises(TypeError, match="expected an integer edge id, got bool"):
        target.remove_edge(True)
    with pytest.raises(ValueError, match="edge id -1 is out of range"):
        target.set_edge_property(-1, "n", 1)
    with pytest.raises(ValueError, match="does not fit 64 bits"):
        target.set_edge_property(e, "n", 2**64)
    assert len(tx) == 0
    tx.commit()
    after = g.snapshot()
    assert after.timestamp == before.timestamp
    assert after.edge(e) == as_dict(e, 1, 2, "knows", {"n": 1}) and after.weight(1, 2) == 0.5


@pytest.mark.parametrize("where", ["graph", "transaction"])
def test_refused_input_raises_invalid_input_or_not_found_and_changes_nothing(where):
    g = sg.Graph.in_memory(auto_create_vertices=False)
    g.add_vertices([1, 2])
    e = g.add_edge(1, 2, "knows", n=1)
    before = g.snapshot()
    expected = as_dict(e, 1, 2, "knows", {"n": 1})
    tx = g.transaction()
    target = g if where == "graph" else tx
    huge = b"\x00" * (17 << 20)  # beyond the engine's 16 MiB per value
    with pytest.raises(sg.InvalidInput, match="label"):
        target.add_edge(1, 2, "")
    with pytest.raises(sg.InvalidInput, match="property key"):
        target.add_edge(1, 2, "knows", **{"": 1})
    with pytest.raises(sg.InvalidInput, match="property \"blob\" of edge"):
        target.add_edge(1, 2, "knows", blob=huge)
    with pytest.raises(sg.InvalidInput, match=f"property \"blob\" of edge {e}"):
        target.set_edge_property(e, "blob", huge)
    with pytest.raises(sg.InvalidInput, match="property key"):
        target.set_edge_property(e, "", 1)
    with pytest.raises(sg.NotFound, match="vertex 9 does not exist"):
        target.add_edge(1, 9, "knows")
    with pytest.raises(sg.NotFound, match=f"set_edge_property: edge {e + 100} does not exist"):
        target.set_edge_property(e + 100, "n", 1)
    with pytest.raises(sg.NotFound, match=f"remove_edge: edge {e + 100} does not exist"):
        target.remove_edge(e + 100)
    with pytest.raises(sg.NotFound, match="edge \\(2, 1\\) does not exist"):
        target.remove_edge(2, 1)
    if where == "transaction":
        with pytest.raises(sg.InvalidInput, match=f"edge id {e} is already in use"):
            tx.add_edge_with_id(e, 2, 1, "knows")
        with pytest.raises(sg.NotFound):
            tx.remove_edge_property(e + 100, "n")
        with pytest.raises(sg.NotFound):
            tx.edge_properties(e + 100)
        with pytest.raises(sg.NotFound, match="vertex 9 does not exist"):
            tx.edges_of(9)
        with pytest.raises(sg.NotFound, match="vertex 9 does not exist"):
            tx.neighbors(9, "knows")
        with pytest.raises(ValueError, match='direction: expected "out", "in" or "both"'):
            tx.edges_of(1, direction="sideways")
        assert tx.edge_property(e + 100, "n", "dflt") == "dflt"
        assert len(tx) == 0 and tx.edge(e) == expected
    tx.commit()
    s = g.snapshot()
    assert s.timestamp == before.timestamp
    assert s.property_edges() == [as_dict(e, 1, 2, "knows")] and s.edge(e) == expected
    with pytest.raises(sg.NotFound, match=f"edge {e + 100} does not exist in this snapshot"):
        s.edge(e + 100)
    with pytest.raises(sg.NotFound):
        s.edge_properties(e + 100)
    with pytest.raises(sg.NotFound, match="vertex 9 does not exist"):
        s.edges_of(9)
    with pytest.raises(sg.NotFound, match="vertex 9 does not exist"):
        s.edge_ids(9)
    with pytest.raises(sg.NotFound, match="vertex 9 does not exist"):
        s.in_neighbors(9, "knows")
    with pytest.raises(ValueError, match="direction"):
        s.edge_ids(1, direction="OUT")


def test_reads_on_a_closed_snapshot_or_graph_raise_closed():
    g = sg.Graph.in_memory()
    e = g.add_edge(1, 2, "knows")
    s = g.snapshot()
    s.close()
    for call in (lambda: s.edge(e), lambda: s.edges_of(1), lambda: s.property_edges(),
                 lambda: s.neighbors(1, "knows")):
        with pytest.raises(sg.Closed):
            call()
    g.close()
    for call in (lambda: g.add_edge(1, 2, "knows"), lambda: g.remove_edge(e),
                 lambda: g.set_edge_property(e, "n", 1)):
        with pytest.raises(sg.Closed):
            call()


# --- A random differential test against the model --------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("on_disk", [False, True], ids=["memory", "disk"])
def test_random_transactions_agree_with_the_model(tmp_path, seed, on_disk):
    rng = random.Random(seed)
    path = tmp_path / "g"
    g = sg.Graph.open(path, sync="never") if on_disk else sg.Graph.in_memory()
    committed = Model()
    handed_out = set()  # every edge id ever returned, to check ids are new
    removed_ids = set()  # ids of edges deleted in committed state
    vertices = range(8)
    labels = ["a", "b", "c"]
    ops = 0
    while ops < 400:
        tx = g.transaction()
        model = copy.deepcopy(committed)
        deleted_here = set()
        for _ in range(rng.randint(1, 12)):
            ops += 1
            op = rng.random()
            live = sorted(model.edges)
            if op < 0.35 or not live:
                src, dst = rng.choice(vertices), rng.choice(vertices)
                label = rng.choice(labels)
                props = {k: rng.choice([1, "x", 2.5, None, [1, 2]])
                         for k in rng.sample(["p", "q", "r", "weight"], rng.randint(0, 3))}
                if deleted_here & {src, dst}:
                    with pytest.raises(sg.InvalidInput, match="which this transaction deleted"):
                        tx.add_edge(src, dst, label, **props)
                    continue
                eid = tx.add_edge(src, dst, label, **props)
                assert eid not in handed_out
                handed_out.add(eid)
                model.add(eid, src, dst, label, props)
            elif op < 0.42:
                src, dst = rng.choice(vertices), rng.choice(vertices)
                reuse = sorted(removed_ids - set(model.edges))
                eid = rng.choice(reuse) if reuse and rng.random() < 0.5 else 10_000 + ops
                if eid in model.edges or (deleted_here & {src, dst}):
                    with pytest.raises(sg.InvalidInput):
                        tx.add_edge_with_id(eid, src, dst, "b", n=ops)
                    continue
                if eid in handed_out and eid not in removed_ids:
                    continue  # an id given out and then rolled back: left alone
                tx.add_edge_with_id(eid, src, dst, "b", n=ops)
                handed_out.add(eid)
                model.add(eid, src, dst, "b", {"n": ops})
            elif op < 0.55:
                eid = rng.choice(live + [99_999])
                if eid in model.edges:
                    tx.remove_edge(eid)
                    del model.edges[eid]
                else:
                    with pytest.raises(sg.NotFound):
                        tx.remove_edge(eid)
            elif op < 0.75:
                eid = rng.choice(live)
                key, value = rng.choice(["p", "q", "s"]), rng.choice([0, "y", b"z", {1, 2}])
                tx.set_edge_property(eid, key, value)
                model.edges[eid][3][key] = value
            elif op < 0.88:
                eid = rng.choice(live)
                key = rng.choice(["p", "q", "r", "s", "weight"])
                was = key in model.edges[eid][3]
                assert tx.remove_edge_property(eid, key) is was
                model.edges[eid][3].pop(key, None)
            else:
                v = rng.choice(vertices)
                if v in model.vertices:
                    tx.remove_vertex(v)
                    model.remove_vertex(v)
                    deleted_here.add(v)
                else:
                    with pytest.raises(sg.NotFound):
                        tx.remove_vertex(v)
            if rng.random() < 0.3:
                check_view(tx, model)
        check_view(tx, model)
        if rng.random() < 0.75:
            tx.commit()
            removed_ids |= set(committed.edges) - set(model.edges)
            committed = model
            check_snapshot(g.snapshot(), committed)
        else:
            tx.rollback()
            check_snapshot(g.snapshot(), committed)
    if on_disk:
        g.close()
        g = sg.Graph.open(path)
    check_snapshot(g.snapshot(), committed)
    assert committed.edges, "the run should end with some edges to check"
    g.close()
