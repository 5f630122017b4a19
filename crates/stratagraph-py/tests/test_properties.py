"""Labels and vertex properties: Python values in and out, typed by the
engine, read through transactions and snapshots, refused when bad."""

import datetime as dt
import uuid

import numpy as np
import pytest

import stratagraph as sg


def test_python_values_round_trip_through_the_engine():
    g = sg.Graph.in_memory()
    when = dt.datetime(2007, 12, 3, 10, 15, 30, 123456, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    values = {
        "none": None,
        "flag": True,
        "age": 29,
        "big": -(2**63),
        "score": 0.25,
        "name": "marko",
        "raw": b"\x00\xff",
        "id": ident,
        "when": when,
        "list": [1, "a", [2.5, None]],
        "tags": {"x", "y"},
        "map": {"k": 1, 2: "two"},
    }
    g.add_vertex(1, label="person", **values)
    s = g.snapshot()
    assert s.label(1) == "person"
    back = s.properties(1)
    assert back == values
    assert list(back) == list(values), "properties come back in the order set"
    assert isinstance(back["flag"], bool) and isinstance(back["age"], int)
    assert back["when"].utcoffset() == dt.timedelta(hours=1)
    assert s.vertex(1) == {"id": 1, "label": "person", "properties": values}


def test_numpy_scalars_keep_their_width_and_tuples_are_lists():
    g = sg.Graph.in_memory()
    g.add_vertex(1)
    g.set_property(1, "i32", np.int32(7))
    g.set_property(1, "f32", np.float32(0.5))
    g.set_property(1, "t", (1, 2))
    s = g.snapshot()
    assert s.property(1, "i32") == 7 and s.property(1, "f32") == 0.5
    assert s.property(1, "t") == [1, 2]
    assert s.property(1, "missing", default="none") == "none"
    assert s.property(99, "i32") is None


def test_each_numpy_scalar_type_is_kept_as_its_documented_engine_type():
    # The module's table: the engine type each numpy scalar type becomes.
    # A scan for a value finds exactly the vertices holding it in the same
    # engine type (an Int32 7 is not an Int64 7).
    cases = [
        (np.int8(7), "Int8"), (np.int16(7), "Int16"), (np.uint8(7), "Int16"),
        (np.int32(7), "Int32"), (np.uint16(7), "Int32"), (np.int64(7), "Int64"),
        (np.uint32(7), "Int64"), (np.uint64(7), "Int64"), (7, "Int64"),
        (np.float32(0.5), "Float32"), (np.float64(0.5), "Float64"), (0.5, "Float64"),
        (np.bool_(True), "Bool"), (True, "Bool"),
    ]
    g = sg.Graph.in_memory()
    for v, (value, _) in enumerate(cases):
        g.add_vertex(v, label="n", x=value)
    g.add_vertex(100, label="n")
    g.set_property(100, "x", np.int32(7))  # a single write takes the same path
    s = g.snapshot()
    for value, kind in cases:
        want = sorted(v for v, (_, k) in enumerate(cases) if k == kind)
        if kind == "Int32":
            want.append(100)
        assert sorted(s.find_vertices("n", "x", value).tolist()) == want, (value, kind)
    with pytest.raises(ValueError, match="does not fit Int64"):
        g.set_property(1, "x", np.uint64(2**63))
    assert s.property(1, "x") == 7


def test_transactions_read_their_own_property_writes():
    g = sg.Graph.in_memory()
    g.add_vertex(1, label="person", name="marko", age=29)
    with g.transaction() as tx:
        assert tx.property(1, "age") == 29
        tx.set_property(1, "age", 30)
        assert tx.remove_property(1, "name") is True
        assert tx.remove_property(1, "name") is False
        assert tx.properties(1) == {"age": 30}
        assert tx.label(1) == "person"
        assert tx.add_vertex(2, label="software", lang="java") is True
        assert tx.properties(2) == {"lang": "java"}
    s = g.snapshot()
    assert s.properties(1) == {"age": 30}
    assert s.label(2) == "software"
    g.add_edge(3, 4)
    assert g.snapshot().label(3) == "vertex"


def test_bad_keys_values_and_vertices_are_refused_naming_what_was_wrong():
    g = sg.Graph.in_memory()
    g.add_vertex(1)
    with pytest.raises(sg.InvalidInput, match="property key"):
        g.set_property(1, "", 1)
    with pytest.raises(TypeError, match='property "k": a property value cannot be a object'):
        g.set_property(1, "k", object())
    with pytest.raises(ValueError, match="does not fit 64 bits"):
        g.set_property(1, "k", 2**64)
    with pytest.raises(ValueError, match="naive datetime"):
        g.set_property(1, "k", dt.datetime(2020, 1, 1))
    with pytest.raises(sg.NotFound):
        g.set_property(2, "k", 1)
    with pytest.raises(sg.NotFound):
        g.snapshot().properties(2)
    assert g.snapshot().properties(1) == {}


def test_a_property_lost_update_raises_conflict():
    g = sg.Graph.in_memory()
    g.add_vertex(1, age=29)
    t1, t2 = g.transaction(), g.transaction()
    t1.set_property(1, "age", t1.property(1, "age") + 1)
    t2.set_property(1, "age", t2.property(1, "age") + 1)
    t1.commit()
    with pytest.raises(sg.Conflict, match='property "age" of vertex 1'):
        t2.commit()
    assert g.snapshot().property(1, "age") == 30


def test_an_on_disk_store_keeps_labels_and_properties(tmp_path):
    when = dt.datetime(2020, 5, 17, 8, 30, tzinfo=dt.timezone.utc)
    with sg.Graph.open(tmp_path / "g") as g:
        g.add_vertex(1, label="person", name="marko", since=when)
    with sg.Graph.open(tmp_path / "g") as g:
        g.set_property(1, "age", np.int32(29))
    with sg.Graph.open(tmp_path / "g") as g:
        assert g.snapshot().vertex(1) == {
            "id": 1,
            "label": "person",
            "properties": {"name": "marko", "since": when, "age": 29},
        }


def test_find_vertices_with_and_without_an_index(tmp_path):
    with sg.Graph.open(tmp_path / "g") as g:
        for v, name in [(1, "marko"), (2, "vadas"), (3, "marko")]:
            g.add_vertex(v, label="person", name=name, age=np.int32(27 + v))
        g.add_vertex(4, label="software", name="marko")
        s = g.snapshot()
        assert sorted(s.find_vertices("person", "name", "marko")) == [1, 3]
        assert g.create_index("person", "name") is True
        assert g.create_index("person", "name") is False
        assert g.indexes() == [("person", "name")]
        found = g.snapshot().find_vertices("person", "name", "marko")
        assert found.dtype == np.uint64 and sorted(found) == [1, 3]
        # Typed equality: an Int32 is found by an Int32, not by an int.
        assert list(s.find_vertices("person", "age", np.int32(29))) == [2]
        assert len(s.find_vertices("person", "age", 29)) == 0
        g.add_vertex(5, label="person", score=float("nan"))
        with pytest.raises(sg.InvalidInput, match="holds NaN"):
            g.create_index("person", "score")
    with sg.Graph.open(tmp_path / "g") as g:
        assert g.indexes() == [("person", "name")]
        assert sorted(g.snapshot().find_vertices("person", "name", "marko")) == [1, 3]


def test_a_transaction_finds_its_own_writes_and_serializable_sees_phantoms():
    g = sg.Graph.in_memory()
    g.add_vertex(1, label="person", name="marko")
    t1 = g.transaction(serializable=True)
    assert list(t1.find_vertices("person", "name", "marko")) == [1]
    t1.add_vertex(2, label="person", name="marko")
    assert sorted(t1.find_vertices("person", "name", "marko")) == [1, 2]
    g.add_vertex(3, label="person", name="marko")  # a phantom for t1
    with pytest.raises(sg.Conflict, match="vertices' property"):
        t1.commit()
