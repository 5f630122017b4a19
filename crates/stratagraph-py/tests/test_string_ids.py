"""String-keyed stores: a graph created with ``string_ids=True`` names its
vertices by ``str`` keys.

Every vertex argument may be a key there: writes that may create the
vertex give a new key the next integer id (0, 1, 2, ... in first-seen
order), reads look keys up, and a key never written names no vertex.
Results holding one vertex show its key; vertex arrays stay uint64 ids,
which ``keys()`` translates. Expected values come from models kept beside
the calls (plain dicts), never from the code under test.
"""

import random

import numpy as np
import pytest

import stratagraph as sg


def keyed():
    return sg.Graph.in_memory(string_ids=True)


def modern(g):
    """TinkerPop's "modern" graph, by key."""
    with g.transaction() as tx:
        tx.add_vertex("marko", "person", name="marko", age=29)
        tx.add_vertex("vadas", "person", name="vadas", age=27)
        tx.add_vertex("lop", "software", name="lop", lang="java")
        tx.add_vertex("josh", "person", name="josh", age=32)
        tx.add_edge("marko", "vadas", "knows", weight=0.5)
        tx.add_edge("marko", "josh", "knows", weight=1.0)
        tx.add_edge("marko", "lop", "created", weight=0.4)
        tx.add_edge("josh", "lop", "created", weight=0.4)
    return g


# --- Vertices, edges and properties by key -------------------------------


def test_keys_get_dense_ids_in_first_seen_order_and_name_vertices():
    g = keyed()
    assert g.string_ids and not sg.Graph.in_memory().string_ids
    assert g.key_id("marko") is None
    g.add_vertex("marko", "person", age=29)
    g.add_edge("marko", "vadas")
    g.add_edge("josh", "marko", 2.5)
    assert [g.key_id(k) for k in ("marko", "vadas", "josh")] == [0, 1, 2]
    assert [g.key_of(i) for i in range(4)] == ["marko", "vadas", "josh", None]
    assert g.keys([2, 0]) == ["josh", "marko"]
    s = g.snapshot()
    assert s.string_ids
    assert s.key_id("josh") == 2 and s.key_of(1) == "vadas"
    assert s.label("marko") == "person" and s.label("vadas") == "vertex"
    assert s.properties("marko") == {"age": 29}
    assert s.property("marko", "age") == 29
    assert s.vertex("marko") == {"id": "marko", "label": "person", "properties": {"age": 29}}
    assert s.vertex(0)["id"] == "marko", "an integer is a key's id"
    assert s.has_vertex("vadas") and "vadas" in s and 1 in s
    assert s.has_edge("josh", "marko") and not s.has_edge("marko", "josh")
    assert s.weight("josh", "marko") == 2.5
    assert s.degree("marko") == 2 and s.out_degree("josh") == 1 and s.in_degree("vadas") == 1
    assert repr(g) == "<stratagraph.Graph in-memory directed string-keyed, 3 vertices, 2 edges>"


def test_arrays_stay_ids_and_keys_translates_them():
    g = modern(keyed())
    g.add_edges(["marko", "josh"], ["lop", "vadas"], weights=[0.4, 1.0])
    s = g.snapshot()
    vs = s.vertices()
    assert vs.dtype == np.uint64
    assert s.keys(vs) == ["marko", "vadas", "lop", "josh"]
    nb = s.neighbors("marko")
    assert nb.dtype == np.uint64 and s.keys(nb) == ["lop"]
    assert s.keys(s.in_neighbors("vadas")) == ["josh"]
    src, dst, w = s.edges(weights=True)
    assert sorted(zip(s.keys(src), s.keys(dst), w.tolist())) == [
        ("josh", "vadas", 1.0),
        ("marko", "lop", 0.4),
    ]
    people = s.find_vertices("person", "age", 29)
    assert people.dtype == np.uint64 and s.keys(people) == ["marko"]
    assert s.keys(iter([3, 0])) == ["josh", "marko"], "any iterable"
    assert g.keys(np.array([], dtype=np.uint64)) == []
    # Per-vertex results pair up with keys.
    depth = s.bfs("marko")
    assert dict(zip(s.keys(vs), depth.tolist())) == {"marko": 0, "vadas": -1, "lop": 1, "josh": -1}
    assert s.to_dict(depth) == {"marko": 0, "vadas": -1, "lop": 1, "josh": -1}
    assert sg.as_dict(s, s.out_degree()) == {"marko": 1, "vadas": 0, "lop": 0, "josh": 1}
    assert set(s.keys(s.wcc())) == {"marko", "vadas"}
    G = s.to_networkx()
    assert set(G.nodes) == {"marko", "vadas", "lop", "josh"}
    assert G["josh"]["vadas"]["weight"] == 1.0


def test_property_edges_by_key_show_keys():
    g = modern(keyed())
    s = g.snapshot()
    knows = s.edges_of("marko", "knows")
    assert [(e["src"], e["dst"], e["label"]) for e in knows] == [
        ("marko", "vadas", "knows"),
        ("marko", "josh", "knows"),
    ]
    e = knows[0]["id"]
    assert s.edge(e) == {
        "id": e,
        "src": "marko",
        "dst": "vadas",
        "label": "knows",
        "properties": {"weight": 0.5},
    }
    assert {(d["src"], d["dst"]) for d in s.edges_of("lop", direction="in")} == {
        ("marko", "lop"),
        ("josh", "lop"),
    }
    assert [d["src"] for d in s.property_edges()] == ["marko", "marko", "marko", "josh"]
    assert s.keys(s.neighbors("marko", "knows")) == ["vadas", "josh"]
    assert s.keys(s.in_neighbors("lop", "created")) == ["marko", "josh"]
    assert list(s.edge_ids("josh")) == [d["id"] for d in s.edges_of("josh")]
    with g.transaction() as tx:
        f = tx.add_edge_with_id(100, "vadas", "peter", "knows", since=2020)
        assert f is None
        assert tx.edge(100)["dst"] == "peter"
        assert [d["dst"] for d in tx.edges_of("vadas")] == ["peter"]
        tx.set_edge_property(e, "since", 2010)
        assert tx.has_vertex("peter") and tx.label("peter") == "vertex"
        assert tx.properties("marko")["age"] == 29
        assert tx.property("lop", "lang") == "java"
        assert g.keys(tx.neighbors("vadas", "knows")) == ["peter"]
    s = g.snapshot()
    assert s.edge(e)["properties"] == {"weight": 0.5, "since": 2010}
    g.remove_edge(e)
    assert [d["dst"] for d in g.snapshot().edges_of("marko", "knows")] == ["josh"]


def test_writes_that_need_a_vertex_look_keys_up_and_give_none_an_id():
    g = modern(keyed())
    with g.transaction() as tx:
        tx.set_property("vadas", "age", 28)
        assert tx.remove_property("lop", "lang")
        tx.add_edge("vadas", "lop", 2.0)
        tx.remove_vertex("josh")
    g.set_property("marko", "age", 30)
    s = g.snapshot()
    assert s.property("vadas", "age") == 28 and s.property("marko", "age") == 30
    assert s.property("lop", "lang") is None
    assert "josh" not in s and s.key_id("josh") == 3, "a key outlives its vertex"
    g.remove_edge("vadas", "lop")
    assert not g.snapshot().has_edge("vadas", "lop")
    n = g.key_id("lop")
    g.remove_vertex("lop")
    g.add_vertex("lop")
    assert g.key_id("lop") == n, "a key keeps its id"

    before = g.snapshot().timestamp
    for call, pattern in [
        (lambda: g.set_property("ghost", "a", 1), 'set_property: vertex "ghost" does not exist'),
        (lambda: g.remove_vertex("ghost"), 'delete_vertex: vertex "ghost" does not exist'),
        (lambda: g.remove_edge("marko", "ghost"), r'delete_edge: edge \("marko", "ghost"\) does not exist'),
        (lambda: g.remove_vertices(["marko", "ghost"]), 'vertex "ghost" does not exist'),
        (lambda: g.remove_edges(["marko"], ["ghost"]), r'edge \("marko", "ghost"\) does not exist \(batch element 0\)'),
        (lambda: g.snapshot().label("ghost"), 'vertex "ghost" does not exist in this snapshot'),
        (lambda: g.snapshot().properties("ghost"), '"ghost"'),
        (lambda: g.snapshot().vertex("ghost"), '"ghost"'),
        (lambda: g.snapshot().neighbors("ghost"), '"ghost"'),
        (lambda: g.snapshot().edges_of("ghost"), '"ghost"'),
        (lambda: g.snapshot().degree("ghost"), '"ghost"'),
        (lambda: g.snapshot().weight("marko", "ghost"), r'edge \("marko", "ghost"\)'),
        (lambda: g.snapshot().bfs("ghost"), '"ghost"'),
        (lambda: g.snapshot().sssp("ghost"), '"ghost"'),
    ]:
        with pytest.raises(sg.NotFound, match=pattern):
            call()
    s = g.snapshot()
    assert not s.has_vertex("ghost") and "ghost" not in s
    assert not s.has_edge("ghost", "marko")
    assert s.property("ghost", "age", "none") == "none"
    with g.transaction() as tx:
        assert not tx.has_vertex("ghost") and not tx.has_edge("marko", "ghost")
        assert tx.property("ghost", "x", 7) == 7
        for call in (
            lambda: tx.label("ghost"),
            lambda: tx.properties("ghost"),
            lambda: tx.neighbors("ghost"),
            lambda: tx.edges_of("ghost"),
            lambda: tx.weight("ghost", "marko"),
            lambda: tx.set_property("ghost", "a", 1),
            lambda: tx.remove_vertex("ghost"),
            lambda: tx.remove_edge("ghost", "marko"),
        ):
            with pytest.raises(sg.NotFound, match='"ghost"'):
                call()
        assert len(tx) == 0
    assert g.snapshot().timestamp == before
    assert g.key_id("ghost") is None, "reads gave no id"


def test_engine_errors_name_the_keys_of_the_ids_they_name():
    g = sg.Graph.in_memory(string_ids=True, allow_self_loops=False)
    with pytest.raises(sg.InvalidInput, match=r'self-loop on vertex 0 refused.*\(vertex 0 is "x"\)'):
        g.add_edge("x", "x")
    g.add_edge("a", "b")
    with pytest.raises(sg.NotFound, match=r'edge \(2, 1\) does not exist \(vertex 2 is "b", vertex 1 is "a"\)'):
        with g.transaction() as tx:
            tx.remove_edge("b", "a")


# --- Wrong kinds of ids ---------------------------------------------------


def state(g):
    s = g.snapshot()
    src, dst = s.edges()
    return (s.timestamp, s.vertices().tolist(), src.tolist(), dst.tolist(), s.property_edges())


def test_wrong_kinds_are_refused_in_a_string_store_and_change_nothing():
    g = modern(keyed())
    before = state(g)
    for call, pattern in [
        (lambda: g.add_vertex(99), "v: vertex 99: this store names vertices by str keys"),
        (lambda: g.add_edge("marko", 99), "v: vertex 99"),
        (lambda: g.add_edge("new", 99, "knows"), "v: vertex 99"),
        (lambda: g.add_vertex(""), 'v: vertex "": a vertex key is empty'),
        (lambda: g.add_edge("new", "a\tb"), r'v: vertex "a\\tb": a vertex key holds the control character'),
        (lambda: g.add_vertex("k" * 1025), "is 1025 bytes long; the most is 1024"),
        (lambda: g.add_vertices(["new1", "new2", 99]), r"vertices\[2\]: vertex 99"),
        (lambda: g.add_vertices(["new1", ""]), r'vertices\[1\]: vertex "": a vertex key is empty'),
        (lambda: g.add_edges(["new1", "marko"], ["new2", 42]), r"dst\[1\]: vertex 42"),
        (lambda: g.add_edges(np.array([0, 50], dtype=np.uint64), ["new1", "new2"]), r"src\[1\]: vertex 50"),
        (lambda: g.add_edges(["new1"], [5]), r"dst\[0\]: vertex 5"),
    ]:
        with pytest.raises(sg.InvalidInput, match=pattern):
            call()
        assert state(g) == before
    for key in ("new", "new1", "new2", "a\tb", "k" * 1025):
        assert g.key_id(key) is None, "every element is checked before a key gets an id"
    with g.transaction() as tx:
        for call in (
            lambda: tx.add_vertex(77),
            lambda: tx.add_edge("fresh", 77),
            lambda: tx.add_edge("fresh", "", "knows"),
            lambda: tx.add_edge_with_id(500, "fresh", 77, "knows"),
        ):
            with pytest.raises(sg.InvalidInput):
                call()
        assert len(tx) == 0
    assert g.key_id("fresh") is None, "both ends are checked before either key gets an id"
    assert state(g) == before


def test_a_str_vertex_in_an_integer_store_raises_invalid_input():
    g = sg.Graph.in_memory()
    g.add_edge(1, 2)
    before = state(g)
    msg = "this store names vertices by integers"
    for call, pattern in [
        (lambda: g.add_vertex("a"), f'v: vertex "a": {msg}'),
        (lambda: g.add_edge(1, "b"), f'v: vertex "b": {msg}'),
        (lambda: g.add_edge("a", 2, "knows"), f'u: vertex "a": {msg}'),
        (lambda: g.set_property("a", "k", 1), f'v: vertex "a": {msg}'),
        (lambda: g.remove_vertex("a"), msg),
        (lambda: g.remove_edge(1, "b"), msg),
        (lambda: g.add_vertices([3, "a"]), rf'vertices\[1\]: vertex "a": {msg}'),
        (lambda: g.add_edges(["a"], [1]), rf'src\[0\]: vertex "a": {msg}'),
        (lambda: g.add_edges(np.array(["a", "b"]), [1, 2]), rf'src\[0\]: vertex "a": {msg}'),
        (lambda: g.remove_edges([1], ["b"]), msg),
        (lambda: g.snapshot().has_vertex("a"), msg),
        (lambda: g.snapshot().neighbors("a"), msg),
        (lambda: g.snapshot().bfs("a"), msg),
        (lambda: g.transaction().add_vertex("a"), msg),
        (lambda: g.transaction().has_edge(1, "b"), msg),
        (lambda: g.keys([1]), "which have no keys"),
        (lambda: g.snapshot().keys([1]), "which have no keys"),
    ]:
        with pytest.raises(sg.InvalidInput, match=pattern):
            call()
    assert state(g) == before
    assert "a" not in g.snapshot(), "`in` takes anything"
    assert g.key_id("a") is None and g.key_of(1) is None
    assert g.snapshot().vertex(1)["id"] == 1
    assert g.snapshot().edges_of(1) == []


# --- Batches ---------------------------------------------------------------


def test_batches_take_keys_and_ids_beside_them():
    g = keyed()
    g.add_vertices(["a", "b"])
    g.add_vertices(np.array(["c"]))
    g.add_edges(["a", "d"], ["e", "a"], weights=[1.5, 2.5])
    assert [g.key_of(i) for i in range(5)] == ["a", "b", "c", "e", "d"], "src[0], dst[0], src[1], ..."
    g.add_edges([0, "f"], ["b", 2])  # ints are key ids
    s = g.snapshot()
    src, dst, w = s.edges(weights=True)
    assert sorted(zip(s.keys(src), s.keys(dst), w.tolist())) == [
        ("a", "b", 1.0),
        ("a", "e", 1.5),
        ("d", "a", 2.5),
        ("f", "c", 1.0),
    ]
    g.add_edges(np.array([0], dtype=np.uint64), np.array([2], dtype=np.int64))  # the id fast path
    assert g.snapshot().has_edge("a", "c")
    g.remove_edges(["a", "d"], ["e", 0])
    g.remove_vertices(["f", "b", "f"])
    s = g.snapshot()
    assert sorted(s.keys(s.vertices())) == ["a", "c", "d", "e"]
    src, dst = s.edges()
    assert sorted(zip(s.keys(src), s.keys(dst))) == [("a", "c")]
    with pytest.raises(TypeError, match=r"src\[1\]: expected an integer vertex id, got float"):
        g.add_edges(["a", 1.5], ["b", "c"])
    with pytest.raises(ValueError, match="same length"):
        g.add_edges(["a", "b"], ["c"])


# --- Transactions ------------------------------------------------------------


def test_a_snapshot_transaction_reads_an_unknown_key_as_of_its_snapshot():
    g = keyed()
    g.add_vertex("a")
    tx = g.transaction()
    assert not tx.has_vertex("late")  # the transaction's first read
    g.add_vertex("late")
    assert g.key_id("late") is not None
    assert not tx.has_vertex("late"), "it was not there at the transaction's snapshot"
    assert tx.has_vertex("a")
    tx.add_edge("a", "b")
    tx.commit()  # only writes: no conflict
    assert g.snapshot().has_edge("a", "b")


def test_a_serializable_read_of_an_unknown_key_conflicts_with_its_creation():
    g = keyed()
    tx = g.transaction(serializable=True)
    assert not tx.has_vertex("ghost")
    assert g.key_id("ghost") is None, "a read gives no key an id"
    tx.add_vertex("other")
    g.add_vertex("ghost")
    with pytest.raises(sg.Conflict):
        tx.commit()
    assert "other" not in g.snapshot()


# --- On disk -----------------------------------------------------------------


def test_on_disk_the_kind_and_the_keys_survive_a_reopen(tmp_path):
    path = tmp_path / "g"
    with sg.Graph.open(path, string_ids=True) as g:
        assert g.string_ids
        modern(g)
        g.add_edges(["lop", "ripple"], ["josh", "josh"])
    with sg.Graph.open(path) as g:  # string_ids=None: as the store says
        assert g.string_ids
        s = g.snapshot()
        assert [g.key_id(k) for k in ("marko", "vadas", "lop", "josh", "ripple")] == [0, 1, 2, 3, 4]
        assert s.vertex("marko")["properties"] == {"name": "marko", "age": 29}
        assert [d["dst"] for d in s.edges_of("marko", "knows")] == ["vadas", "josh"]
        assert s.keys(s.in_neighbors("josh")) == ["lop", "ripple"]
        g.add_vertex("peter", "person")
        assert g.key_id("peter") == 5, "the next key gets the next id"
    with sg.Graph.open(path, string_ids=True, read_only=True) as g:
        assert g.snapshot().label("peter") == "person"
    with pytest.raises(sg.InvalidInput, match="names vertices by string keys, the options ask for integer ids"):
        sg.Graph.open(path, string_ids=False)
    with pytest.raises(sg.InvalidInput, match="string keys"):
        sg.Graph.open(path, string_ids=False, read_only=True)
    ints = tmp_path / "ints"
    with sg.Graph.open(ints) as g:  # a new store: integer ids
        assert not g.string_ids
        g.add_edge(1, 2)
    with pytest.raises(sg.InvalidInput, match="names vertices by integer ids, the options ask for string keys"):
        sg.Graph.open(ints, string_ids=True)
    with sg.Graph.open(ints, string_ids=False) as g:
        assert not g.string_ids and g.snapshot().has_edge(1, 2)


def test_load_csv_into_a_string_keyed_graph(tmp_path):
    (tmp_path / "v.csv").write_text("id,:LABEL,age:int\nmarko,person,29\nvadas,person,27\n")
    (tmp_path / "e.csv").write_text(":START_ID,:END_ID,:TYPE\nmarko,vadas,knows\n")
    g = keyed()
    g.load_csv(vertices=tmp_path / "v.csv", edges=tmp_path / "e.csv")
    s = g.snapshot()
    assert s.vertex("vadas") == {"id": "vadas", "label": "person", "properties": {"age": 27}}
    assert [(d["src"], d["dst"]) for d in s.edges_of("marko")] == [("marko", "vadas")]


# --- A random differential test against a dict model ------------------------


class Model:
    """What a string-keyed store should hold, by key."""

    def __init__(self):
        self.ids = {}  # key -> id, given in first-seen order
        self.vertices = {}  # key -> [label, {prop: value}]
        self.weighted = {}  # (src, dst) -> weight
        self.edges = {}  # edge id -> (src, dst, label)

    def name(self, *keys):
        """Keys a write that may create vertices names, in order."""
        for k in keys:
            self.ids.setdefault(k, len(self.ids))

    def ensure(self, *keys):
        for k in keys:
            self.vertices.setdefault(k, ["vertex", {}])

    def remove(self, k):
        del self.vertices[k]
        self.weighted = {e: w for e, w in self.weighted.items() if k not in e}
        self.edges = {i: e for i, e in self.edges.items() if k not in e[:2]}

    def check(self, g):
        s = g.snapshot()
        for k, i in self.ids.items():
            assert s.key_id(k) == i and s.key_of(i) == k
        assert sorted(s.keys(s.vertices())) == sorted(self.vertices)
        for k, (label, props) in self.vertices.items():
            assert s.vertex(k) == {"id": k, "label": label, "properties": props}
        src, dst, w = s.edges(weights=True)
        assert dict(zip(zip(s.keys(src), s.keys(dst)), w.tolist())) == self.weighted
        got = {d["id"]: (d["src"], d["dst"], d["label"]) for d in s.property_edges()}
        assert got == self.edges
        for k in self.vertices:
            out = sorted(d for (a, d) in self.weighted if a == k)
            assert sorted(s.keys(s.neighbors(k))) == out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_operations_match_a_dict_model_through_reopens(tmp_path, seed):
    rng = random.Random(seed)
    keys = [f"k{i}" + "é" * (i % 3) for i in range(10)]
    path = tmp_path / "g"
    g = sg.Graph.open(path, string_ids=True, sync="never")
    m = Model()
    for step in range(250):
        op = rng.random()
        a, b = rng.choice(keys), rng.choice(keys)
        if op < 0.15:
            label = rng.choice(["person", "place"])
            m.name(a)
            g.add_vertex(a, label, n=step)
            if a not in m.vertices:
                m.vertices[a] = [label, {"n": step}]
        elif op < 0.35:
            w = float(rng.randint(1, 9))
            m.name(a, b)
            g.add_edge(a, b, w)
            m.ensure(a, b)
            m.weighted[(a, b)] = w
        elif op < 0.5:
            m.name(a, b)
            label = rng.choice(["knows", "likes"])
            with g.transaction() as tx:
                e = tx.add_edge(a, b, label, at=step)
            assert e not in m.edges
            m.ensure(a, b)
            m.edges[e] = (a, b, label)
        elif op < 0.6:
            n = rng.randint(1, 4)
            src = [rng.choice(keys) for _ in range(n)]
            dst = [rng.choice(keys) for _ in range(n)]
            for s_, d_ in zip(src, dst):
                m.name(s_, d_)
            g.add_edges(src, dst, weights=7.0)
            for s_, d_ in zip(src, dst):
                m.ensure(s_, d_)
                m.weighted[(s_, d_)] = 7.0
        elif op < 0.7:
            if a in m.vertices:
                g.set_property(a, "p", step)
                m.vertices[a][1]["p"] = step
            else:
                with pytest.raises(sg.NotFound):
                    g.set_property(a, "p", step)
        elif op < 0.78:
            if a in m.vertices:
                g.remove_vertex(a)
                m.remove(a)
            else:
                with pytest.raises(sg.NotFound):
                    g.remove_vertex(a)
        elif op < 0.86:
            if (a, b) in m.weighted:
                g.remove_edge(a, b)
                del m.weighted[(a, b)]
            else:
                with pytest.raises(sg.NotFound):
                    g.remove_edge(a, b)
        elif op < 0.9 and m.edges:
            e = rng.choice(sorted(m.edges))
            g.remove_edge(e)
            del m.edges[e]
        elif op < 0.95:
            g.close()
            g = sg.Graph.open(path, sync="never")  # the kind from the store
            assert g.string_ids
        else:
            m.check(g)
    m.check(g)
    g.close()
    with sg.Graph.open(path, read_only=True) as g:
        m.check(g)
